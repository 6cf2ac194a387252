/* cmd_simulate.h — `iopsy simulate`: writes paired esxtop/perfmon captures (plus vmkernel.log,
 * partitions.txt, disks.map and truth.json) from a queueing model of SQL Server on VMware. */
#ifndef IOPSY_CMD_SIMULATE_H
#define IOPSY_CMD_SIMULATE_H

/* Entry point of the subcommand; argv[0] is "simulate". Returns an exit code (0 ok, 2 usage,
 * 4 system error); prints diagnostics prefixed "iopsy: " to stderr; never calls exit(). */
int sim_main(int argc, char **argv);

#endif
