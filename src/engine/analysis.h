/* analysis.h — the result model of `iopsy analyze`: captures and entities (capmodel), findings
 * with evidence, rule and advice, disk mappings, clock alignment and the verdict. Reporters read
 * this; detectors write it. */
#ifndef IOPSY_ANALYSIS_H
#define IOPSY_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capmodel.h"
#include "coverage.h"
#include "finding.h"
#include "kinds.h"
#include "topology.h"
#include "vhist.h"
#include "maps.h"
#include "partitions.h"
#include "rules.h"
#include "sqlimpact.h"
#include "vmklog.h"
#include "window.h"

struct analyze_opts {
	const char *vmklog, *partitions, *map, *rules; /* file names, for the report (the CLI reads them) */
	int array_queue_depth;           /* 0 = not given */
	bool clock_offset_given;
	double clock_offset_s;           /* guest clock − host clock */
	const char *clock_offset_from;   /* the option that gave it, for messages ("--after-clock-offset";
	                                  * NULL: "--clock-offset") */
	bool no_auto_offset;
	bool no_explore;                 /* --no-explore: the HTML report has no Explore section */
};

/* What the captures said about an input the consultant gave (--map, --clock-offset, --partitions,
 * a rules file, --vmkernel-log): every report shows these beside the findings, so an override the
 * captures contradict or that named nothing is in the report, not only on stderr. */
enum input_state {
	IN_APPLIED,        /* used; the captures neither confirm nor contradict it */
	IN_AGREED,         /* the captures confirm it (the disks exist, the IOPS agree) */
	IN_CONTRADICTED,   /* the captures say otherwise (used anyway, as given) */
	IN_NAMED_NOTHING,  /* it names nothing the captures have */
	IN_NOT_APPLIED,    /* it could not be applied (the text says why) */
	IN_STATES
};
extern const char *const input_state_names[IN_STATES]; /* "applied", "agreed", ... */
struct input_said {
	const char *option;              /* "--map" (static) */
	const char *file;                /* the file given (arena), NULL for an option value */
	long line;                       /* its line, 0 for the whole input */
	enum input_state state;
	const char *text;                /* what the captures said (arena, raw: writers escape it) */
};
#define ANALYSIS_MAX_INPUTS 64           /* records kept; more are counted in inputs_more */

struct analysis {
	struct model m;
	struct finding *f;
	size_t nf, capf;
	struct diskmap_entry *map;
	size_t nmap;
	struct vmk_log vmk;
	bool have_vmk;
	struct partitions parts;
	bool have_parts;
	const char *verdict;             /* arena */
	/* what the verdict concluded, for every output that restates it (the summary) */
	enum verdict_where {
		VW_NOTHING_READ,         /* no capture could be read */
		VW_NO_WAIT,              /* no wait found (in what was assessed; see coverage) */
		VW_PLACES,               /* IO waits at the places of verdict_places */
		VW_BELOW_GUEST,          /* a guest disk is slow; the host captures do not show where */
		VW_UNTOLD,               /* a guest disk is slow; where it waits cannot be told */
		VW_BELOW_HBA,            /* a guest disk is slow, no rule fires below it, but its LUN's DAVG is
		                          * most of the guest's latency: the time is spent below the HBA */
	} verdict_where;
	unsigned verdict_places;         /* 1u << VP_x of each place the verdict names */
	long verdict_first;              /* index in f of the finding naming the first place said (or
	                                  * the slow guest disk's), -1 none */
	struct rules rules;              /* the rules in force (defaults after analysis_init) */
	struct shown_stack shown[TOPO_MAX_SHOWN]; /* the IO stacks every output shows (topology.h) */
	struct iopath iop;               /* the IO path graph (iopath.h), built first in analysis_run */
	/* --host/--vm/--disk: the selection's LUNs that VMs outside it also use (their worlds' IO over
	 * the capture), for the selection's sentence */
	struct sel_shared {
		const char *device, *vm; /* arena */
		double share;            /* of the LUN's commands */
	} *shared;
	size_t nshared;
	struct swin *sw;                 /* episodes found while the captures streamed */
	size_t nsw, capsw;
	void *stream;                    /* stream.c's state while captures are read */
	struct analyze_opts opts;        /* set before the captures are read (analysis_set_opts) */
	struct coverage cov;             /* what could be assessed (after analysis_run) */
	struct diag_sink sink;           /* where the analysis' own warnings go (a --map line that names
	                                  * nothing, a contradicted --clock-offset); NULL drops them */
	size_t vmk_outside;              /* vmkernel.log events outside the captures, not used */
	struct qd_step {                 /* a DQLEN/AQLEN step inside a capture (config.queue_depth_change) */
		size_t ent;
		int64_t t;               /* capture clock, ms */
		double from, to;
	} *steps;
	size_t nsteps;
	const char *clock_note;          /* the verdict's word on a guest clock the IOPS do not confirm (or
	                                  * that a whole/half-hour shift fixed), NULL (arena) */
	bool *clock_untrusted;           /* by capture: a guest whose clock cannot be aligned with the
	                                  * hosts' (zone assumed, IOPS disagree); NULL = none (arena) */
	const char *link_note;           /* the guest<->host link not assessed: why, one sentence (the
	                                  * verdict, the coverage and stderr say it), NULL when it was
	                                  * established or there is no pair of guest and host captures */
	size_t map_pending;              /* verify_map found every disk of these many --map lines: whether
	                                  * their IOPS agree too is said by the link check (check_link) */
	const char *parts_host;          /* --map "partitions = HOST": the guest the partitions file is of */
	const char *parts_note;          /* why the partitions file was not applied (the verdict says it),
	                                  * NULL when it was or none was given (arena) */
	const char *parts_assumed;       /* the partitions file names no machine and was taken to be of
	                                  * the only guest: said so (arena), NULL otherwise */
	struct twin window;              /* the time window the captures were read in (off: all) */
	struct dbmap_line *dbmap;        /* --map database lines (arena strings) */
	size_t ndbmap;
	struct sql_report *sql;          /* what SQL Server did meanwhile (after analysis_run; n = 0 when
	                                  * the captures have no SQL Server counters) */
	size_t nshown;
	long map_max_warnings;           /* --max-warnings for the --map's messages (map_cap_given) */
	bool map_cap_given;
	long map_notes, map_suppressed;  /* said of the map so far, and left unsaid past the cap */
	struct input_said *inputs;       /* in the order said (xrealloc'd) */
	size_t ninputs, inputs_more;
	struct vh_set hist;              /* the virtual disks of the histogram captures (vscsiStats), with
	                                  * the VM another capture names (vhist.h); empty without one */
	struct arena arena;
	struct vmk_unread {              /* a --vmkernel-log that could not be read: named in the inputs
	                                  * all the same, so an unread log never looks clean (issue 36) */
		const char *path;        /* arena */
		int rc;                  /* its ERR_* */
	} *vmk_unread;
	size_t nvmk_unread;
};

void analysis_init(struct analysis *a);
/* sampling.c: with findings, a finding made of one row longer than sustain.seconds says the
 * sampling cannot tell how long within it; without, the coverage of the layers a coarse capture
 * assesses gets the sampling line. */
void analysis_sampling(struct analysis *a, bool findings);
/* hv_holder.c: for a slow Hyper-V host disk (latency.host_disk), "; it holds SQL01's SQL01_L.vhdx on
 * Volume3 (100% of its IO from this node), the guest's SQL01 L:: the transaction log's writes wait
 * there ..." when one VHDX sends it at least half its IO; NULL otherwise (arena). */
const char *hv_disk_holder(struct analysis *a, const struct finding *f);
/* For a slow guest disk's finding f on stack st: its LUN's mean DAVG over f's time (ms, into
 * *davg) as a share of the guest's latency (f's first evidence median); NaN when the stack has no
 * SCSI LUN with DAVG then. */
double below_hba_share(const struct analysis *a, const struct finding *f, const struct stack *st, double *davg);
/* The share of the guest's latency from which its LUN's DAVG is "most of it" (GAVG = KAVG + DAVG
 * [vmw]: with more than half of the guest's time in DAVG, the wait is below the HBA even when DAVG
 * is under the device rule; a log disk's 5 ms target is far under the device rule's 15 ms). */
#define BELOW_HBA_SHARE 0.5
/* The file names the reports of a show (captures, their merged files, the window's reference
 * capture, the rules files): as given, relative to cwd when an absolute name lies below it
 * (cwd NULL: not), or only the base name with base_only. Call after analysis_run. */
void analysis_display_paths(struct analysis *a, bool base_only, const char *cwd);
/* The same transformation of one name (a pointer into p). */
const char *display_path(const char *p, bool base_only, const char *cwd);
/* The same for the files a rules value or section line came from (a comparison's own rules). */
void rules_display_paths(struct rules *r, bool base_only, const char *cwd);
/* The options detection needs while the captures stream (the array queue depth); call before
 * model_add_capture. analysis_run uses them too. */
void analysis_set_opts(struct analysis *a, const struct analyze_opts *o);
void analysis_free(struct analysis *a);
/* Runs clock alignment, disk mapping, every detector and the verdict over a loaded model. */
void analysis_run(struct analysis *a, const struct analyze_opts *o);
/* Adds the lines of a --map file (maps.h) as the user's disk mappings. */
void analysis_use_diskmap(struct analysis *a, const struct diskmap *dm, const char *file);

struct finding *finding_new(struct analysis *a, enum kind kind, enum severity sev, enum layer l,
			    const char *entity, const char *host);
const char *afmt(struct analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records what the captures said about an input (struct input_said); past ANALYSIS_MAX_INPUTS
 * only counted. */
void input_said(struct analysis *a, const char *option, const char *file, long line, enum input_state st,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* What topology.h reads of a (borrowed). */
struct topo_in analysis_topo(const struct analysis *a);
/* Whether e did real work: its mean IOPS reach the rule active.min_iops. */
bool entity_active(const struct entity *e, const struct rules *r);
/* Highest severity among findings, -1 when none. */
int analysis_worst(const struct analysis *a);

/* A condition judged on every raw row as a capture streams (stream.c): where it holds long enough
 * (the sustain rules: samples and seconds) with its signal's mean over the window above the
 * threshold, the detector's window function makes a finding of the episode. */
#define STREAM_MAX_CTX SWIN_MAX_CTX
struct stream_rule {
	enum layer layer;                /* entities of this layer ... */
	bool (*applies)(const struct analysis *a, const struct entity *e); /* ... that have what it needs */
	/* The condition on the current row (entity_cur). */
	bool (*cond)(const struct analysis *a, const struct entity *e);
	int signal;                      /* metric whose mean over the window must exceed ... */
	double (*signal_thr)(const struct analysis *a, const struct entity *e); /* ... this (NULL: no test) */
	int ev[MAX_EVIDENCE];            /* evidence metrics, -1 ends */
	int ctx[STREAM_MAX_CTX];         /* metrics whose medians the advice needs, -1 = none */
	/* threshold of evidence k ("samples above"), NaN for context */
	double (*ev_thr)(const struct analysis *a, const struct entity *e, int k);
	bool any_sample;                 /* no sustain: one row is a window (aborts, resets) */
};

/* The detectors, one table (doc/architecture.md, "The tables"), ended by a row without a title. A
 * kind may have several detectors (aborts from esxtop counters and from vmkernel.log). A detector
 * either streams (stream + window) or runs once over the loaded model (run). */
struct detector {
	enum kind kind;
	const char *title;               /* what this detector looks at */
	void (*run)(struct analysis *a);
	const struct stream_rule *stream;
	void (*window)(struct analysis *a, const struct swin *w);
};
extern const struct detector detectors[];
/* Installs the streaming detection on a's model (stream.c); analysis_init calls it. */
void stream_attach(struct analysis *a);
/* Makes the findings of the streamed episodes (stream.c); analysis_run calls it. */
void stream_findings(struct analysis *a);
/* Splits the queue findings of an entity at its queue depth steps and says when the capture shows
 * a raised depth ended the queueing (detect_throttle.c); analysis_run calls it after the episodes
 * are joined. */
void split_at_qdepth_steps(struct analysis *a);
/* Whether capture i is a guest whose clock could not be aligned with the hosts' (no guest-vs-host
 * finding is made from it). */
bool analysis_clock_untrusted(const struct analysis *a, size_t capture);
/* Whether the host captures are Hyper-V hosts' (doc/hyperv.md), so that the words are Hyper-V's. */
bool analysis_hyperv(const struct analysis *a);
/* Whether a guest capture (perfmon) of machine name was read: a VM named so is the customer's. */
bool analysis_guest_captured(const struct analysis *a, const char *name);
/* The verdict paragraph (verdict.c); analysis_run calls it after the findings and coverage. */
void analysis_verdict(struct analysis *a);
/* shared.c: the load of each device finding's LUN by VM, and the neighbour that drives it while
 * another VM waits (finding.load, .driver, .victims). */
void analysis_shared_load(struct analysis *a);
/* detect_cpu.c: a guest disk's wait the host does not see while its VM waits for CPU (cpu.contention)
 * is the CPU's: its advice says so, queue.guest_hidden becomes information. After the advice and
 * the causes' severities are settled. */
void analysis_cpu_explains(struct analysis *a);
/* detect_mem.c: the disk findings a memory cause explains (a guest's paging disks and their virtual
 * disk and LUN, a swapped VM's guest disks) become its symptoms (finding.explained_by): their
 * advice says so, queue.guest_hidden becomes information, the cause takes their severity. */
void analysis_mem_explains(struct analysis *a);
/* Frees the streaming state; analysis_free calls it. */
void stream_detach(struct analysis *a);

#endif
