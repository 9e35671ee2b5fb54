/* SPDX-License-Identifier: BSD-3-Clause */
/* Binding ranks to cores or NUMA nodes with hwloc. Plans are computed in the
 * parent (hwloc allocates); the child only calls sched_setaffinity. */
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rrun.h"

static hwloc_topology_t bind_topo;
static cpu_set_t *bind_sets; /* per rank; NULL entries: unbound */
static bool *bind_has;
static int bind_np;

int rrun_bind_init(void)
{
    if (hwloc_topology_init(&bind_topo) != 0 || hwloc_topology_load(bind_topo) != 0)
        return -1;
    return 0;
}

void *rrun_bind_topology(void)
{
    return bind_topo;
}

int rrun_bind_ncores(void)
{
    int n = hwloc_get_nbobjs_by_type(bind_topo, HWLOC_OBJ_CORE);
    return n > 0 ? n : 1;
}

static int bind_grow(int rank)
{
    if (rank < bind_np)
        return 0;
    int n = rank + 1;
    cpu_set_t *s = realloc(bind_sets, (size_t)n * sizeof(*s));
    if (!s)
        return -1;
    bind_sets = s;
    bool *h = realloc(bind_has, (size_t)n * sizeof(*h));
    if (!h)
        return -1;
    bind_has = h;
    for (int i = bind_np; i < n; i++)
        bind_has[i] = false;
    bind_np = n;
    return 0;
}

int rrun_bind_plan(int rank, int mode, char *desc, size_t len)
{
    if (bind_grow(rank) != 0)
        return -1;
    if (mode == RRUN_BIND_NONE) {
        snprintf(desc, len, "none");
        return 0;
    }
    hwloc_obj_type_t type = mode == RRUN_BIND_NUMA ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_CORE;
    int n = hwloc_get_nbobjs_by_type(bind_topo, type);
    if (n <= 0) {
        snprintf(desc, len, "none");
        return 0;
    }
    hwloc_obj_t obj = hwloc_get_obj_by_type(bind_topo, type, (unsigned)(rank % n));
    hwloc_const_cpuset_t set = obj->cpuset;
    CPU_ZERO(&bind_sets[rank]);
    int id;
    hwloc_bitmap_foreach_begin(id, set)
    {
        if (id < CPU_SETSIZE)
            CPU_SET(id, &bind_sets[rank]);
    }
    hwloc_bitmap_foreach_end();
    bind_has[rank] = true;
    char pus[64];
    hwloc_bitmap_list_snprintf(pus, sizeof(pus), set);
    snprintf(desc, len, "%s %u (cpus %s)", mode == RRUN_BIND_NUMA ? "numa" : "core",
             obj->logical_index, pus);
    return 0;
}

void rrun_bind_apply(int rank)
{
    if (rank < bind_np && bind_has[rank])
        sched_setaffinity(0, sizeof(cpu_set_t), &bind_sets[rank]);
}

void rrun_bind_fini(void)
{
    free(bind_sets);
    free(bind_has);
    bind_sets = NULL;
    bind_has = NULL;
    bind_np = 0;
    if (bind_topo)
        hwloc_topology_destroy(bind_topo);
    bind_topo = NULL;
}
