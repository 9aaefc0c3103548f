/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small streaming JSON writer: the caller opens and closes objects and
 * arrays, the writer places commas and escapes strings.
 *
 *   json_obj(&w, NULL); json_int(&w, "port", 1); json_end(&w);  -> {"port":1}
 */
#ifndef ONEIB_JSON_H
#define ONEIB_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	char closer[JSON_MAX_DEPTH];
};

void json_init(struct json *w, FILE *f);
/* key is NULL inside arrays and for the top level. */
void json_obj(struct json *w, const char *key);
void json_arr(struct json *w, const char *key);
void json_end(struct json *w);
void json_str(struct json *w, const char *key, const char *v);
/* v NULL or "" is written as null. */
void json_str_or_null(struct json *w, const char *key, const char *v);
void json_int(struct json *w, const char *key, long long v);
/* v < 0 is written as null: our "unknown". */
void json_int_or_null(struct json *w, const char *key, long long v);
void json_null(struct json *w, const char *key);
void json_bool(struct json *w, const char *key, bool v);

#endif
