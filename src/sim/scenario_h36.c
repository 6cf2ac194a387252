/* scenario_h36.c — scenarios beyond FC and SCSI (issue 36): one software iSCSI adapter whose
 * second bound vmknic is slow. Each builds its truth like the others (build.h). */
#include "build.h"

#include <math.h>
#include <stdio.h>

/* A host whose SAN LUNs all go through one software iSCSI adapter (vmhba64) bound to two vmknics:
 * every LUN has a path on channel C0 and one on C1 (round robin), sw iSCSI's LUN queue of 128. */
static struct sc_host iscsi_host(struct sim_config *c)
{
	struct sc_host h;
	snprintf(c->host, sizeof c->host, "esx01.lab.local");
	c->pcpus = 16;
	h.hba0 = sc_add_adapter(c, "vmhba0", 31, true);
	h.hba2 = h.hba3 = sc_add_adapter(c, "vmhba64", 1024, false);
	sc_add_local_boot(c, h.hba0);
	return h;
}

/* Software iSCSI with port binding: the vmknic of channel C1 (its uplink, switch port or MTU)
 * adds ~30 ms to every command through it over 20-90 % of the capture, while C0 answers in ~1 ms
 * on the same LUNs: one finding on vmhba64:C1, not three slow LUNs for the array. */
void sc_build_iscsi_vmknic(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = iscsi_host(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	sc_set_load(s.c, 4, 20, 0.5, 8, 8);
	sc_set_load(s.d, 12, 8, 0.7, 8, 8);
	sc_set_load(s.f, 4, 10, 0.5, 64, 64);
	sc_bystander(c, &h);
	for (int d = 0; d < c->ndev; d++) {
		if (c->dev[d].local)
			continue;
		c->dev[d].dqlen = 128;
		c->dev[d].chan1_add_ms = 30;
		c->dev[d].chan1_t0 = 0.2;
		c->dev[d].chan1_t1 = 0.9;
	}
	sc_expect(c, "latency.path", "vmhba64:C1", NULL, 0.2, 0.9);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.hba", "latency.datastore", "path.change", NULL);
	c->tx.note = "every LUN's C1 path (the second vmknic) answers ~30 ms slower than its C0 path: a network "
		     "path inside the adapter, not the LUNs or the array";
}
