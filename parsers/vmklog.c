/* vmklog.c — vmkernel.log event extraction (see vmklog.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "vmklog.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

const char *vmk_kind_name(enum vmk_kind k)
{
	switch (k) {
	case VMK_QFULL: return "QUEUE FULL (D:0x28)";
	case VMK_BUSY: return "BUSY (D:0x8)";
	case VMK_FAILED: return "failed command";
	case VMK_REDUCE: return "queue depth reduced";
	case VMK_DETERIORATE: return "performance deteriorated";
	case VMK_IMPROVE: return "performance improved";
	}
	return "?";
}

struct re {
	pcre2_code *code;
	pcre2_match_data *md;
};

static int re_init(struct re *r, const char *pat)
{
	int ec;
	PCRE2_SIZE eo;
	r->code = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
	if (!r->code)
		return ERR_FORMAT;
	pcre2_jit_compile(r->code, PCRE2_JIT_COMPLETE);
	r->md = pcre2_match_data_create_from_pattern(r->code, NULL);
	return r->md ? 0 : ERR_NOMEM;
}

static void re_free(struct re *r)
{
	pcre2_match_data_free(r->md);
	pcre2_code_free(r->code);
}

static bool re_match(struct re *r, const char *s, size_t n)
{
	return pcre2_match(r->code, (PCRE2_SPTR)s, n, 0, 0, r->md, NULL) >= 0;
}

static void group(struct re *r, const char *s, int g, const char **p, size_t *n)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
	*p = s + ov[2 * g];
	*n = ov[2 * g + 1] - ov[2 * g];
}

static unsigned hexval(const char *p, size_t n)
{
	unsigned v = 0;
	for (size_t i = 0; i < n && i < 8; i++) {
		char c = p[i];
		v = v * 16 + (unsigned)(c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return v;
}

static void add(struct vmk_log *log, int64_t t, enum vmk_kind k, const char *dev, size_t dl, const char *host,
		size_t hl, double value, unsigned hs, unsigned ds, long line)
{
	if (log->n >= VMK_MAX_EVENTS) {
		log->dropped++;
		return;
	}
	if (log->n == log->cap) {
		log->cap = log->cap ? log->cap * 2 : 256;
		log->ev = xrealloc(log->ev, log->cap * sizeof *log->ev);
	}
	struct vmk_event *e = &log->ev[log->n++];
	e->t = t;
	e->kind = k;
	e->device = arena_strndup(&log->arena, dev, dl);
	e->host = host && hl ? arena_strndup(&log->arena, host, hl) : NULL;
	e->value = value;
	e->host_status = hs;
	e->dev_status = ds;
	e->line = line;
}

struct parser {
	struct re ts, fail, reduce, det, imp;
};

static int parser_init(struct parser *p)
{
	memset(p, 0, sizeof *p);
	/* an optional syslog priority ("<181>") when the log was forwarded by syslog */
	/* and the host name a forwarded line carries before "vmkernel:" */
	if (re_init(&p->ts, "^\\s*(?:<\\d{1,3}>)?(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?)Z?"
			    "(?:[+-]\\d{2}:?\\d{2})?(?:\\s+([A-Za-z0-9][A-Za-z0-9._-]*)\\s+vmkernel:)?") ||
	    re_init(&p->fail, "to dev \"([^\"]+)\".*?[Ff]ailed:? H:0x([0-9a-fA-F]+) D:0x([0-9a-fA-F]+)") ||
	    re_init(&p->reduce, "Reduced the queue depth for device ([^ ,]+) to (\\d+)") ||
	    re_init(&p->det, "Device (\\S+) performance has deteriorated\\. I/O latency increased from average "
			     "value of (\\d+) microseconds to (\\d+) microseconds") ||
	    re_init(&p->imp, "Device (\\S+) performance has improved\\. I/O latency reduced from (\\d+) "
			     "microseconds to (\\d+) microseconds"))
		return ERR_NOMEM;
	return 0;
}

static void parser_free(struct parser *p)
{
	re_free(&p->ts);
	re_free(&p->fail);
	re_free(&p->reduce);
	re_free(&p->det);
	re_free(&p->imp);
}

static void parse_line(struct parser *p, struct vmk_log *log, const char *s, size_t n, long line)
{
	log->lines++;
	/* cheap prefilter: every interesting line names a device */
	if (!memmem(s, n, "dev", 3) && !memmem(s, n, "Device", 6) && !memmem(s, n, "device", 6))
		return;
	int64_t t = 0;
	const char *host = NULL;
	size_t hostl = 0;
	if (re_match(&p->ts, s, n)) {
		const char *ts;
		size_t tl;
		group(&p->ts, s, 1, &ts, &tl);
		if (pcre2_get_ovector_pointer(p->ts.md)[4] != PCRE2_UNSET)
			group(&p->ts, s, 2, &host, &hostl);
		char tmp[40];
		size_t k = tl < sizeof tmp - 1 ? tl : sizeof tmp - 1;
		memcpy(tmp, ts, k);
		tmp[k] = '\0';
		if (time_parse_iso(tmp, &t) < 0) {
			log->unparsed_time++;
			return;
		}
	} else {
		log->unparsed_time++;
		return;
	}
	const char *g;
	size_t gl;
	if (re_match(&p->fail, s, n)) {
		const char *hs, *ds;
		size_t hl, dl;
		group(&p->fail, s, 1, &g, &gl);
		group(&p->fail, s, 2, &hs, &hl);
		group(&p->fail, s, 3, &ds, &dl);
		unsigned h = hexval(hs, hl), d = hexval(ds, dl);
		enum vmk_kind k = d == 0x28 ? VMK_QFULL : d == 0x8 ? VMK_BUSY : VMK_FAILED;
		add(log, t, k, g, gl, host, hostl, 0, h, d, line);
	} else if (re_match(&p->reduce, s, n)) {
		const char *v;
		size_t vl;
		group(&p->reduce, s, 1, &g, &gl);
		group(&p->reduce, s, 2, &v, &vl);
		double depth;
		if (!parse_number(v, vl, &depth))
			depth = 0;
		add(log, t, VMK_REDUCE, g, gl, host, hostl, depth, 0, 0, line);
	} else {
		bool det = re_match(&p->det, s, n);
		bool imp = !det && re_match(&p->imp, s, n);
		if (!det && !imp)
			return;
		struct re *r = det ? &p->det : &p->imp;
		const char *v;
		size_t vl;
		group(r, s, 1, &g, &gl);
		group(r, s, 3, &v, &vl);
		double us;
		if (!parse_number(v, vl, &us))
			us = 0;
		add(log, t, det ? VMK_DETERIORATE : VMK_IMPROVE, g, gl, host, hostl, us, 0, 0, line);
	}
}

int vmklog_parse(struct vmk_log *log, const char *text, size_t len, struct diag *d)
{
	(void)d;
	memset(log, 0, sizeof *log);
	arena_init(&log->arena);
	struct parser p;
	if (parser_init(&p) < 0) {
		parser_free(&p);
		return ERR_NOMEM;
	}
	long line = 0;
	size_t i = 0;
	while (i < len) {
		size_t s = i;
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		i = e + 1;
		line++;
		parse_line(&p, log, text + s, e - s, line);
	}
	parser_free(&p);
	return 0;
}

int vmklog_read(struct vmk_log *log, const char *path, struct diag *d)
{
	memset(log, 0, sizeof *log);
	arena_init(&log->arena);
	struct source src;
	int rc = source_open_regular(&src, path, d);
	if (rc < 0)
		return rc;
	struct parser p;
	if (parser_init(&p) < 0) {
		parser_free(&p);
		source_close(&src);
		return ERR_NOMEM;
	}
	struct buf carry;
	buf_init(&carry);
	char *chunk = xmalloc(1 << 16);
	long line = 0;
	long k;
	while ((k = source_read(&src, chunk, 1 << 16, d)) > 0) {
		size_t pos = 0;
		for (;;) {
			const char *nl = memchr(chunk + pos, '\n', (size_t)k - pos);
			if (!nl) {
				if (carry.len < (1u << 20))
					buf_add(&carry, chunk + pos, (size_t)k - pos);
				break;
			}
			size_t e = (size_t)(nl - chunk);
			line++;
			if (carry.len) {
				buf_add(&carry, chunk + pos, e - pos);
				parse_line(&p, log, carry.data, carry.len, line);
				buf_reset(&carry);
			} else {
				parse_line(&p, log, chunk + pos, e - pos, line);
			}
			pos = e + 1;
		}
	}
	if (k == 0 && carry.len)
		parse_line(&p, log, carry.data, carry.len, ++line);
	free(chunk);
	buf_free(&carry);
	parser_free(&p);
	source_close(&src);
	if (k < 0)
		return (int)k;
	if (log->n == 0 && log->unparsed_time > 0)
		diag_emit(d, DIAG_WARNING, 0, 0,
			  "%ld line%s name a device but start with no ISO time stamp: no event read (is this a "
			  "vmkernel.log?)", log->unparsed_time, log->unparsed_time == 1 ? "" : "s");
	if (log->dropped)
		diag_emit(d, DIAG_WARNING, 0, 0, "more than %d events: %zu more counted but not kept", VMK_MAX_EVENTS,
			  log->dropped);
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct vmk_event *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

int vmklog_append(struct vmk_log *log, const char *path, struct diag *d)
{
	struct vmk_log more;
	int rc = vmklog_read(&more, path, d);
	if (rc == 0) {
		for (size_t i = 0; i < more.n; i++) {
			const struct vmk_event *e = &more.ev[i];
			add(log, e->t, e->kind, e->device, strlen(e->device), e->host, e->host ? strlen(e->host) : 0, e->value,
			    e->host_status, e->dev_status, e->line);
		}
		log->lines += more.lines;
		log->unparsed_time += more.unparsed_time;
		log->dropped += more.dropped;
		if (log->n)
			qsort(log->ev, log->n, sizeof *log->ev, ev_cmp);
	}
	vmklog_free(&more);
	return rc;
}

void vmklog_free(struct vmk_log *log)
{
	free(log->ev);
	arena_free(&log->arena);
	memset(log, 0, sizeof *log);
}
