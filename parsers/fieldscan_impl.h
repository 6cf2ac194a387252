/* fieldscan_impl.h — the block algorithm shared by the SIMD field scanners; included once by each
 * per-ISA file after it defines
 *   FS_NAME                      the function to define (a fieldscan_fn)
 *   fs_masks(p, delim, &q, &d)   bit i of q / d = byte p[i] is '"' / delim, for 64 bytes at p
 *   fs_prefix_xor(x)             bit i = XOR of bits 0..i of x
 * Everything here is static to the including file, so each copy is compiled for its own ISA.
 *
 * Per 64-byte block: with px = prefix-XOR of the quote mask (carried across blocks), opening quotes
 * are q & px, closing ones q & ~px and separators d & ~px. The line is in the simple form exactly
 * when every opening quote starts a field (or, with glue, follows a non-blank unquoted part and
 * closes before any delimiter), every
 * closing quote is followed by a delimiter or the end, and the quotes pair up. Then field k lies
 * between boundaries k-1 and k (boundaries = separators, plus glued opening quotes, which begin the
 * next field themselves), so unwanted fields cost a popcount and wanted ones are located by
 * walking only the boundary bits of the blocks they are in. */
#ifndef FS_NAME
#error "define FS_NAME, fs_masks and fs_prefix_xor before including fieldscan_impl.h"
#endif

static inline bool fs_blank(char c, char delim)
{
	return c == ' ' || (c == '\t' && delim != '\t');
}

/* Text of a field from its first byte s to its end boundary e (exclusive). */
static inline struct fieldscan_span fs_span(const char *line, size_t s, size_t e, bool end_glued)
{
	struct fieldscan_span sp;
	if (s < e && line[s] == '"') {
		/* quoted: the closing quote is at e - 1 (checked by the block conditions) */
		sp.off = (uint32_t)(s + 1);
		sp.len = e >= s + 2 ? (uint32_t)(e - s - 2) : 0;
		return sp;
	}
	while (s < e && (line[s] == ' ' || line[s] == '\t'))
		s++;
	/* before a glued quote libcsv keeps the blanks and the reader's split trims spaces only */
	if (end_glued)
		while (e > s && line[e - 1] == ' ')
			e--;
	else
		while (e > s && (line[e - 1] == ' ' || line[e - 1] == '\t'))
			e--;
	sp.off = (uint32_t)s;
	sp.len = (uint32_t)(e - s);
	return sp;
}

bool FS_NAME(const struct fieldscan_plan *pl, const char *line, size_t len, struct fieldscan_span *spans,
	     size_t *nfields)
{
	const char delim = pl->delim;
	const uint32_t *w = pl->wanted;
	size_t wi = 0;
	uint64_t next = w[0];          /* field wanted next */
	bool have_start = next == 0;   /* its first byte is known (field 0 starts the line) */
	size_t fstart = 0;
	uint64_t nb = 0;               /* boundaries before the current block */
	uint64_t in_quote = 0;         /* all ones when the previous block ended inside quotes */
	uint64_t sep_carry = 1;        /* bit 0 of the field-start mask: the line start, then the
					  previous block's last byte being a separator */
	uint64_t close_carry = 0;      /* the previous block ended with a closing quote */
	for (size_t base = 0; base < len; base += 64) {
		uint64_t q, d, valid = ~0ull;
		if (len - base >= 64) {
			fs_masks(line + base, delim, &q, &d);
		} else {
			char tail[64];
			size_t n = len - base;
			memcpy(tail, line + base, n);
			memset(tail + n, 0, 64 - n);
			fs_masks(tail, delim, &q, &d);
			valid = (1ull << n) - 1;
			q &= valid;
			d &= valid;
		}
		uint64_t px = fs_prefix_xor(q) ^ in_quote;
		in_quote = (uint64_t)((int64_t)px >> 63);
		uint64_t sep = d & ~px;
		uint64_t open = q & px, close = q & ~px;
		uint64_t starts = (sep << 1) | sep_carry;
		sep_carry = sep >> 63;
		uint64_t after_close = (close << 1) | close_carry;
		close_carry = close >> 63;
		if (after_close & ~d & valid)
			return false; /* `"a""b"`, `"a"x`, `"a" ,` */
		uint64_t glued = open & ~starts;
		if (glued) {
			if (!pl->glue)
				return false; /* a quote inside an unquoted field, or after blanks */
			for (uint64_t g = glued; g; g &= g - 1) {
				size_t k = base + (size_t)__builtin_ctzll(g);
				size_t j = k;
				while (j > 0 && fs_blank(line[j - 1], delim))
					j--;
				if (j == 0 || line[j - 1] == delim)
					return false; /* only blanks before it: libcsv reads a quoted field */
				/* libcsv ends an unquoted field at the next delimiter, quotes or not: the
				 * glued part must not contain one (its closing quote is checked above) */
				for (j = k + 1; j < len && line[j] != '"'; j++)
					if (line[j] == delim)
						return false;
			}
		}
		uint64_t bounds = sep | glued;
		if (!bounds)
			continue;
		uint64_t nend = nb + (uint64_t)__builtin_popcountll(bounds);
		uint64_t bidx = nb;
		for (;;) {
			uint64_t target = have_start ? next : next - 1;
			if (target >= nend)
				break;
			while (bidx < target) {
				bounds &= bounds - 1;
				bidx++;
			}
			size_t pos = base + (size_t)__builtin_ctzll(bounds);
			bool at_glue = line[pos] == '"';
			if (have_start) {
				spans[wi] = fs_span(line, fstart, pos, at_glue);
				uint64_t done = next;
				next = w[++wi];
				have_start = next == done + 1;
			} else {
				have_start = true;
			}
			if (have_start)
				fstart = at_glue ? pos : pos + 1;
		}
		nb = nend;
	}
	if (in_quote)
		return false; /* a quote opens and never closes */
	if (have_start && next == nb)
		spans[wi] = fs_span(line, fstart, len, false);
	*nfields = (size_t)nb + 1;
	return true;
}
