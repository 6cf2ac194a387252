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
	case VMK_REPEAT: return "error repeated";
	case VMK_PATH: return "path change";
	case VMK_ALUA: return "ALUA path state";
	case VMK_RSV_LONG: return "long VMFS reservation";
	}
	return "?";
}

const char *vmk_opcode_name(int op)
{
	switch (op) {
	case 0x28: return "READ(10)";
	case 0x2a: return "WRITE(10)";
	case 0x88: return "READ(16)";
	case 0x8a: return "WRITE(16)";
	case 0x89: return "COMPARE AND WRITE (ATS: the VMFS heartbeat and lock, behind 'lost access to volume')";
	case 0x42: return "UNMAP";
	case 0x93: return "WRITE SAME(16)";
	case 0x00: return "TEST UNIT READY";
	case 0x12: return "INQUIRY";
	case 0x16: return "RESERVE(6)";
	case 0x17: return "RELEASE(6)";
	case 0x83: return "EXTENDED COPY (XCOPY)";
	}
	return NULL;
}

struct re {
	pcre2_code *code;
	pcre2_match_data *md;
};

/* Every pattern runs with a bounded match (lines are up to 1 MiB and a log is the customer's text):
 * a line that would make a pattern backtrack past this many steps does not match it. */
#define VMK_MATCH_LIMIT 2000000
static pcre2_match_context *match_ctx(void)
{
	static pcre2_match_context *mc;
	if (!mc) {
		mc = pcre2_match_context_create(NULL);
		if (mc)
			pcre2_set_match_limit(mc, VMK_MATCH_LIMIT);
	}
	return mc;
}

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
	return pcre2_match(r->code, (PCRE2_SPTR)s, n, 0, 0, r->md, match_ctx()) >= 0;
}

/* The same from offset off of s (the groups stay offsets into s). */
static bool re_match_from(struct re *r, const char *s, size_t n, size_t off)
{
	return off <= n && pcre2_match(r->code, (PCRE2_SPTR)s, n, off, 0, r->md, match_ctx()) >= 0;
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

/* An event being added: what parse_line found (strings not yet copied). */
struct draft {
	int64_t t;
	enum vmk_kind kind;
	const char *dev, *host, *path, *state;
	size_t dl, hl, pl, sl;
	double value;
	unsigned hs, ds;
	long count;
	bool repeat;
	long line;
	int opcode;
	int file;
};

static void add(struct vmk_log *log, const struct draft *x)
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
	e->t = x->t;
	e->kind = x->kind;
	e->device = arena_strndup(&log->arena, x->dev ? x->dev : "", x->dev ? x->dl : 0);
	e->host = x->host && x->hl ? arena_strndup(&log->arena, x->host, x->hl) : NULL;
	e->path = x->path && x->pl ? arena_strndup(&log->arena, x->path, x->pl) : NULL;
	e->state = x->state && x->sl ? arena_strndup(&log->arena, x->state, x->sl) : NULL;
	e->value = x->value;
	e->host_status = x->hs;
	e->dev_status = x->ds;
	e->count = x->count > 0 ? x->count : 1;
	e->repeat = x->repeat;
	e->line = x->line;
	e->opcode = x->opcode;
	e->file = x->file;
}

/* The last error of each device, for the "repeated N times" lines that follow it. */
#define VMK_LAST_ERRORS 64
struct last_error {
	char dev[128];
	enum vmk_kind kind;
	unsigned hs, ds;
};

struct parser {
	struct re ts, qlup, lpup, fail, fail_tail, reduce, det, imp, rep, active, doubt, dead, alua, dev, pathre, rsv, hpp, nvq, nvtx, nvst, svm, prm, opc;
	struct last_error last[VMK_LAST_ERRORS];
	int nlast, next;
};

static int parser_init(struct parser *p)
{
	memset(p, 0, sizeof *p);
	/* an optional syslog priority ("<181>") when the log was forwarded by syslog */
	/* and the host name a forwarded line carries before "vmkernel:" */
	if (re_init(&p->ts, "^\\s*(?:<\\d{1,3}>)?(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?)Z?"
			    "(?:[+-]\\d{2}:?\\d{2})?(?:\\s+([A-Za-z0-9][A-Za-z0-9._-]*)\\s+vmkernel:)?") ||
	    /* ScsiDeviceIO "to dev \"X\" failed H:", NMP throttle "to dev \"X\" on path \"P\" Failed: H:",
	     * NMP completion "to NMP device \"X\" failed on physical path \"P\" H:" */
	    /* in two steps (the device, then its failure after it), each a linear scan: one pattern with
	     * ".*?" between them backtracks quadratically on a line of many near-misses */
	    re_init(&p->fail, "to (?:NMP )?dev(?:ice)? \"([^\"]+)\"(?: on path \"([^\"]+)\")?") ||
	    re_init(&p->fail_tail, "[Ff]ailed:?(?: on physical path \"([^\"]+)\")? H:0x([0-9a-fA-F]+) D:0x([0-9a-fA-F]+)") ||
	    re_init(&p->rep, "last error status from device \"?([^\"\\s]+?)\"? repeated (\\d+) times") ||
	    re_init(&p->active, "[Cc]hanging active path from \"?([^\"\\s]+?)\"? to \"?([^\"\\s]+?)\"? for (?:NMP )?"
				"device \"?([^\"\\s]+?)\"?\\.?(?:\\s|$)") ||
	    re_init(&p->doubt, "[Dd]evice \"([^\"]+)\"[^\\n]*?(state in doubt|awaiting fast path state update for "
			       "failover|is blocked)") ||
	    re_init(&p->dead, "[Pp]ath \"?(vmhba\\d+:C\\d+:T\\d+:L\\d+)\"?[^\\n]*?\\b(?:state|is now|marked|changed)\\b[^\\n]*?"
			      "\\b(dead|DEAD|Dead|off|OFF|standby|STANDBY|active|ACTIVE)\\b") ||
	    re_init(&p->alua, "(?i:satp_alua|alua)[^\\n]*?\\b(AO|ANO|STANDBY|UNAVAILABLE|TRANSITIONING|[Tt]ransitioning|"
			      "[Aa]ctive/[Oo]ptimized|[Aa]ctive/[Nn]on-[Oo]ptimized|[Tt]ransient storage condition)\\b") ||
	    re_init(&p->pathre, "(vmhba\\d+:C\\d+:T\\d+:L\\d+)") ||
	    re_init(&p->dev, "((?:naa|eui|t10|mpx)\\.[A-Za-z0-9_:.-]*[A-Za-z0-9_])") ||
	    re_init(&p->reduce, "Reduced the queue depth for device ([^ ,]+) to (\\d+)") ||
	    re_init(&p->det, "Device (\\S+) performance has deteriorated\\. I/O latency increased from average "
			     "value of (\\d+) microseconds to (\\d+) microseconds") ||
	    /* ESXi 7/8: HPP and NVMe-oF failover, the vSCSI layer's failed IO, iSCSI path removal */
	    re_init(&p->hpp, "HPP: \\S+ Re-issuing (?:first )?command for HPP device \"([^\"]+)\"") ||
	    re_init(&p->nvq, "(nvme\\w+):\\d+ \\[ctlr (\\d+), queue (\\d+)\\][^\\n]*queue not connected") ||
	    re_init(&p->nvtx, "Transport driver failed to submit cmd [^,]*, C: ([^#\\s]*)#(vmhba\\d+)") ||
	    re_init(&p->nvst, "NVMEPSA:\\d+ Complete vmkNvmeCmd[^\\n]*status: 0x([0-9a-fA-F]+)") ||
	    re_init(&p->svm, "SVM: \\d+: (\\S+) IO failed[^\\n]*failed: ([^\\n]+?)\\s*$") ||
	    re_init(&p->prm, "(?:[Pp]ath \"?(vmhba\\d+:C\\d+:T\\d+:L\\d+)\"? is being removed|DeletePath[^\\n]*?"
			     "(vmhba\\d+:C\\d+:T\\d+:L\\d+))") ||
	    re_init(&p->opc, "Cmd(?:\\(0x[0-9a-fA-F]+\\))? (0x[0-9a-fA-F]{1,2})\\b") ||
	    /* an FC adapter's link up at a speed: qlnativefc (the QLogic driver's "LOOP UP detected (N Gbps)")
	     * and lpfc (message 1303, its third Data field the speed code); the vmhba named before it */
	    re_init(&p->qlup, "\\b(vmhba\\d+)\\b[^\\n]*?LOOP UP detected \\((\\d+|\\?) Gbps") ||
	    re_init(&p->lpup, "\\b(vmhba\\d+)\\b[^\\n]*?\\b1303 Link Up Event x[0-9a-fA-F]+ received Data: "
			      "x[0-9a-fA-F]+ x[0-9a-fA-F]+ x([0-9a-fA-F]+)\\b") ||
	    re_init(&p->rsv, "Long VMFS\\d? rsv time on '([^']+)' \\(held for (\\d+) msecs\\)") ||
	    re_init(&p->imp, "Device (\\S+) performance has improved\\. I/O latency reduced from (\\d+) "
			     "microseconds to (\\d+) microseconds"))
		return ERR_NOMEM;
	return 0;
}

static void parser_free(struct parser *p)
{
	re_free(&p->ts);
	re_free(&p->qlup);
	re_free(&p->lpup);
	re_free(&p->fail);
	re_free(&p->fail_tail);
	re_free(&p->reduce);
	re_free(&p->det);
	re_free(&p->imp);
	re_free(&p->rsv);
	re_free(&p->hpp);
	re_free(&p->nvq);
	re_free(&p->nvtx);
	re_free(&p->nvst);
	re_free(&p->svm);
	re_free(&p->prm);
	re_free(&p->opc);
	re_free(&p->rep);
	re_free(&p->active);
	re_free(&p->doubt);
	re_free(&p->dead);
	re_free(&p->alua);
	re_free(&p->dev);
	re_free(&p->pathre);
}

static void remember(struct parser *p, const char *dev, size_t dl, enum vmk_kind k, unsigned hs, unsigned ds)
{
	if (dl >= sizeof p->last[0].dev)
		dl = sizeof p->last[0].dev - 1;
	int at = -1;
	for (int i = 0; i < p->nlast && at < 0; i++)
		if (strlen(p->last[i].dev) == dl && memcmp(p->last[i].dev, dev, dl) == 0)
			at = i;
	if (at < 0) {
		at = p->nlast < VMK_LAST_ERRORS ? p->nlast++ : p->next;
		p->next = (p->next + 1) % VMK_LAST_ERRORS;
		memcpy(p->last[at].dev, dev, dl);
		p->last[at].dev[dl] = '\0';
	}
	p->last[at].kind = k;
	p->last[at].hs = hs;
	p->last[at].ds = ds;
}

static const struct last_error *recall(const struct parser *p, const char *dev, size_t dl)
{
	for (int i = 0; i < p->nlast; i++)
		if (strlen(p->last[i].dev) == dl && memcmp(p->last[i].dev, dev, dl) == 0)
			return &p->last[i];
	return NULL;
}

/* The ESXi 7/8 families (HPP / NVMe-oF failover, SVM's failed IO, iSCSI path removal) as path
 * events: state says which, device or path what the line names. */
static bool esx78_line(struct parser *p, struct vmk_log *log, const char *s, size_t n, struct draft *x)
{
	char tmp[160];
	int k = 0;
	x->kind = VMK_PATH;
	if (re_match(&p->hpp, s, n)) {
		group(&p->hpp, s, 1, &x->dev, &x->dl);
		x->state = "HPP re-issuing a command for failover";
	} else if (re_match(&p->nvq, s, n)) {
		const char *c;
		size_t cl;
		group(&p->nvq, s, 2, &c, &cl);
		k = snprintf(tmp, sizeof tmp, "NVMe-oF queue not connected (controller %.*s)", (int)(cl < 20 ? cl : 20), c);
		x->state = tmp;
	} else if (re_match(&p->nvtx, s, n)) {
		group(&p->nvtx, s, 2, &x->path, &x->pl);
		x->state = "NVMe transport driver failed to submit a command";
	} else if (re_match(&p->nvst, s, n)) {
		const char *c;
		size_t cl;
		group(&p->nvst, s, 1, &c, &cl);
		k = snprintf(tmp, sizeof tmp, "NVMe command completed with status 0x%.*s%s", (int)(cl < 8 ? cl : 8), c,
			     cl == 3 && memcmp(c, "80d", 3) == 0 ? " (path error: the command is retried on another path)" : "");
		x->state = tmp;
	} else if (re_match(&p->svm, s, n)) {
		const char *v, *why;
		size_t vl, wl;
		group(&p->svm, s, 1, &v, &vl);
		group(&p->svm, s, 2, &why, &wl);
		k = snprintf(tmp, sizeof tmp, "SVM: IO of virtual disk %.*s failed: %.*s", (int)(vl < 32 ? vl : 32), v,
			     (int)(wl < 60 ? wl : 60), why);
		x->state = tmp;
	} else if (re_match(&p->prm, s, n)) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->prm.md);
		group(&p->prm, s, ov[2] != PCRE2_UNSET ? 1 : 2, &x->path, &x->pl);
		x->state = "path removed";
	} else {
		return false;
	}
	x->sl = k > 0 ? (size_t)k : strlen(x->state);
	add(log, x);
	return true;
}

/* lpfc's link speed codes (lpfc_hw4.h LPFC_LINK_SPEED_*): Gbps, 0 when not one of them. */
static double lpfc_speed(unsigned code)
{
	switch (code) {
	case 0x04: return 1;
	case 0x08: return 2;
	case 0x10: return 4;
	case 0x20: return 8;
	case 0x40: return 10;
	case 0x80: return 16;
	case 0x90: return 32;
	}
	return 0;
}

/* An FC adapter's link-up line with its speed: kept in log->links. */
static bool link_line(struct parser *p, struct vmk_log *log, const char *s, size_t n, const struct draft *x)
{
	bool ql = memmem(s, n, "LOOP UP", 7) && re_match(&p->qlup, s, n);
	struct re *r = ql ? &p->qlup : &p->lpup;
	if (!ql && !(memmem(s, n, "Link Up Event", 13) && re_match(&p->lpup, s, n)))
		return false;
	const char *ad, *v;
	size_t al, vl;
	group(r, s, 1, &ad, &al);
	group(r, s, 2, &v, &vl);
	double g = 0;
	if (ql) {
		if (!parse_number(v, vl, &g))
			g = 0;
	} else {
		g = lpfc_speed(hexval(v, vl));
	}
	if (!(g >= 1 && g <= 128))
		return true; /* a link-up line saying no speed ("? Gbps", a code not known): read, nothing kept */
	if (log->nlinks == log->caplinks) {
		log->caplinks = log->caplinks ? 2 * log->caplinks : 8;
		log->links = xrealloc(log->links, log->caplinks * sizeof *log->links);
	}
	log->links[log->nlinks++] = (struct vmk_link){
	    .t = x->t,
	    .adapter = arena_strndup(&log->arena, ad, al < 32 ? al : 32),
	    .host = x->host && x->hl ? arena_strndup(&log->arena, x->host, x->hl) : NULL,
	    .driver = ql ? "qlnativefc" : "lpfc",
	    .gbps = g,
	    .line = x->line,
	    .file = 0};
	return true;
}

static void parse_line(struct parser *p, struct vmk_log *log, const char *s, size_t n, long line)
{
	log->lines++;
	/* cheap prefilter: every interesting line names a device or a path */
	if (!memmem(s, n, "dev", 3) && !memmem(s, n, "Device", 6) && !memmem(s, n, "device", 6) &&
	    !memmem(s, n, "path", 4) && !memmem(s, n, "Path", 4) && !memmem(s, n, "alua", 4) && !memmem(s, n, "ALUA", 4) &&
	    !memmem(s, n, "rsv time", 8) && !memmem(s, n, "queue not connected", 19) && !memmem(s, n, "NVME", 4) &&
	    !memmem(s, n, "SVM:", 4) && !memmem(s, n, "DeletePath", 10) && !memmem(s, n, "LOOP UP", 7) &&
	    !memmem(s, n, "Link Up Event", 13))
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
	struct draft x = {.t = t, .host = host, .hl = hostl, .line = line, .count = 1, .opcode = -1};
	if (link_line(p, log, s, n, &x) || esx78_line(p, log, s, n, &x))
		return;
	if (re_match(&p->fail, s, n) && re_match_from(&p->fail_tail, s, n, pcre2_get_ovector_pointer(p->fail.md)[1])) {
		const char *hs, *ds;
		size_t hl, dl;
		group(&p->fail, s, 1, &x.dev, &x.dl);
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->fail.md), *tv = pcre2_get_ovector_pointer(p->fail_tail.md);
		if (ov[4] != PCRE2_UNSET)
			group(&p->fail, s, 2, &x.path, &x.pl);
		else if (tv[2] != PCRE2_UNSET)
			group(&p->fail_tail, s, 1, &x.path, &x.pl);
		group(&p->fail_tail, s, 2, &hs, &hl);
		group(&p->fail_tail, s, 3, &ds, &dl);
		x.hs = hexval(hs, hl);
		x.ds = hexval(ds, dl);
		x.kind = x.ds == 0x28 ? VMK_QFULL : x.ds == 0x8 ? VMK_BUSY : VMK_FAILED;
		if (re_match(&p->opc, s, n)) {
			const char *o;
			size_t ol;
			group(&p->opc, s, 1, &o, &ol);
			x.opcode = (int)hexval(o + 2, ol - 2);
		}
		remember(p, x.dev, x.dl, x.kind, x.hs, x.ds);
		add(log, &x);
	} else if (re_match(&p->rep, s, n)) {
		const char *v;
		size_t vl;
		group(&p->rep, s, 1, &x.dev, &x.dl);
		group(&p->rep, s, 2, &v, &vl);
		double k;
		x.count = parse_number(v, vl, &k) && k >= 1 && k < 1e9 ? (long)k : 1;
		const struct last_error *le = recall(p, x.dev, x.dl);
		x.kind = le ? le->kind : VMK_REPEAT;
		x.hs = le ? le->hs : 0;
		x.ds = le ? le->ds : 0;
		x.repeat = true;
		add(log, &x);
	} else if (re_match(&p->rsv, s, n)) {
		const char *v;
		size_t vl;
		group(&p->rsv, s, 1, &x.dev, &x.dl);
		group(&p->rsv, s, 2, &v, &vl);
		if (!parse_number(v, vl, &x.value))
			x.value = 0;
		x.kind = VMK_RSV_LONG;
		add(log, &x);
	} else if (re_match(&p->reduce, s, n)) {
		const char *v;
		size_t vl;
		group(&p->reduce, s, 1, &x.dev, &x.dl);
		group(&p->reduce, s, 2, &v, &vl);
		if (!parse_number(v, vl, &x.value))
			x.value = 0;
		x.kind = VMK_REDUCE;
		add(log, &x);
	} else if (re_match(&p->active, s, n)) {
		const char *from;
		size_t fl;
		group(&p->active, s, 1, &from, &fl);
		group(&p->active, s, 2, &x.path, &x.pl);
		group(&p->active, s, 3, &x.dev, &x.dl);
		char tmp[160];
		int k = snprintf(tmp, sizeof tmp, "active path from %.*s", (int)(fl < 100 ? fl : 100), from);
		x.state = tmp;
		x.sl = k > 0 ? (size_t)k : 0;
		x.kind = VMK_PATH;
		add(log, &x);
	} else if (re_match(&p->doubt, s, n)) {
		group(&p->doubt, s, 1, &x.dev, &x.dl);
		group(&p->doubt, s, 2, &x.state, &x.sl);
		if (x.sl > 12 && memcmp(x.state, "awaiting", 8) == 0) {
			x.state = "awaiting failover";
			x.sl = strlen(x.state);
		}
		x.kind = VMK_PATH;
		add(log, &x);
	} else if (re_match(&p->dead, s, n) || re_match(&p->alua, s, n)) {
		struct re *r = re_match(&p->dead, s, n) ? &p->dead : &p->alua;
		x.kind = r == &p->dead ? VMK_PATH : VMK_ALUA;
		group(r, s, r == &p->dead ? 2 : 1, &x.state, &x.sl);
		if (re_match(&p->pathre, s, n))
			group(&p->pathre, s, 1, &x.path, &x.pl);
		if (re_match(&p->dev, s, n))
			group(&p->dev, s, 1, &x.dev, &x.dl);
		add(log, &x);
	} else {
		bool det = re_match(&p->det, s, n);
		bool imp = !det && re_match(&p->imp, s, n);
		if (!det && !imp) {
			/* a device or path line of no family read: counted, the first kept as the example */
			if (!log->unknown++) {
				size_t m = n < 160 ? n : 160;
				while (m && (s[m - 1] == '\r' || s[m - 1] == '\n'))
					m--;
				log->unknown_example = arena_strndup(&log->arena, s, m);
				log->unknown_line = line;
			}
			return;
		}
		struct re *r = det ? &p->det : &p->imp;
		const char *v;
		size_t vl;
		group(r, s, 1, &x.dev, &x.dl);
		group(r, s, 3, &v, &vl);
		if (!parse_number(v, vl, &x.value))
			x.value = 0;
		x.kind = det ? VMK_DETERIORATE : VMK_IMPROVE;
		add(log, &x);
	}
}

/* The log's one file record, from its counts (a log just read holds one file). */
static void file_done(struct vmk_log *log, const char *path)
{
	log->files = xrealloc(log->files, sizeof *log->files);
	log->nfiles = 1;
	log->files[0] = (struct vmk_file){.path = path ? arena_strdup(&log->arena, path) : NULL,
					  .lines = log->lines,
					  .unparsed_time = log->unparsed_time,
					  .unknown = log->unknown,
					  .unknown_line = log->unknown_line,
					  .unknown_example = log->unknown_example,
					  .events = log->n,
					  .links = log->nlinks,
					  .dropped = log->dropped};
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
	file_done(log, NULL);
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
	file_done(log, path);
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
		int fi = (int)log->nfiles;
		for (size_t i = 0; i < more.n; i++) {
			const struct vmk_event *e = &more.ev[i];
			struct draft x = {.t = e->t, .kind = e->kind, .dev = e->device, .dl = strlen(e->device), .host = e->host,
					  .hl = e->host ? strlen(e->host) : 0, .path = e->path, .pl = e->path ? strlen(e->path) : 0,
					  .state = e->state, .sl = e->state ? strlen(e->state) : 0, .value = e->value,
					  .hs = e->host_status, .ds = e->dev_status, .count = e->count, .repeat = e->repeat,
					  .line = e->line, .opcode = e->opcode, .file = fi};
			add(log, &x);
		}
		for (size_t i = 0; i < more.nlinks; i++) {
			struct vmk_link l = more.links[i];
			l.adapter = arena_strdup(&log->arena, l.adapter);
			l.host = l.host ? arena_strdup(&log->arena, l.host) : NULL;
			l.file = fi;
			if (log->nlinks == log->caplinks) {
				log->caplinks = log->caplinks ? 2 * log->caplinks : 8;
				log->links = xrealloc(log->links, log->caplinks * sizeof *log->links);
			}
			log->links[log->nlinks++] = l;
		}
		struct vmk_file f = more.files[0];
		f.path = f.path ? arena_strdup(&log->arena, f.path) : NULL;
		f.unknown_example = f.unknown_example ? arena_strdup(&log->arena, f.unknown_example) : NULL;
		log->files = xrealloc(log->files, (log->nfiles + 1) * sizeof *log->files);
		log->files[log->nfiles++] = f;
		if (!log->unknown && more.unknown) {
			log->unknown_line = more.unknown_line;
			log->unknown_example = f.unknown_example;
		}
		log->unknown += more.unknown;
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
	free(log->links);
	free(log->files);
	arena_free(&log->arena);
	memset(log, 0, sizeof *log);
}
