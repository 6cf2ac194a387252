/* entfilter.h — the entity filters of analyze and compare (--host, --vm, --disk; each repeatable,
 * a PCRE2 pattern matched case-insensitively like --match). The capture model applies them while
 * it reads a header: a column of an entity outside the selection is never read, so its rows never
 * reach a detector, and the coverage and verdict speak of the selection only. What each filter
 * judges:
 *   --host  the ESXi host of an esxtop capture's entities (perfmon machines are VMs: --vm)
 *   --vm    the perfmon machine (its guest disks and SQL Server), an esxtop VM (Group Cpu), the VM
 *           of a virtual disk ("SQL01" of SQL01:scsi0:1), and the devices the VM's worlds issue IO
 *           to (Per-Device-Per-World columns; a capture without them keeps every device, and says
 *           so); adapters serve every VM and are kept
 *   --disk  a guest disk ("D:", "E:\SQLDATA"), a virtual disk (SQL01:scsi0:1) or a device (naa...,
 *           an NFS datastore)
 * An entity is kept when every filter that judges it keeps it; patterns of one filter are
 * alternatives. A pattern that matches nothing it judges is an error (ef_check). */
#ifndef IOPSY_ENTFILTER_H
#define IOPSY_ENTFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "match.h"
#include "util.h"
#include "vocab.h"

enum { EF_HOST, EF_VM, EF_DISK, EF_KINDS };
extern const char *const ef_option[EF_KINDS]; /* "--host", "--vm", "--disk" */

#define EF_MAX 16
#define EF_SEEN 3
struct ent_filter {
	struct {
		const char *text;     /* as given (borrowed) */
		struct matcher *m;
		long hits;            /* subjects it matched */
	} p[EF_KINDS][EF_MAX];
	int n[EF_KINDS];
	const char *seen[EF_KINDS][LAYER_COUNT][EF_SEEN]; /* some subjects seen per layer, for the error */
	int nseen[EF_KINDS][LAYER_COUNT];
	long kept[LAYER_COUNT], dropped[LAYER_COUNT]; /* entities kept / left out per layer */
	bool devices_unlinked;    /* a host capture had no per-world columns: its devices were kept */
	/* the decision per entity (layer, host, name) across the captures, so that each is judged and
	 * counted once (capmodel.c); open addressing, at most half full */
	struct ef_dec {
		uint64_t h;
		const char *key;
		bool keep;
		signed char dm;          /* a host capture's virtual disk or device under --disk: whether
		                          * the pattern names it (1/0), -1 otherwise (capmodel.c) */
	} *tab;
	size_t tcap, tn;
	struct arena arena;
};

void ef_init(struct ent_filter *f);
void ef_free(struct ent_filter *f);
/* Adds a pattern of kind (EF_*); text is borrowed. Returns 0, or ERR_USAGE with the regex error
 * through d, or when there are more than EF_MAX of one kind. */
int ef_add(struct ent_filter *f, int kind, const char *text, struct diag *d);
bool ef_on(const struct ent_filter *f);
bool ef_kind_on(const struct ent_filter *f, int kind);
/* Whether subject s (of an entity of layer l) passes kind's patterns (true when kind has none);
 * counts each pattern's hits (all of them are tried). */
bool ef_match(struct ent_filter *f, int kind, enum layer l, const char *s);
/* Whether s matches one of kind's patterns, without counting (true when kind has none). */
bool ef_test(const struct ent_filter *f, int kind, const char *s);
/* ERR_USAGE (each reason through d: "--vm 'SQL99' matches no VM of the captures (seen: ...)")
 * when a pattern matched nothing, or when the filters left no entity; else 0. whose names the
 * captures ("the before captures"; NULL: "the captures"). */
int ef_check(const struct ent_filter *f, const char *whose, struct diag *d);
/* Compiles the patterns of src into dst (initialised), for the other side of a comparison. */
int ef_copy(struct ent_filter *dst, const struct ent_filter *src, struct diag *d);
/* "--vm SQL01 --disk 'D:|E:'" (the options as given, quoted when they hold spaces or quotes). */
void ef_options_text(const struct ent_filter *f, struct buf *b);

#endif
