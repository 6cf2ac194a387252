/* check_actions.c — the recommended actions decided in the engine (src/engine/actions.c): every
 * kind says its step, one step per LU whichever hosts see it, idle disks are not moved, and a
 * comparison's steps keep the verdict's advice. */
#include <math.h>
#include <string.h>

#include "actions.h"
#include "suites.h"

static struct finding fake(enum kind k, enum severity sev, enum layer l, const char *host, const char *ent, double cdql)
{
	struct finding f;
	memset(&f, 0, sizeof f);
	f.kind = k;
	f.sev = sev;
	f.layer = l;
	f.host = host;
	f.entity = ent;
	f.ent = -1;
	f.capture = -1;
	f.summary = "s";
	f.driver_share = NAN;
	f.start = 1785157200000;
	f.end = f.start + 600000;
	if (!isnan(cdql)) {
		f.ev[0] = (struct evidence){.metric = M_G_CDQL, .min = cdql, .median = cdql, .p95 = cdql, .max = cdql,
					    .samples = 100, .threshold = NAN};
		f.nev = 1;
	}
	return f;
}

/* a new kind cannot silently lack a step: ACT_SYMPTOM is the explicit "none of its own" */
START_TEST(every_kind_says_its_step)
{
	for (int k = 0; k < K_COUNT; k++) {
		ck_assert_msg(kinds[k].name != NULL, "kind %d has no entry", k);
		ck_assert_msg(kinds[k].action > ACT_UNSET && kinds[k].action < ACT_COUNT, "%s has no action decision",
			      kinds[k].name);
	}
}
END_TEST

START_TEST(one_step_per_lu_across_hosts)
{
	struct analysis a;
	analysis_init(&a);
	const char *lu = "naa.624a93708c1f4e2b1102000067bf1af7";
	struct finding f[] = {
		fake(K_T_AQD, SEV_CRITICAL, LAYER_DEVICE, "esx01", lu, NAN),
		fake(K_SCSI_QUEUE_FULL, SEV_WARNING, LAYER_DEVICE, "esx02", lu, NAN),
		fake(K_T_AQD, SEV_CRITICAL, LAYER_DEVICE, "esx02", lu, NAN),
		fake(K_Q_DEVICE_SATURATED, SEV_WARNING, LAYER_DEVICE, "esx01", lu, NAN),
		fake(K_Q_GUEST_VSCSI_CAP, SEV_CRITICAL, LAYER_VSCSI, "SQL01", "D:", 40),
		fake(K_Q_GUEST_HIDDEN, SEV_WARNING, LAYER_GUEST, "SQL01", "C:", 0),
	};
	a.f = f;
	a.nf = sizeof f / sizeof f[0];
	a.verdict_first = -1;
	struct action_list l;
	actions_of(&a, &l);
	ck_assert_int_eq(l.n, 2);
	ck_assert_ptr_nonnull(strstr(l.act[0].what, "QUEUE FULL for naa.624a93708c1f4e2b1102000067bf1af7 on hosts esx01, esx02,"));
	ck_assert_int_eq(l.act[0].nwhy, 4); /* the full device queue is the QUEUE FULL's consequence */
	ck_assert_ptr_nonnull(strstr(l.act[1].what, "busy disks of SQL01 (D:)"));
	ck_assert_ptr_null(strstr(l.act[1].what, "C:")); /* idle: not moved */
	ck_assert_int_eq(l.act[1].nwhy, 2);
	actions_free(&l);
	a.f = NULL;
	a.nf = 0;
	analysis_free(&a);
}
END_TEST

/* The move to PVSCSI is worded from the controller the findings show: never "move to PVSCSI" for a
 * disk on PVSCSI, never "from LSI Logic SAS" when the captures do not tell the controller. */
START_TEST(pvscsi_step_follows_the_controller)
{
	static const struct {
		enum vctrl k;
		const char *want, *never;
	} cases[] = {
		{VC_LSI, "from the LSI Logic SAS controller to VMware Paravirtual", "MaxQueueDepth 254 per disk"},
		{VC_PVSCSI, "MaxQueueDepth 254 per disk", "from the LSI"},
		{VC_PVSCSI_RAISED, "queue depth is already raised", "from the LSI"},
		{VC_UNKNOWN, "the captures do not show it: if it is LSI Logic SAS", "from the LSI"},
		{VC_SATA, "from the SATA controller", "from the LSI"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct analysis a;
		analysis_init(&a);
		struct finding f[] = {
			fake(K_Q_GUEST_VSCSI_CAP, SEV_CRITICAL, LAYER_VSCSI, "SQL01", "D:", 84),
			fake(K_Q_GUEST_HIDDEN, SEV_WARNING, LAYER_GUEST, "SQL01", "D:", 84),
		};
		f[0].ctrl = cases[i].k;
		a.f = f;
		a.nf = 2;
		a.verdict_first = -1;
		struct action_list l;
		actions_of(&a, &l);
		ck_assert_int_eq(l.n, 1);
		ck_assert_msg(strstr(l.act[0].what, cases[i].want), "%d: %s", (int)cases[i].k, l.act[0].what);
		ck_assert_msg(!strstr(l.act[0].what, cases[i].never), "%d: %s", (int)cases[i].k, l.act[0].what);
		actions_free(&l);
		a.f = NULL;
		a.nf = 0;
		analysis_free(&a);
	}
}
END_TEST

static const char *step_with(const struct action_list *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (strstr(l->act[i].what, s))
			return l->act[i].what;
	return NULL;
}

/* unchanged latency at materially more work: keep the change, not "it did nothing" */
START_TEST(compare_keeps_capacity_gain)
{
	struct compare c;
	compare_init(&c);
	c.sum.outcome = CO_UNCHANGED;
	c.sum.capacity_gain = true;
	struct action_list l;
	compare_actions_of(&c, &l);
	ck_assert_int_eq(l.n, 1);
	ck_assert_ptr_nonnull(step_with(&l, "a capacity gain"));
	ck_assert_ptr_null(step_with(&l, "did not move its latency"));
	actions_free(&l);
	compare_free(&c);
}
END_TEST

/* the bottleneck moved down a layer: the verdict's "check the array before raising queue depths" */
START_TEST(compare_keeps_moved_down_advice)
{
	struct compare c;
	compare_init(&c);
	c.sum.outcome = CO_IMPROVED;
	c.sum.moved_down = "naa.600";
	struct action_list l;
	compare_actions_of(&c, &l);
	ck_assert_int_eq(l.n, 2);
	/* improved: keep the change first (issue 35), then the array before any deeper queue */
	ck_assert_ptr_nonnull(strstr(l.act[0].what, "Keep the change"));
	ck_assert_ptr_nonnull(strstr(l.act[1].what, "Check the array behind naa.600 before raising queue depths further"));
	actions_free(&l);
	compare_free(&c);
}
END_TEST

Suite *actions_suite(void)
{
	Suite *s = suite_create("actions");
	TCase *tc = tcase_create("actions");
	tcase_add_test(tc, every_kind_says_its_step);
	tcase_add_test(tc, one_step_per_lu_across_hosts);
	tcase_add_test(tc, pvscsi_step_follows_the_controller);
	tcase_add_test(tc, compare_keeps_capacity_gain);
	tcase_add_test(tc, compare_keeps_moved_down_advice);
	suite_add_tcase(s, tc);
	return s;
}
