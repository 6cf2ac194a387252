/* check_volume.c — volumes over several disks (issue 36): a striped volume's member PhysicalDisks
 * ("2 G:" .. "5 G:") are their own entities tied to the volume by name (a fact), a Storage Spaces
 * volume's letterless pool disks by IOPS (a guess); a slow member is named as the volume's cause
 * (latency.volume_member); a volume's queue is judged against the sum of its members' limits; the
 * null shapes (a healthy stripe, a one-disk volume) stay as they were. Its tcase runs in the iopath
 * suite. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "memcap.h"
#include "suites.h"

void volume_tcases(Suite *s);

/* The guest capture (200 rows, 2 s apart) analysed alone. */
static void run_guest(struct analysis *a, const struct mcol *g, int ng)
{
	struct buf gb, msgs;
	buf_init(&gb);
	buf_init(&msgs);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	memcap(&gb, true, "SQL01", g, ng, 200, 2);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "pm.csv", gb.data, gb.len, &co), 0);
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_run(a, &o);
	buf_free(&gb);
	buf_free(&msgs);
}

static const struct entity *guest(struct analysis *a, const char *name)
{
	return model_find(&a->m, LAYER_GUEST, name, "SQL01");
}

static int count_kind(const struct analysis *a, enum kind k, const char *entity)
{
	int n = 0;
	for (size_t i = 0; i < a->nf; i++)
		n += a->f[i].kind == k && (!entity || strcmp(a->f[i].entity, entity) == 0);
	return n;
}

/* A disk's transfers (a wave every disk of the volume follows) and latency. */
#define XFER(inst, base) {inst "\\Disk Transfers/sec", mc_wave, {base, base / 2, 9}}
#define LAT(inst, s) {inst "\\Avg. Disk sec/Transfer", mc_konst, {s}}
#define SLOW(inst, s) {inst "\\Avg. Disk sec/Transfer", mc_pulse, {0.002, s, 50, 170}}

/* The same, read with selection f (NULL: none). */
static void striped_in(struct analysis *a, double slow4, struct ent_filter *f)
{
	const struct mcol g[] = {
		XFER("LogicalDisk(D:)", 100),    LAT("LogicalDisk(D:)", 0.002),
		XFER("LogicalDisk(G:)", 400),    LAT("LogicalDisk(G:)", 0.004),
		XFER("PhysicalDisk(1 D:)", 100), {"PhysicalDisk(1 D:)\\Current Disk Queue Length", mc_konst, {1}},
		XFER("PhysicalDisk(2 G:)", 100), LAT("PhysicalDisk(2 G:)", 0.002),
		XFER("PhysicalDisk(3 G:)", 100), LAT("PhysicalDisk(3 G:)", 0.002),
		XFER("PhysicalDisk(4 G:)", 100), SLOW("PhysicalDisk(4 G:)", slow4),
		XFER("PhysicalDisk(5 G:)", 100), LAT("PhysicalDisk(5 G:)", 0.002),
	};
	a->m.filter = f;
	run_guest(a, g, (int)(sizeof g / sizeof g[0]));
}

/* D: on disk 1 alone; G: striped over disks 2-5; disk 4 at slow4 seconds over rows 50-170. */
static void striped(struct analysis *a, double slow4)
{
	striped_in(a, slow4, NULL);
}

/* Members stay separate, each tied to G: by the instance names (a fact); the one-disk volume D:
 * is one entity as before, PhysicalDisk filling the counter LogicalDisk lacks. */
START_TEST(striped_members_stay_separate)
{
	struct analysis a;
	analysis_init(&a);
	striped(&a, 0.002);
	const struct entity *gv = guest(&a, "G:"), *d = guest(&a, "D:");
	ck_assert_ptr_nonnull(gv);
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_null(guest(&a, "Disk 1"));
	ck_assert_int_ge(d->series[M_G_CDQL], 0);
	ck_assert_ptr_null(d->volume);
	bool member = true;
	ck_assert_ptr_null(iopath_volume_of(&a.iop, d, &member));
	const struct iop_volume *x = iopath_volume_of(&a.iop, gv, &member);
	ck_assert_ptr_nonnull(x);
	ck_assert(!member);
	ck_assert_int_eq((int)x->nmem, 4);
	ck_assert_int_eq(x->link.how, LINK_ID);
	for (int n = 2; n <= 5; n++) {
		char nm[16];
		snprintf(nm, sizeof nm, "Disk %d", n);
		const struct entity *m = guest(&a, nm);
		ck_assert_msg(m != NULL, "%s", nm);
		ck_assert_str_eq(m->volume, "G:");
		ck_assert(iopath_volume_of(&a.iop, m, &member) == x && member);
	}
	/* healthy and evenly loaded: the null shape */
	ck_assert_int_eq(count_kind(&a, K_LAT_VOL_MEMBER, NULL), 0);
	for (size_t i = 0; i < a.nf; i++)
		ck_assert_msg(a.f[i].sev < SEV_WARNING, "%s %s", kinds[a.f[i].kind].name, a.f[i].summary);
	analysis_free(&a);
}
END_TEST

/* Disk 4 at 38 ms while its siblings answer at 2 ms: G: is slow because of that member; the
 * member's own guest-latency finding is folded into it; the verdict names the member. */
START_TEST(slow_member_is_the_cause)
{
	struct analysis a;
	analysis_init(&a);
	striped(&a, 0.038);
	ck_assert_int_eq(count_kind(&a, K_LAT_VOL_MEMBER, "G:"), 1);
	const struct finding *f = NULL;
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_VOL_MEMBER)
			f = &a.f[i];
	ck_assert_msg(strstr(f->summary, "G: is slow because its member Disk 4 answers at 38.0 ms") != NULL, "%s",
		      f->summary);
	ck_assert_msg(strstr(f->summary, "its 3 siblings answer at 2.0 ms") != NULL, "%s", f->summary);
	ck_assert_ptr_nonnull(strstr(f->summary, "a fact"));
	ck_assert(!f->heuristic);
	ck_assert_ptr_nonnull(strstr(f->advice, "Disk 4"));
	ck_assert_int_eq(count_kind(&a, K_LAT_GUEST_READ, "Disk 4") + count_kind(&a, K_LAT_GUEST_WRITE, "Disk 4"), 0);
	ck_assert_msg(strstr(a.verdict, "one member disk of SQL01 G:") != NULL, "%s", a.verdict);
	analysis_free(&a);
}
END_TEST

/* Every member slow together is no member's fault: no latency.volume_member. */
START_TEST(every_member_slow_is_not_one_member)
{
	const struct mcol g[] = {
		XFER("LogicalDisk(G:)", 400),    LAT("LogicalDisk(G:)", 0.040),
		XFER("PhysicalDisk(2 G:)", 100), LAT("PhysicalDisk(2 G:)", 0.040),
		XFER("PhysicalDisk(3 G:)", 100), LAT("PhysicalDisk(3 G:)", 0.040),
	};
	struct analysis a;
	analysis_init(&a);
	run_guest(&a, g, (int)(sizeof g / sizeof g[0]));
	ck_assert_ptr_nonnull(iopath_volume_of(&a.iop, guest(&a, "G:"), NULL));
	ck_assert_int_eq(count_kind(&a, K_LAT_VOL_MEMBER, NULL), 0);
	analysis_free(&a);
}
END_TEST

/* A Storage Spaces virtual disk F: ("6 F:") over letterless pool disks 1-4 whose transfers follow
 * F:'s: tied by IOPS, a guess said as one; disk 7, letterless with its own load, is not tied. Disk 3
 * slow: named, the finding heuristic. */
START_TEST(spaces_members_are_a_guess)
{
	const struct mcol g[] = {
		XFER("LogicalDisk(F:)", 400),    LAT("LogicalDisk(F:)", 0.004),
		XFER("PhysicalDisk(6 F:)", 400), {"PhysicalDisk(_Total)\\Disk Transfers/sec", mc_konst, {900}},
		XFER("PhysicalDisk(1)", 100),    LAT("PhysicalDisk(1)", 0.002),
		XFER("PhysicalDisk(2)", 100),    LAT("PhysicalDisk(2)", 0.002),
		XFER("PhysicalDisk(3)", 100),    SLOW("PhysicalDisk(3)", 0.030),
		XFER("PhysicalDisk(4)", 100),    LAT("PhysicalDisk(4)", 0.002),
		{"PhysicalDisk(7)\\Disk Transfers/sec", mc_wave, {80, 40, 2.3}},
		{"Memory\\Available MBytes", mc_konst, {4000}}, /* no volume: never hides the letterless disks */
	};
	struct analysis a;
	analysis_init(&a);
	run_guest(&a, g, (int)(sizeof g / sizeof g[0]));
	const struct iop_volume *x = iopath_volume_of(&a.iop, guest(&a, "F:"), NULL);
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq((int)x->nmem, 4);
	ck_assert_int_eq(x->link.how, LINK_CORR);
	ck_assert_ptr_nonnull(strstr(x->link.why, "guessed from IOPS correlation"));
	ck_assert_ptr_nonnull(guest(&a, "Disk 7"));
	ck_assert_ptr_null(iopath_volume_of(&a.iop, guest(&a, "Disk 7"), NULL));
	ck_assert_int_eq(count_kind(&a, K_LAT_VOL_MEMBER, "F:"), 1);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_VOL_MEMBER) {
			ck_assert_msg(strstr(a.f[i].summary, "its member Disk 3 answers at 30.0 ms") != NULL, "%s",
				      a.f[i].summary);
			ck_assert_ptr_nonnull(strstr(a.f[i].summary, "guessed from IOPS correlation"));
			ck_assert(a.f[i].heuristic);
		}
	analysis_free(&a);
}
END_TEST

/* G:'s queue at 64 over four disks whose own queues are not in the capture: under the sum of their
 * limits (4 x 32), no vSCSI cap (one disk's limit would have called it pinned at PVSCSI's 64); at
 * 128 it is the sum, pinned. */
START_TEST(volume_queue_against_the_sum)
{
	for (int pass = 0; pass < 2; pass++) {
		double q = pass ? 128 : 64;
		const struct mcol g[] = {
			XFER("LogicalDisk(G:)", 4000),
			LAT("LogicalDisk(G:)", 0.030),
			{"LogicalDisk(G:)\\Current Disk Queue Length", mc_konst, {q}},
			XFER("PhysicalDisk(2 G:)", 1000),
			XFER("PhysicalDisk(3 G:)", 1000),
			XFER("PhysicalDisk(4 G:)", 1000),
			XFER("PhysicalDisk(5 G:)", 1000),
		};
		struct analysis a;
		analysis_init(&a);
		run_guest(&a, g, (int)(sizeof g / sizeof g[0]));
		ck_assert_int_eq(count_kind(&a, K_Q_GUEST_VSCSI_CAP, "G:"), pass);
		for (size_t i = 0; pass && i < a.nf; i++)
			if (a.f[i].kind == K_Q_GUEST_VSCSI_CAP)
				ck_assert_msg(strstr(a.f[i].summary, "the sum of its 4 disks' per-disk limits (32 + 32 + 32 + 32") !=
						      NULL,
					      "%s", a.f[i].summary);
		analysis_free(&a);
	}
}
END_TEST

/* A disk holding a volume of its own and part of a spanned one ("2 E: G:", "3 G:"): both disks are
 * members of G: (the letter they share), E: stays the LogicalDisk's alone. */
START_TEST(member_with_another_volume)
{
	const struct mcol g[] = {
		XFER("LogicalDisk(E:)", 20),       LAT("LogicalDisk(E:)", 0.002),
		XFER("LogicalDisk(G:)", 200),      LAT("LogicalDisk(G:)", 0.002),
		XFER("PhysicalDisk(2 E: G:)", 120), LAT("PhysicalDisk(2 E: G:)", 0.002),
		XFER("PhysicalDisk(3 G:)", 100),   LAT("PhysicalDisk(3 G:)", 0.002),
	};
	struct analysis a;
	analysis_init(&a);
	run_guest(&a, g, (int)(sizeof g / sizeof g[0]));
	ck_assert_str_eq(guest(&a, "Disk 2")->volume, "G:");
	ck_assert_str_eq(guest(&a, "Disk 3")->volume, "G:");
	const struct iop_volume *x = iopath_volume_of(&a.iop, guest(&a, "G:"), NULL);
	ck_assert(x && x->nmem == 2);
	ck_assert_ptr_null(iopath_volume_of(&a.iop, guest(&a, "E:"), NULL));
	analysis_free(&a);
}
END_TEST

/* Every member slow with a host capture that ties none of them: the volume's own guest-latency
 * finding says it has no one virtual disk and points at its members, not at a missing --map line. */
START_TEST(volume_advice_points_at_members)
{
	const struct mcol h[] = {
		{"Virtual Disk(APP02:scsi0:0)\\Commands/sec", mc_konst, {10}},
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_konst, {10}},
	};
	const struct mcol g[] = {
		XFER("LogicalDisk(G:)", 200),    {"LogicalDisk(G:)\\Avg. Disk sec/Read", mc_konst, {0.040}},
		XFER("PhysicalDisk(2 G:)", 100), {"PhysicalDisk(2 G:)\\Avg. Disk sec/Read", mc_konst, {0.040}},
		XFER("PhysicalDisk(3 G:)", 100), {"PhysicalDisk(3 G:)\\Avg. Disk sec/Read", mc_konst, {0.040}},
	};
	struct buf hb, gb;
	buf_init(&hb);
	buf_init(&gb);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	struct analysis a;
	analysis_init(&a);
	memcap(&hb, false, "esx01", h, 2, 200, 2);
	ck_assert_int_eq(model_add_capture_mem(&a.m, "esx.csv", hb.data, hb.len, &co), 0);
	memcap(&gb, true, "SQL01", g, (int)(sizeof g / sizeof g[0]), 200, 2);
	ck_assert_int_eq(model_add_capture_mem(&a.m, "pm.csv", gb.data, gb.len, &co), 0);
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_run(&a, &o);
	int n = 0;
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_GUEST_READ && strcmp(a.f[i].entity, "G:") == 0) {
			n++;
			ck_assert_msg(strstr(a.f[i].advice, "G: is a volume over 2 disks (Disk 2, Disk 3") != NULL, "%s",
				      a.f[i].advice);
		}
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(count_kind(&a, K_LAT_VOL_MEMBER, NULL), 0);
	analysis_free(&a);
	buf_free(&hb);
	buf_free(&gb);
}
END_TEST

/* --disk G: keeps G:'s member disks (they are read, the volume tied to them, the slow one named);
 * D: is left out. */
START_TEST(disk_filter_keeps_the_members)
{
	struct ent_filter f;
	ef_init(&f);
	struct tdiag td;
	ck_assert_int_eq(ef_add(&f, EF_DISK, "^G:$", tdiag_init(&td, "--disk")), 0);
	struct analysis a;
	analysis_init(&a);
	striped_in(&a, 0.038, &f);
	ck_assert_ptr_null(guest(&a, "D:"));
	ck_assert_ptr_nonnull(guest(&a, "Disk 4"));
	const struct iop_volume *x = iopath_volume_of(&a.iop, guest(&a, "G:"), NULL);
	ck_assert(x && x->nmem == 4);
	ck_assert_int_eq(count_kind(&a, K_LAT_VOL_MEMBER, "G:"), 1);
	analysis_free(&a);
	ef_free(&f);
	tdiag_free(&td);
}
END_TEST

void volume_tcases(Suite *s)
{
	TCase *t = tcase_create("volume");
	tcase_add_test(t, striped_members_stay_separate);
	tcase_add_test(t, slow_member_is_the_cause);
	tcase_add_test(t, every_member_slow_is_not_one_member);
	tcase_add_test(t, spaces_members_are_a_guess);
	tcase_add_test(t, volume_queue_against_the_sum);
	tcase_add_test(t, disk_filter_keeps_the_members);
	tcase_add_test(t, member_with_another_volume);
	tcase_add_test(t, volume_advice_points_at_members);
	suite_add_tcase(s, t);
}
