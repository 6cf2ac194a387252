/* simd_limit.c — the "SIMD limit" reference for bench/: a minimal scanner that does only the work
 * of `iopsy extract` on a well-formed esxtop capture and nothing else (no validation, no fallback,
 * no time stamps, no output file), to tell how close iopsy gets to what the hardware allows.
 *
 *   simd_limit FILE REGEX
 *
 * One pass over 4 MiB read() buffers in 64-byte blocks: quote, comma and newline bit masks,
 * quote state by prefix-XOR (carry-less multiply), separators and line ends outside quotes,
 * unwanted fields skipped by popcount, the selected fields' numbers parsed and summed. Prints
 * per matched column "name<TAB>count<TAB>mean<TAB>max" like the mawk baseline (for --selfcheck).
 * Needs AVX2 + PCLMULQDQ (AVX-512BW when built with it); build: cc -O2 -march=native.
 * Standalone on purpose: it shares no code with iopsy. */
#define _GNU_SOURCE /* memrchr */
#include <fcntl.h>
#include <immintrin.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(__AVX2__) || !defined(__PCLMUL__)
#error "simd_limit needs AVX2 and PCLMULQDQ (build with -march=native on such a CPU)"
#endif

#define BUF (4u << 20)

static uint64_t prefix_xor(uint64_t x)
{
	return (uint64_t)_mm_cvtsi128_si64(
		_mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0));
}

static void masks(const char *p, uint64_t *q, uint64_t *c, uint64_t *n)
{
#if defined(__AVX512BW__)
	__m512i x = _mm512_loadu_si512((const void *)p);
	*q = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('"'));
	*c = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(','));
	*n = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\n'));
#else
	__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
	__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
#define M(v, ch) ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, _mm256_set1_epi8(ch))) | \
		  (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, _mm256_set1_epi8(ch))) << 32)
	*q = M(v, '"');
	*c = M(v, ',');
	*n = M(v, '\n');
#undef M
#endif
}

struct colstat {
	long n;
	double sum, max;
};

static int *wanted;      /* sorted field numbers (0-based) of matched columns, then INT32_MAX */
static int nwanted;
static struct colstat *st;
static char **names;

/* A number at p ("1.50" / 1.50 / "" / "n/a"): adds it to column k when numeric. */
static void take(const char *p, int k)
{
	if (*p == '"')
		p++;
	int neg = *p == '-';
	p += neg;
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')))
		return;
	uint64_t ip = 0;
	while (*p >= '0' && *p <= '9')
		ip = ip * 10 + (uint64_t)(*p++ - '0');
	double v = (double)ip;
	if (*p == '.') {
		p++;
		uint64_t fr = 0, sc = 1;
		while (*p >= '0' && *p <= '9' && sc < 1000000000000000000ull) {
			fr = fr * 10 + (uint64_t)(*p++ - '0');
			sc *= 10;
		}
		v += (double)fr / (double)sc;
	}
	if (neg)
		v = -v;
	struct colstat *c = &st[k];
	if (c->n == 0 || v > c->max)
		c->max = v;
	c->n++;
	c->sum += v;
}

static void header(char *line, size_t len, const char *rx)
{
	regex_t re;
	if (regcomp(&re, rx, REG_EXTENDED | REG_NOSUB) != 0) {
		fputs("simd_limit: bad regex\n", stderr);
		exit(2);
	}
	line[len] = '\0';
	size_t cap = 1024;
	wanted = malloc(cap * sizeof *wanted);
	names = malloc(cap * sizeof *names);
	if (!wanted || !names)
		exit(4);
	int f = 0;
	for (char *p = line; p && *p; f++) {
		char *e = strstr(p, "\",\"");
		if (e)
			*e = '\0';
		char *name = p + (*p == '"');
		size_t nl = strlen(name);
		if (nl && name[nl - 1] == ',')
			name[--nl] = '\0';
		if (nl && name[nl - 1] == '"')
			name[--nl] = '\0';
		if (f > 0 && nl && regexec(&re, name, 0, NULL, 0) == 0) {
			if ((size_t)nwanted + 2 > cap) {
				cap *= 2;
				wanted = realloc(wanted, cap * sizeof *wanted);
				names = realloc(names, cap * sizeof *names);
				if (!wanted || !names)
					exit(4);
			}
			names[nwanted] = strdup(name);
			wanted[nwanted++] = f;
		}
		p = e ? e + 3 : NULL;
	}
	wanted[nwanted] = INT32_MAX;
	st = calloc((size_t)nwanted + 1, sizeof *st);
	if (!st)
		exit(4);
	regfree(&re);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: simd_limit FILE REGEX\n", stderr);
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 3;
	}
	char *buf = aligned_alloc(64, (size_t)BUF * 4 + 128);
	if (!buf)
		return 4;
	size_t cap = (size_t)BUF * 4, have = 0;
	int in_header = 1, eof = 0;
	/* row state */
	int field = 0, wi = 0;
	uint64_t inq = 0;
	while (!eof) {
		if (have + BUF > cap) { /* a header longer than the buffer: grow (rows never get here) */
			cap *= 2;
			char *nb = aligned_alloc(64, cap + 128);
			if (!nb)
				return 4;
			memcpy(nb, buf, have);
			free(buf);
			buf = nb;
		}
		ssize_t k = read(fd, buf + have, BUF);
		if (k < 0)
			return 3;
		if (k == 0)
			eof = 1;
		have += (size_t)k;
		size_t upto = have;
		if (!eof) { /* complete lines only */
			char *nl = memrchr(buf, '\n', have);
			if (!nl)
				continue;
			upto = (size_t)(nl - buf) + 1;
		}
		size_t pos = 0;
		if (in_header) {
			char *nl = memchr(buf, '\n', upto);
			if (!nl)
				continue;
			header(buf, (size_t)(nl - buf), argv[2]);
			pos = (size_t)(nl - buf) + 1;
			in_header = 0;
			field = 0;
			wi = 0;
		}
		/* blocks from pos (unaligned loads; the last partial block from a zero-padded copy) */
		for (size_t b = pos; b < upto; b += 64) {
			uint64_t q, c, n;
			if (upto - b >= 64) {
				masks(buf + b, &q, &c, &n);
			} else {
				char tail[64];
				memset(tail, 0, sizeof tail);
				memcpy(tail, buf + b, upto - b);
				masks(tail, &q, &c, &n);
				uint64_t valid = (1ull << (upto - b)) - 1; /* (zeros match nothing anyway) */
				q &= valid;
				c &= valid;
				n &= valid;
			}
			uint64_t px = prefix_xor(q) ^ inq;
			inq = (uint64_t)((int64_t)px >> 63);
			uint64_t sep = c & ~px, ends = n & ~px;
			uint64_t bounds = sep | ends;
			int cnt = __builtin_popcountll(bounds);
			if (!ends && field + cnt < wanted[wi]) {
				field += cnt; /* nothing wanted starts here: skip the block */
				continue;
			}
			while (bounds) {
				int bit = __builtin_ctzll(bounds);
				uint64_t low = bounds & -bounds;
				bounds ^= low;
				if (ends & low) {
					field = 0;
					wi = 0;
					continue;
				}
				field++;
				if (field == wanted[wi]) {
					take(buf + b + (size_t)bit + 1, wi);
					wi++;
				}
				if (!(ends & bounds) && field + __builtin_popcountll(bounds) < wanted[wi]) {
					field += __builtin_popcountll(bounds);
					break;
				}
			}
		}
		memmove(buf, buf + upto, have - upto);
		have -= upto;
	}
	for (int k = 0; k < nwanted; k++) {
		if (st[k].n)
			printf("%s\t%ld\t%.10g\t%.10g\n", names[k], st[k].n, st[k].sum / (double)st[k].n, st[k].max);
		else
			printf("%s\t0\tnan\tnan\n", names[k]);
	}
	return 0;
}
