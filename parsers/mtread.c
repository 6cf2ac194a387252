/* mtread.c — lines read and scanned by several threads, handed out in order (see mtread.h). */
#include "mtread.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MT_TAIL 16 /* zeroed bytes after a chunk's data: the scanners may look a word past a line */

enum { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct mt_line {
	size_t off, len, tend;   /* text at buf + off; tend: offset of its terminator (or the end) */
	size_t nf;
	unsigned char blank, fast;
};

/* A message of a pull, with the chunk bytes there were before that pull: one thread would have
 * shown it before the first line that does not end within them. */
struct mt_msg {
	enum diag_level lvl;
	char *text;
	size_t at;
};

struct chunk {
	int state;
	long seq;
	char *buf;
	size_t len, cap, lines_end; /* bytes; the lines are [0, lines_end) */
	struct mt_line *lines;
	size_t nlines, lcap;
	struct fieldscan_span *spans;
	size_t scap;
	double *vals;            /* with values: nwanted per line, like the spans */
	size_t vcap;
	bool eof, rest, unterminated;
	int err;
	struct mt_msg *msg;
	size_t nmsg, mcap;
	int64_t pos;
};

struct mtread {
	struct mtread_opts o;
	struct mtread_src src;
	struct diag *d;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th[MTREAD_MAX_THREADS];
	int nth;
	struct chunk *slot;
	int nslot;
	long next_read, next_use;
	bool reading, src_done, stop;
	char *carry;                 /* the partial last line of the chunk read last */
	size_t carry_len, carry_cap;
	/* the caller's side */
	struct chunk *cur;
	size_t cur_line, cur_msg;
	int final;                   /* what mtread_next returns once the input is done (0, REST, ERR) */
	bool finished;
};

/* ---- the pulls' messages ---- */

static void msg_sink(void *ctx, enum diag_level lvl, const char *msg)
{
	struct chunk *c = ctx;
	if (c->nmsg == c->mcap) {
		c->mcap = c->mcap ? 2 * c->mcap : 4;
		c->msg = xrealloc(c->msg, c->mcap * sizeof *c->msg);
	}
	/* the private diag has no prefix and no file: the text is ": LEVEL: message" */
	const char *t = msg;
	if (t[0] == ':' && t[1] == ' ')
		t += 2;
	const char *word = lvl == DIAG_ERROR ? "error: " : lvl == DIAG_WARNING ? "warning: " : lvl == DIAG_NOTE ? "note: " : "";
	if (strncmp(t, word, strlen(word)) == 0)
		t += strlen(word);
	c->msg[c->nmsg].lvl = lvl;
	c->msg[c->nmsg].text = xstrdup(t);
	c->msg[c->nmsg].at = c->len;
	c->nmsg++;
}

static void chunk_clear_msgs(struct chunk *c)
{
	for (size_t i = 0; i < c->nmsg; i++)
		free(c->msg[i].text);
	c->nmsg = 0;
}

/* ---- reading and scanning one chunk (by whichever thread claimed it) ---- */

static void chunk_reserve(struct chunk *c, size_t n)
{
	if (c->cap < n + MT_TAIL) {
		c->cap = n + MT_TAIL;
		c->buf = xrealloc(c->buf, c->cap);
	}
}

/* Fills c: the carried partial line, then pulls until the chunk size is reached and a line ends
 * in it, or the input ends or fails. Only one thread reads at a time (the reading flag). */
static void chunk_read(struct mtread *q, struct chunk *c)
{
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = "";
	d.sink.fn = msg_sink;
	d.sink.ctx = c;
	chunk_clear_msgs(c);
	c->len = c->lines_end = c->nlines = 0;
	c->eof = c->rest = c->unterminated = false;
	c->err = 0;
	size_t want = q->o.chunk > q->carry_len ? q->o.chunk : q->carry_len + 1;
	chunk_reserve(c, want);
	if (q->carry_len) /* no carry yet: q->carry may be NULL */
		memcpy(c->buf, q->carry, q->carry_len);
	c->len = q->carry_len;
	size_t searched = c->len; /* the carry holds no terminator */
	for (;;) {
		while (c->len < want && !c->eof) {
			long k = q->src.pull(q->src.ctx, c->buf + c->len, want - c->len, &d);
			if (k < 0) {
				c->err = (int)k;
				break;
			}
			if (k == 0)
				c->eof = true;
			c->len += (size_t)k;
		}
		if (c->err || c->eof || memchr(c->buf + searched, q->o.term, c->len - searched))
			break;
		searched = c->len;
		if (c->len >= MTREAD_MAX_LINE) {
			c->rest = true; /* one line of MTREAD_MAX_LINE and more: the one-thread reader's */
			break;
		}
		want = 2 * want < MTREAD_MAX_LINE ? 2 * want : MTREAD_MAX_LINE;
		chunk_reserve(c, want);
	}
	memset(c->buf + c->len, 0, MT_TAIL);
	q->carry_len = 0;
	if (c->eof) {
		c->lines_end = c->len; /* the last line may have no terminator */
	} else if (c->rest) {
		c->lines_end = 0;      /* all of it is the start of one long line */
	} else {
		const char *p = memrchr(c->buf, q->o.term, c->len);
		c->lines_end = p ? (size_t)(p - c->buf) + 1 : 0;
		if (!c->err) { /* after an error the partial line is never handed out (as one thread) */
			q->carry_len = c->len - c->lines_end;
			if (q->carry_cap < q->carry_len) {
				q->carry_cap = q->carry_len > 2 * q->carry_cap ? q->carry_len : 2 * q->carry_cap;
				q->carry = xrealloc(q->carry, q->carry_cap);
			}
			if (q->carry_len)
				memcpy(q->carry, c->buf + c->lines_end, q->carry_len);
		}
	}
	c->pos = q->src.pos ? q->src.pos(q->src.ctx) : 0;
}

static bool is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

/* Frames c's lines as the one-thread reader does (a CR before an LF dropped, except on an
 * unterminated last line) and scans each one that is not blank. */
/* The capacity (in fields) of a chunk's spans or values for need fields: exactly the first need
 * (a chunk of one wide line: 300,000 fields are 2.4 MB per array), then by half again (a chunk of
 * many short lines reallocates a few times, and only while it is the largest one so far). */
static size_t grow_cap(size_t cap, size_t need)
{
	size_t g = cap + cap / 2;
	return cap && g > need ? g : need;
}

static void chunk_scan(const struct mtread *q, struct chunk *c)
{
	const struct fieldscan_plan *pl = q->o.plan;
	size_t nw = pl ? pl->nwanted : 0;
	char *b = c->buf, *e = b + c->lines_end;
	size_t n = 0;
	for (char *p = b; p < e;) {
		char *t = memchr(p, q->o.term, (size_t)(e - p));
		size_t len = t ? (size_t)(t - p) : (size_t)(e - p);
		if (t && q->o.term == '\n' && len && p[len - 1] == '\r')
			len--;
		if (n == c->lcap) {
			c->lcap = c->lcap ? 2 * c->lcap : 64;
			c->lines = xrealloc(c->lines, c->lcap * sizeof *c->lines);
		}
		if ((n + 1) * nw > c->scap) {
			c->scap = grow_cap(c->scap, (n + 1) * nw);
			c->spans = xrealloc(c->spans, c->scap * sizeof *c->spans);
		}
		struct mt_line *l = &c->lines[n];
		l->off = (size_t)(p - b);
		l->len = len;
		l->tend = t ? (size_t)(t - b) : c->lines_end;
		l->blank = len == 0 || is_blank(p, len);
		l->fast = !l->blank && pl && fieldscan_line(pl, p, len, c->spans + n * nw, &l->nf);
		if (l->fast && q->o.values) {
			if ((n + 1) * nw > c->vcap) {
				c->vcap = grow_cap(c->vcap, (n + 1) * nw);
				c->vals = xrealloc(c->vals, c->vcap * sizeof *c->vals);
			}
			const struct fieldscan_span *sp = c->spans + n * nw;
			double *v = c->vals + n * nw;
			for (size_t i = 1; i < nw && pl->wanted[i] < l->nf; i++) {
				const char *s = p + sp[i].off;
				size_t k = sp[i].len;
				double x;
				if (k == 0 || is_blank(s, k))
					v[i] = (double)NAN;
				else
					v[i] = parse_number(s, k, &x) ? x : (double)INFINITY;
			}
		}
		n++;
		p = t ? t + 1 : e;
	}
	c->nlines = n;
	c->unterminated = c->eof && c->lines_end > 0 && b[c->lines_end - 1] != q->o.term;
}

/* ---- threads ---- */

static bool can_read(const struct mtread *q)
{
	return !q->reading && !q->src_done && !q->stop && q->slot[q->next_read % q->nslot].state == SLOT_FREE;
}

/* Reads and scans the next chunk; called and returns with q->mu held. */
static void work(struct mtread *q)
{
	long seq = q->next_read++;
	struct chunk *c = &q->slot[seq % q->nslot];
	c->state = SLOT_BUSY;
	c->seq = seq;
	q->reading = true;
	pthread_mutex_unlock(&q->mu);
	chunk_read(q, c);
	pthread_mutex_lock(&q->mu);
	q->reading = false;
	if (c->eof || c->rest || c->err)
		q->src_done = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	chunk_scan(q, c);
	pthread_mutex_lock(&q->mu);
	c->state = SLOT_DONE;
	pthread_cond_broadcast(&q->cv);
}

static void *thread_main(void *arg)
{
	struct mtread *q = arg;
	pthread_mutex_lock(&q->mu);
	while (!q->stop) {
		if (can_read(q))
			work(q);
		else
			pthread_cond_wait(&q->cv, &q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

int mtread_auto_threads(void)
{
	int n = 0;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
	if (n <= 0) {
		long k = sysconf(_SC_NPROCESSORS_ONLN);
		n = k > 0 ? (int)k : 1;
	}
	return n < MTREAD_AUTO_MAX ? n : MTREAD_AUTO_MAX;
}

int mtread_open(struct mtread **out, const struct mtread_opts *o, const struct mtread_src *src, struct diag *d)
{
	*out = NULL;
	struct mtread *q = xcalloc(1, sizeof *q);
	q->o = *o;
	if (q->o.threads > MTREAD_MAX_THREADS)
		q->o.threads = MTREAD_MAX_THREADS;
	if (q->o.chunk < 1)
		q->o.chunk = 1;
	q->src = *src;
	q->d = d;
	/* one chunk being handed out and one being read or scanned by each thread */
	q->nslot = q->o.threads + 1;
	q->slot = xcalloc((size_t)q->nslot, sizeof *q->slot);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	/* the threads take no signals: the caller's handlers run on the caller's thread */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < q->o.threads - 1; i++) {
		if (pthread_create(&q->th[i], NULL, thread_main, q) != 0)
			break;
		q->nth++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (q->nth < q->o.threads - 1) {
		mtread_close(q);
		return ERR_NOMEM;
	}
	*out = q;
	return 0;
}

/* Hands the pulls' messages of c that one thread would have shown by now to the caller's diag:
 * those made with at most upto bytes in the chunk (SIZE_MAX: all). */
static void replay(struct mtread *q, struct chunk *c, size_t upto)
{
	for (; q->cur_msg < c->nmsg && c->msg[q->cur_msg].at <= upto; q->cur_msg++) {
		const struct mt_msg *m = &c->msg[q->cur_msg];
		diag_emit(q->d, m->lvl, 0, 0, "%s", m->text);
	}
}

/* The chunk seq, done; the caller's thread reads and scans chunks while it is not. */
static struct chunk *wait_chunk(struct mtread *q, long seq)
{
	pthread_mutex_lock(&q->mu);
	for (;;) {
		struct chunk *c = &q->slot[seq % q->nslot];
		if (c->state == SLOT_DONE && c->seq == seq)
			break;
		if (can_read(q))
			work(q);
		else
			pthread_cond_wait(&q->cv, &q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return &q->slot[seq % q->nslot];
}

int mtread_next(struct mtread *q, struct mtread_line *l)
{
	for (;;) {
		if (q->finished)
			return q->final;
		struct chunk *c = q->cur;
		if (c && q->cur_line < c->nlines) {
			const struct mt_line *ml = &c->lines[q->cur_line++];
			/* one thread meets a pull's message before the first line that does not end in
			 * the bytes it had then */
			replay(q, c, ml->tend);
			l->s = c->buf + ml->off;
			l->len = ml->len;
			l->blank = ml->blank;
			l->fast = ml->fast;
			l->nfields = ml->nf;
			l->spans = q->o.plan ? c->spans + (size_t)(ml - c->lines) * q->o.plan->nwanted : NULL;
			l->values = q->o.values && ml->fast ? c->vals + (size_t)(ml - c->lines) * q->o.plan->nwanted : NULL;
			l->unterminated = c->unterminated && q->cur_line == c->nlines;
			if (l->unterminated)
				replay(q, c, SIZE_MAX);
			return 1;
		}
		if (c) {
			replay(q, c, SIZE_MAX);
			if (c->err || c->eof || c->rest) {
				q->finished = true;
				q->final = c->err ? c->err : c->rest ? MTREAD_REST : 0;
				return q->final; /* c stays: mtread_rest reads it */
			}
			pthread_mutex_lock(&q->mu);
			c->state = SLOT_FREE;
			q->next_use++;
			pthread_cond_broadcast(&q->cv);
			pthread_mutex_unlock(&q->mu);
		}
		c = q->cur = wait_chunk(q, q->next_use);
		q->cur_line = q->cur_msg = 0;
		if (q->src.progress)
			q->src.progress(q->src.ctx, c->pos);
	}
}

const char *mtread_rest(const struct mtread *q, size_t *len)
{
	if (!q->cur || !q->cur->rest) {
		*len = 0;
		return "";
	}
	*len = q->cur->len;
	return q->cur->buf;
}

void mtread_close(struct mtread *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	for (int i = 0; i < q->nth; i++)
		pthread_join(q->th[i], NULL);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	for (int i = 0; i < q->nslot; i++) {
		struct chunk *c = &q->slot[i];
		chunk_clear_msgs(c);
		free(c->msg);
		free(c->buf);
		free(c->lines);
		free(c->spans);
		free(c->vals);
	}
	free(q->slot);
	free(q->carry);
	free(q);
}
