/* SPDX-License-Identifier: BSD-3-Clause */
/* Topology: the only module that talks hwloc. */
#ifndef RMPI_TOPO_H
#define RMPI_TOPO_H

#include <stddef.h>

/* "0-1" style list of the CPUs this process is bound to. */
int rmpi_topo_binding(char *buf, size_t len);
/* One-line summary: packages, NUMA nodes, cores, PUs. */
int rmpi_topo_summary(char *buf, size_t len);
/* Cores available to this machine (for oversubscription decisions). */
int rmpi_topo_num_cores(void);
void rmpi_topo_hwloc_version(char *buf, size_t len);

#endif
