/* parser.c — the table of input formats and the helpers format modules share to classify their
 * counters (see parser.h). */
#include "parser.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *const parser_role_names[2] = {"host", "guest"};

const struct parser_ops *const parsers[] = {&parser_esxtop, &parser_perfmon, &parser_hyperv, &parser_vscsistats, NULL};

static const struct parser_ops *extra[PARSER_MAX_EXTRA];
static size_t nextra;

int parser_register(const struct parser_ops *ops)
{
	for (size_t i = 0; i < nextra; i++)
		if (extra[i] == ops)
			return 0;
	if (nextra == PARSER_MAX_EXTRA)
		return ERR_LIMIT;
	extra[nextra++] = ops;
	return 0;
}

const struct parser_ops *parser_find(const char *name)
{
	for (size_t i = 0; parsers[i]; i++)
		if (strcmp(parsers[i]->name, name) == 0)
			return parsers[i];
	for (size_t i = 0; i < nextra; i++)
		if (strcmp(extra[i]->name, name) == 0)
			return extra[i];
	return NULL;
}

const struct parser_ops *parser_probe(const char *head, size_t len, int *conf)
{
	const struct parser_ops *best = NULL;
	*conf = 0;
	for (size_t i = 0; parsers[i]; i++) {
		int c = parsers[i]->probe(head, len);
		if (c > *conf) {
			*conf = c;
			best = parsers[i];
		}
	}
	return best;
}

int reader_open(struct reader **out, struct source *src, const struct pdh_options *o, struct diag *d)
{
	*out = NULL;
	bool named = o->format && strcmp(o->format, "auto") != 0;
	const struct parser_ops *f = named ? parser_find(o->format) : NULL;
	if (f)
		return f->open(out, src, o, d);
	if (!named) {
		const char *head;
		long n = source_peek(src, PARSER_HEAD, &head, d);
		if (n < 0)
			return (int)n;
		int conf;
		f = parser_probe(head, (size_t)n, &conf);
		if (f) {
			struct pdh_options po = *o;
			po.probed = f;
			return f->open(out, src, &po, d);
		}
	}
	/* nothing recognised the head, or a name no format has: the first row's reader words it */
	return parsers[0]->open(out, src, o, d);
}

const char *parser_names(void)
{
	static char names[128];
	if (!names[0]) {
		size_t o = 0;
		for (size_t i = 0; parsers[i]; i++) {
			int k = snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "", parsers[i]->name);
			if (k < 0 || (size_t)k >= sizeof names - o)
				break;
			o += (size_t)k;
		}
	}
	return names;
}

int counter_lookup(const struct counter_map *t, const char *counter, bool caseless, double *scale)
{
	for (size_t i = 0; t[i].counter; i++) {
		if (caseless ? strcasecmp(t[i].counter, counter) == 0 : strcmp(t[i].counter, counter) == 0) {
			*scale = t[i].scale;
			return t[i].metric;
		}
	}
	return -1;
}

void class_copy(char *out, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

void class_init(struct counter_class *c)
{
	/* field by field: the names are strings, so their first byte is all that needs clearing (the
	 * whole struct is half a KiB and classify runs twice for every column of a header) */
	c->layer = (enum layer)0;
	c->metric = -1;
	c->scale = 1;
	c->entity[0] = '\0';
	c->parent[0] = '\0';
	c->pass = 0;
	c->aggregate = false;
	c->nfs = false;
	c->disk_no = -1;
	c->disk_drive[0] = '\0';
	c->disk_letters[0] = '\0';
	c->combine = COMBINE_FIRST;
	/* every field of struct counter_class must be set here: check_pdh's class_init test compares
	 * with a memset-cleared class */
}
