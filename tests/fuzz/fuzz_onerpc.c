// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: oned's XML-RPC answers (fabric/onerpc.h). No crash, no leak;
 * a refusal is one line; and any bytes, escaped as an XML-RPC string (the
 * five entities, decimal or hexadecimal character references for some
 * bytes, as byte 0 chooses) and wrapped in a successful answer, come out
 * exactly as they went in, while a failed answer never writes the
 * document. The raw input is also read as an answer of its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/onerpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* in through onerpc_string: its return; out (malloc'ed) what it wrote */
static int decode(const char *in, size_t len, char **out, size_t *outlen,
		  char *err, size_t errlen)
{
	FILE *i = fmemopen((void *)in, len, "r");
	FILE *o = open_memstream(out, outlen);
	int r;

	if (!i || !o)
		abort();
	r = onerpc_string(i, o, err, errlen);
	fclose(i);
	fclose(o);
	if (r && (!err[0] || strchr(err, '\n')))
		abort();
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char head[] = "<?xml "
				   "version=\"1.0\"?>\n<methodResponse><params>"
				   "<param>"
				   "<value><array><data><value><boolean>%c</"
				   "boolean></value>\n"
				   "<value><string>";
	static const char tail[] = "</string></value></data></array></value>"
				   "</param></params></methodResponse>\n";
	char err[512] = "", *in, *out = NULL;
	size_t n = 0, outlen = 0, cap, i;
	int r, ok, how;

	/* the raw input: any verdict, one line when refused */
	(void)decode(size ? (const char *)data : "", size, &out, &outlen, err,
		     sizeof(err));
	free(out);
	out = NULL;
	if (size < 1)
		return 0;
	how = data[0];
	ok = how & 1;
	/* the longest escape of a byte is 6: "&quot;", "&#120;", "&#x7F;" */
	cap = sizeof(head) + sizeof(tail) + 8 * size + 1;
	in = malloc(cap);
	if (!in)
		return 0;
	n = (size_t)snprintf(in, cap, head, ok ? '1' : '0');
	for (i = 1; i < size; i++) {
		unsigned char c = data[i];
		const char *e = c == '<'		 ? "&lt;"
				: c == '&'		 ? "&amp;"
				: c == '>' && (how & 2)	 ? "&gt;"
				: c == '"' && (how & 2)	 ? "&quot;"
				: c == '\'' && (how & 2) ? "&apos;"
							 : NULL;

		if (e)
			n += (size_t)snprintf(in + n, cap - n, "%s", e);
		else if (c && c < 0x80 && (how & 4) && c % 3 == 0)
			n += (size_t)snprintf(in + n, cap - n, "&#%u;", c);
		else if (c && c < 0x80 && (how & 8) && c % 5 == 0)
			n += (size_t)snprintf(in + n, cap - n, "&#x%X;", c);
		else
			in[n++] = (char)c;
	}
	n += (size_t)snprintf(in + n, cap - n, "%s", tail);
	err[0] = '\0';
	r = decode(in, n, &out, &outlen, err, sizeof(err));
	if (ok && (r || outlen != size - 1 || memcmp(out, data + 1, size - 1)))
		abort(); /* the document, byte for byte */
	if (!ok && (!r || outlen))
		abort(); /* oned's message, never a document */
	free(out);
	free(in);
	return 0;
}
