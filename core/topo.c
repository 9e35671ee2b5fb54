/* SPDX-License-Identifier: BSD-3-Clause */
/* hwloc queries used by the runtime and rmp_info. Loaded lazily: topology
 * discovery costs milliseconds, and most jobs only need the core count. */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rmpi.h"
#include "topo.h"

static int topo_load(hwloc_topology_t *t)
{
    if (hwloc_topology_init(t) != 0)
        return RMP_ERR_INTERNAL;
    if (hwloc_topology_load(*t) != 0) {
        hwloc_topology_destroy(*t);
        return RMP_ERR_INTERNAL;
    }
    return RMP_SUCCESS;
}

int rmpi_topo_binding(char *buf, size_t len)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return RMP_ERR_NOMEM;
    /* No topology needed to ask the kernel for our affinity. */
    hwloc_topology_t t;
    int rc = topo_load(&t);
    if (rc == RMP_SUCCESS) {
        if (hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) == 0)
            hwloc_bitmap_list_snprintf(buf, len, set);
        else
            rc = RMP_ERR_INTERNAL;
        hwloc_topology_destroy(t);
    }
    hwloc_bitmap_free(set);
    return rc;
}

int rmpi_topo_summary(char *buf, size_t len)
{
    hwloc_topology_t t;
    int rc = topo_load(&t);
    if (rc != RMP_SUCCESS)
        return rc;
    snprintf(buf, len, "%d package(s), %d NUMA node(s), %d core(s), %d PU(s)",
             hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE),
             hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE),
             hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE),
             hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU));
    hwloc_topology_destroy(t);
    return RMP_SUCCESS;
}

int rmpi_topo_num_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void rmpi_topo_hwloc_version(char *buf, size_t len)
{
    unsigned api = hwloc_get_api_version();
    snprintf(buf, len, "%u.%u.%u", api >> 16, (api >> 8) & 0xff, api & 0xff);
}
