/* match.c — PCRE2 wrapper with limits (see match.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "match.h"

#include <pcre2.h>
#include <stdlib.h>

/* Generous for names of a few hundred bytes, small enough that '(a+)+$' fails in milliseconds. */
#define MATCH_LIMIT 1000000u
#define DEPTH_LIMIT 10000u
#define HEAP_LIMIT_KIB 20000u

/* JIT's default 32 KiB stack fails benign patterns like (a|b)* on names of 2,000 bytes; the match
 * limit still bounds the work. */
#define JIT_STACK_MAX (1u << 20)

struct matcher {
	bool jit;                /* compiled by the JIT: matched by pcre2_jit_match */
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	pcre2_jit_stack *jit_stack;
};

struct matcher *matcher_new(const char *pattern, bool caseless, struct diag *d)
{
	int ec;
	PCRE2_SIZE eo;
	/* No PCRE2_UTF: names may be in an ANSI code page; byte matching is what we want. */
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, caseless ? PCRE2_CASELESS : 0,
					 &ec, &eo, NULL);
	if (!code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof msg);
		diag_emit(d, DIAG_PLAIN, 0, 0, "regex error at offset %zu: %s", (size_t)eo, (const char *)msg);
		return NULL;
	}
	int jrc = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* optional: falls back to the interpreter */
	struct matcher *m = xcalloc(1, sizeof *m);
	m->jit = jrc == 0;
	m->code = code;
	m->md = pcre2_match_data_create_from_pattern(code, NULL);
	m->mctx = pcre2_match_context_create(NULL);
	if (!m->md || !m->mctx) {
		matcher_free(m);
		diag_emit(d, DIAG_PLAIN, 0, 0, "out of memory compiling the regex");
		return NULL;
	}
	m->jit_stack = pcre2_jit_stack_create(32u << 10, JIT_STACK_MAX, NULL);
	if (m->jit_stack) /* without it, JIT keeps its default stack */
		pcre2_jit_stack_assign(m->mctx, NULL, m->jit_stack);
	pcre2_set_match_limit(m->mctx, MATCH_LIMIT);
	pcre2_set_depth_limit(m->mctx, DEPTH_LIMIT);
	pcre2_set_heap_limit(m->mctx, HEAP_LIMIT_KIB);
	return m;
}

int matcher_match(struct matcher *m, const char *s, size_t n, struct diag *d)
{
	/* once per header column: pcre2_jit_match is what pcre2_match runs for a JIT-compiled
	 * pattern, without the argument checks that cost a third of a short name's match */
	int rc = m->jit ? pcre2_jit_match(m->code, (PCRE2_SPTR)s, n, 0, 0, m->md, m->mctx)
			: pcre2_match(m->code, (PCRE2_SPTR)s, n, 0, 0, m->md, m->mctx);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(rc, msg, sizeof msg);
	diag_emit(d, DIAG_PLAIN, 0, 0, "regex gave up (%s): simplify the pattern (nested quantifiers like (a+)+ backtrack "
			"catastrophically)", (const char *)msg);
	return ERR_LIMIT;
}

void matcher_free(struct matcher *m)
{
	if (!m)
		return;
	pcre2_match_data_free(m->md);
	pcre2_match_context_free(m->mctx);
	pcre2_jit_stack_free(m->jit_stack);
	pcre2_code_free(m->code);
	free(m);
}
