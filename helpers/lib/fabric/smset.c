// SPDX-License-Identifier: Apache-2.0
/* Every subnet manager of the fabric, at once (smset.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/child.h"
#include "core/conffile.h"
#include "core/log.h"
#include "fabric/partdiff.h"
#include "fabric/smset.h"

/* --- settings ------------------------------------------------------------------- */

/* A host name as ssh takes it ("sm1", "oneadmin@sm1.ib", "10.0.0.5"),
 * never an option ("-oProxyCommand=..."). */
static bool host_name(const char *h, size_t n)
{
	size_t i;

	if (!n || n >= SMSET_NAME_MAX || h[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!((h[i] >= 'a' && h[i] <= 'z') ||
		      (h[i] >= 'A' && h[i] <= 'Z') ||
		      (h[i] >= '0' && h[i] <= '9') || strchr("._-@:", h[i])))
			return false;
	return true;
}

/* Does cmd reach a host itself (its first word ssh)? */
static bool runs_ssh(const char *cmd)
{
	const char *w = cmd + strspn(cmd, " \t");
	size_t n = strcspn(w, " \t");

	return (n == 3 && !strncmp(w, "ssh", 3)) ||
	       (n > 4 && !strncmp(w + n - 4, "/ssh", 4));
}

int smset_init(struct smset *s, const char *sms, const char *ssh,
	       const char *cmd, const char *read_cmd, const char *qos_cmd,
	       unsigned timeout, char *err, size_t errlen)
{
	const char *names[] = { "ONEIB_PARTITIONS_CMD",
				"ONEIB_PARTITIONS_READ_CMD",
				"ONEIB_QOS_POLICY_CMD" };
	const char *cmds[] = { cmd, read_cmd, qos_cmd };
	const char *p = sms ? sms : "";
	size_t i, k;

	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->read_cmd = read_cmd;
	s->qos_cmd = qos_cmd;
	s->timeout = timeout;
	s->ssh = ssh && *ssh ? ssh : SMSET_DEFAULT_SSH;
	for (;;) {
		size_t n;

		p += strspn(p, " \t,");
		if (!*p)
			break;
		n = strcspn(p, " \t,");
		if (!host_name(p, n)) {
			err_set(err, errlen,
				"ONEIB_SMS: '%.*s' is not a host name", (int)n,
				p);
			return -EINVAL;
		}
		for (k = 0; k < s->n; k++)
			if (strlen(s->sm[k].name) == n &&
			    !strncmp(s->sm[k].name, p, n)) {
				err_set(err, errlen,
					"ONEIB_SMS names %.*s twice", (int)n,
					p);
				return -EINVAL;
			}
		if (s->n == SMSET_MAX) {
			err_set(err, errlen,
				"ONEIB_SMS names more than %d subnet managers",
				SMSET_MAX);
			return -EINVAL;
		}
		memcpy(s->sm[s->n].name, p, n);
		s->sm[s->n++].name[n] = '\0';
		p += n;
	}
	s->many = s->n > 0;
	if (!s->many)
		s->n = 1; /* the one SM, its name "" */
	for (i = 0; s->many && i < 3; i++)
		if (cmds[i] && runs_ssh(cmds[i])) {
			err_set(err, errlen,
				"%s runs ssh itself while ONEIB_SMS names the "
				"subnet managers: with ONEIB_SMS it is what "
				"runs on each of them (ONEIB_SM_SSH reaches "
				"them), e.g. the default sudo line; see "
				"one-ib-sm(7)",
				names[i]);
			return -EINVAL;
		}
	return 0;
}

/* --- one SM's command ------------------------------------------------------------ */

enum step { ST_IDLE, ST_READ, ST_QOS, ST_PARTITIONS, ST_READBACK };

/* One SM's command in flight, and its chain's state. */
struct job {
	struct child c;
	const char *argv[7];
	char script[1024];
	const char *cmd; /* its name in messages */
	FILE *out; /* its stdout */
	int in; /* its stdin, -1: none */
	enum step step;
	const struct strbuf *file; /* the partitions it gets */
	struct strbuf qos_out, qos_err;
	char qos_why[SMSET_WHY_MAX];
};

/* A memory file holding text, rewound, close-on-exec (the SMs' commands
 * run at once: none inherits another's files). */
static int text_file(const struct strbuf *text)
{
	FILE *f = tmpfile();
	int fd;

	if (!f)
		return -1;
	if (fwrite(text->buf, 1, text->len, f) != text->len || fflush(f)) {
		fclose(f);
		return -1;
	}
	fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 3);
	fclose(f);
	if (fd >= 0)
		lseek(fd, 0, SEEK_SET);
	return fd;
}

static void job_close(struct job *j)
{
	if (j->out)
		fclose(j->out);
	if (j->in >= 0)
		close(j->in);
	j->out = NULL;
	j->in = -1;
}

/*
 * Starts cmd for SM sm, stdin from in (NULL: none): 0, or -1 with why
 * set (nothing runs).
 */
static int job_start(const struct smset *s, const struct sm *sm, struct job *j,
		     enum step step, const char *cmd, const struct strbuf *in,
		     char *why)
{
	int r;

	j->c = (struct child){ .argv = j->argv, .timeout = s->timeout };
	j->cmd = cmd;
	j->step = step;
	j->in = -1;
	if (s->many) {
		/* the SM's host and the command as words of their own: no
		 * quoting of ours inside the operator's ssh line */
		snprintf(j->script, sizeof(j->script), "%s \"$1\" \"$2\"",
			 s->ssh);
		j->argv[0] = "/bin/sh";
		j->argv[1] = "-c";
		j->argv[2] = j->script;
		j->argv[3] = "oneib-sm";
		j->argv[4] = sm->name;
		j->argv[5] = cmd;
		j->argv[6] = NULL;
	} else {
		j->argv[0] = "/bin/sh";
		j->argv[1] = "-c";
		j->argv[2] = cmd;
		j->argv[3] = NULL;
	}
	j->out = tmpfile();
	if (j->out)
		fcntl(fileno(j->out), F_SETFD, FD_CLOEXEC);
	if (in)
		j->in = text_file(in);
	if (!j->out || (in && j->in < 0)) {
		snprintf(why, SMSET_WHY_MAX, "%s: %s", cmd, strerror(errno));
		job_close(j);
		return -1;
	}
	j->c.out_fd = fileno(j->out);
	j->c.in_fd = j->in > 0 ? j->in : 0;
	j->c.no_stdin = !in;
	if (child_named_begin(&j->c, cmd, why, SMSET_WHY_MAX)) {
		job_close(j);
		return -1;
	}
	r = child_start(&j->c);
	if (r) {
		child_named_end(&j->c, r, cmd, NULL, why, SMSET_WHY_MAX);
		job_close(j);
		return -1;
	}
	return 0;
}

/* After it ended (r from child_wait_any): its stdout into out, its stderr
 * into errtext. 0, or -1 with why. */
static int job_end(struct job *j, int r, struct strbuf *out,
		   struct strbuf *errtext, char *why)
{
	r = child_named_end(&j->c, r, j->cmd, errtext, why, SMSET_WHY_MAX);
	rewind(j->out);
	if (out && sb_read(out, j->out, CONFFILE_MAX) && !r) {
		snprintf(why, SMSET_WHY_MAX, "%s: cannot read its output",
			 j->cmd);
		r = -EIO;
	}
	job_close(j);
	return r ? -1 : 0;
}

/* text into dst, "name: " before each line when the SMs are named */
static void add_lines(const struct smset *s, const struct sm *sm,
		      struct strbuf *dst, const struct strbuf *text)
{
	const char *l = sb_str(text);

	if (!s->many) {
		sb_add(dst, text->buf, text->len);
		return;
	}
	while (*l) {
		size_t n = strcspn(l, "\n");

		sb_addf(dst, "%s: %.*s\n", sm->name, (int)n, l);
		l += n + (l[n] == '\n');
	}
}

/* Waits for the jobs one at a time; done(i, r) moves SM i's chain on. */
static void run_jobs(struct smset *s, struct job *jobs,
		     void (*done)(struct smset *, struct job *, size_t, int,
				  void *),
		     void *arg)
{
	for (;;) {
		struct child *cs[SMSET_MAX];
		size_t i;
		int r;

		for (i = 0; i < s->n; i++)
			cs[i] = &jobs[i].c;
		r = child_wait_any(cs, s->n, &i);
		if (r == -ECHILD)
			return;
		done(s, jobs, i, r, arg);
	}
}

/* --- smset_read ------------------------------------------------------------------ */

static void read_done(struct smset *s, struct job *jobs, size_t i, int r,
		      void *arg)
{
	struct sm *sm = &s->sm[i];

	(void)arg;
	sb_reset(&sm->installed);
	sm->read = !job_end(&jobs[i], r, &sm->installed, NULL, sm->why);
	jobs[i].step = ST_IDLE;
}

size_t smset_read(struct smset *s)
{
	struct job jobs[SMSET_MAX];
	size_t i, n = 0;

	memset(jobs, 0, sizeof(jobs));
	for (i = 0; i < s->n; i++) {
		struct sm *sm = &s->sm[i];

		sm->read = false;
		sm->why[0] = '\0';
		if (job_start(s, sm, &jobs[i], ST_READ, s->read_cmd, NULL,
			      sm->why))
			continue;
	}
	run_jobs(s, jobs, read_done, NULL);
	for (i = 0; i < s->n; i++)
		n += s->sm[i].read;
	return n;
}

/* --- smset_install --------------------------------------------------------------- */

/* "FILE: installed (" or "FILE: unchanged (" begins a line of out */
static bool in_place(const struct strbuf *out)
{
	const char *l = sb_str(out);

	while (*l) {
		size_t w = strcspn(l, " \n");

		if (w > 1 && l[w - 1] == ':' &&
		    (!strncmp(l + w, " installed (", 12) ||
		     !strncmp(l + w, " unchanged (", 12)))
			return true;
		l += strcspn(l, "\n");
		l += *l == '\n';
	}
	return false;
}

struct install_run {
	const struct smset_files *f;
	struct partitions text, in_force; /* the files, read back */
};

static void start_partitions(struct smset *s, struct job *j, size_t i,
			     const struct install_run *run)
{
	struct sm *sm = &s->sm[i];

	(void)run;
	if (job_start(s, sm, j, ST_PARTITIONS, s->cmd, j->file, sm->why))
		j->step = ST_IDLE;
}

/* The file read back against what it was given. */
static void readback_judge(struct sm *sm, const struct strbuf *back,
			   const struct job *j, const struct install_run *run)
{
	const struct partitions *want =
		j->file == run->f->text ? &run->text : &run->in_force;
	char label[SMSET_NAME_MAX + 8], what[SMSET_WHY_MAX - 128];
	enum partdiff_state st;

	if (back->len == j->file->len &&
	    !memcmp(back->buf, j->file->buf, back->len))
		return;
	snprintf(label, sizeof(label), "%s's", sm->name);
	st = partdiff_text(want, back->buf, back->len, "installed", label, what,
			   sizeof(what));
	if (st == PARTDIFF_SAME)
		return; /* the same partitions, other comments */
	sm->installed_ok = false;
	snprintf(sm->why, sizeof(sm->why),
		 "installed, but its read command prints another "
		 "partitions.conf: %s",
		 st == PARTDIFF_NONE ? "none at all" : what);
}

static void install_done(struct smset *s, struct job *jobs, size_t i, int r,
			 void *arg)
{
	const struct install_run *run = arg;
	struct job *j = &jobs[i];
	struct sm *sm = &s->sm[i];
	struct strbuf out = STRBUF_INIT, errtext = STRBUF_INIT;
	char why[SMSET_WHY_MAX] = "";

	switch (j->step) {
	case ST_QOS:
		if (job_end(j, r, &j->qos_out, &j->qos_err, why)) {
			if (in_place(&j->qos_out)) {
				/* in place but opensm not told: the
				 * partitions follow, opensm reads both at
				 * its next heavy sweep, the run fails */
				snprintf(j->qos_why, sizeof(j->qos_why), "%s",
					 why);
			} else {
				/* refused or failed: the partitions still
				 * follow the cloud, with the SLs the
				 * installed policy knows */
				snprintf(j->qos_why, sizeof(j->qos_why),
					 "%.1900s; the partitions went in with "
					 "the SLs in force",
					 why);
				j->file = run->f->in_force;
			}
			sb_reset(&j->qos_err);
		}
		start_partitions(s, j, i, run);
		break;
	case ST_PARTITIONS:
		if (job_end(j, r, &out, &errtext, sm->why)) {
			j->step = ST_IDLE;
			break;
		}
		add_lines(s, sm, &sm->out, &j->qos_out);
		add_lines(s, sm, &sm->out, &out);
		add_lines(s, sm, &sm->warnings, &j->qos_err);
		add_lines(s, sm, &sm->warnings, &errtext);
		sm->installed_ok = true;
		if (j->qos_why[0])
			snprintf(sm->why, sizeof(sm->why), "%s", j->qos_why);
		if (!s->many ||
		    job_start(s, sm, j, ST_READBACK, s->read_cmd, NULL, why)) {
			if (why[0] && !sm->why[0]) {
				sm->installed_ok = false;
				snprintf(sm->why, sizeof(sm->why),
					 "installed, but not read back: "
					 "%.1990s",
					 why);
			}
			j->step = ST_IDLE;
		}
		break;
	case ST_READBACK:
		if (job_end(j, r, &out, NULL, why)) {
			if (!sm->why[0])
				snprintf(sm->why, sizeof(sm->why),
					 "installed, but not read back: "
					 "%.1990s",
					 why);
			sm->installed_ok = false;
		} else if (!sm->why[0]) {
			readback_judge(sm, &out, j, run);
		}
		j->step = ST_IDLE;
		break;
	default:
		job_end(j, r, NULL, NULL, why);
		j->step = ST_IDLE;
		break;
	}
	sb_release(&out);
	sb_release(&errtext);
}

size_t smset_install(struct smset *s, const struct smset_files *f)
{
	struct install_run run = { .f = f };
	struct job jobs[SMSET_MAX];
	char err[256];
	size_t i, n = 0;

	memset(jobs, 0, sizeof(jobs));
	/* what each SM is given, read as the grammar reads it, for the
	 * read-back (the renderer checked both: desired.h) */
	if (s->many &&
	    (partconf_parse(f->text->buf, f->text->len, PARTCONF_ANY, &run.text,
			    err, sizeof(err)) ||
	     partconf_parse(f->in_force->buf, f->in_force->len, PARTCONF_ANY,
			    &run.in_force, err, sizeof(err))))
		memset(&run.in_force, 0, sizeof(run.in_force));
	for (i = 0; i < s->n; i++) {
		struct sm *sm = &s->sm[i];
		struct job *j = &jobs[i];

		sm->installed_ok = false;
		if (!sm->read)
			continue; /* named by smset_read: the next run */
		sm->why[0] = '\0';
		j->file = f->text;
		if (f->policy && s->qos_cmd) {
			if (!job_start(s, sm, j, ST_QOS, s->qos_cmd, f->policy,
				       j->qos_why))
				continue;
			/* could not even start: as a refusal */
			strncat(j->qos_why,
				"; the partitions went in with the SLs in "
				"force",
				sizeof(j->qos_why) - strlen(j->qos_why) - 1);
			j->file = f->in_force;
		}
		start_partitions(s, j, i, &run);
	}
	run_jobs(s, jobs, install_done, &run);
	for (i = 0; i < s->n; i++) {
		sb_release(&jobs[i].qos_out);
		sb_release(&jobs[i].qos_err);
		n += s->sm[i].installed_ok;
	}
	partitions_free(&run.text);
	partitions_free(&run.in_force);
	return n;
}

size_t smset_failures(const struct smset *s, struct strbuf *out)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++) {
		const struct sm *sm = &s->sm[i];

		if (!sm->why[0])
			continue;
		if (s->many)
			sb_addf(out, "%s%s: %s", n ? "; " : "", sm->name,
				sm->why);
		else
			sb_addf(out, "%s", sm->why);
		n++;
	}
	return n;
}

void smset_free(struct smset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		sb_release(&s->sm[i].installed);
		sb_release(&s->sm[i].out);
		sb_release(&s->sm[i].warnings);
	}
}
