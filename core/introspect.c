/* SPDX-License-Identifier: BSD-3-Clause */
/* Introspection for tools (rmp_info, the MPI_T layer): the parameter tables by
 * index, and the point-to-point counters. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "mt.h"
#include "peer.h"
#include "rmpi.h"

/* Parameter index -> its table entry and where its value lives. */
static int introspect_find(rmpi_engine_t *e, int index, const rmpi_param_t **p,
                           rmpi_param_set_t *set)
{
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int n = rmpi_config_sets(&e->cfg, sets);
    if (index < 0)
        return RMP_ERR_ARG;
    for (int s = 0; s < n; s++) {
        for (const rmpi_param_t *q = sets[s].params; q->name; q++) {
            if (index-- == 0) {
                *p = q;
                if (set)
                    *set = sets[s];
                return RMP_SUCCESS;
            }
        }
    }
    return RMP_ERR_ARG;
}

RMP_EXPORT int rmp_param_count(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int n = rmpi_config_sets(&e->cfg, sets), count = 0;
    for (int s = 0; s < n; s++)
        for (const rmpi_param_t *q = sets[s].params; q->name; q++)
            count++;
    return count;
}

static size_t introspect_size(const rmpi_param_t *p)
{
    switch (p->type) {
    case RMPI_PT_SIZE: return sizeof(size_t);
    case RMPI_PT_DOUBLE: return sizeof(double);
    case RMPI_PT_STRING: return p->size;
    default: return sizeof(int);
    }
}

RMP_EXPORT int rmp_param_get_info(int index, rmp_param_info_t *info)
{
    rmpi_engine_t *e = &rmpi_eng;
    const rmpi_param_t *p;
    rmpi_param_set_t set;
    if (!info || introspect_find(e, index, &p, &set) != RMP_SUCCESS)
        return RMP_ERR_ARG;
    static const int types[] = {
        [RMPI_PT_BOOL] = RMP_PARAM_BOOL,     [RMPI_PT_INT] = RMP_PARAM_INT,
        [RMPI_PT_SIZE] = RMP_PARAM_SIZE,     [RMPI_PT_DOUBLE] = RMP_PARAM_DOUBLE,
        [RMPI_PT_STRING] = RMP_PARAM_STRING, [RMPI_PT_ENUM] = RMP_PARAM_ENUM,
    };
    *info = (rmp_param_info_t){p->name,   set.owner,       p->help, p->defval,
                               p->choices, types[p->type], introspect_size(p)};
    return RMP_SUCCESS;
}

/* Copy the value of p found in values into buf (bool widened to int). */
static void introspect_copy(const void *values, const rmpi_param_t *p, void *buf)
{
    const char *src = (const char *)values + p->offset;
    if (p->type == RMPI_PT_BOOL) {
        int v = *(const bool *)src;
        memcpy(buf, &v, sizeof(v));
    } else if (p->type == RMPI_PT_STRING) {
        size_t n = strnlen(src, p->size - 1);
        memcpy(buf, src, n);
        ((char *)buf)[n] = '\0';
    } else {
        memcpy(buf, src, introspect_size(p));
    }
}

RMP_EXPORT int rmp_param_read(int index, void *buf, size_t len)
{
    rmpi_engine_t *e = &rmpi_eng;
    const rmpi_param_t *p;
    rmpi_param_set_t set;
    if (!buf || introspect_find(e, index, &p, &set) != RMP_SUCCESS || len < introspect_size(p))
        return RMP_ERR_ARG;
    if (__atomic_load_n(&e->thr.state, __ATOMIC_ACQUIRE) != RMPI_STATE_NONE) {
        introspect_copy(set.values, p, buf);
        return RMP_SUCCESS;
    }
    /* Not parsed yet: parse this one variable as rmp_init would, into a scratch
     * copy laid out like its owner's struct (the live one stays untouched). */
    char *scratch = calloc(1, p->offset + introspect_size(p) + sizeof(double));
    if (!scratch)
        return RMP_ERR_NOMEM;
    const char *env = getenv(p->name);
    if (!env || rmpi_config_set(scratch, p, env) != RMP_SUCCESS)
        rmpi_config_set(scratch, p, p->defval);
    introspect_copy(scratch, p, buf);
    free(scratch);
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_stats_get(rmp_stats_t *st)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (!st)
        return RMP_ERR_ARG;
    rmpi_mt_enter(e);
    const rmpi_stats_t *s = &e->stats;
    *st = (rmp_stats_t){
        .msgs_sent = s->eager_sent + s->rndv_sent + s->frag_sent,
        .bytes_sent = s->eager_bytes + s->rndv_bytes + s->frag_bytes,
        .eager_sent = s->eager_sent,
        .eager_bytes = s->eager_bytes,
        .rndv_sent = s->rndv_sent,
        .rndv_bytes = s->rndv_bytes,
        .frag_sent = s->frag_sent,
        .frag_bytes = s->frag_bytes,
        .msgs_recvd = s->recvd,
        .bytes_recvd = s->recvd_bytes,
        .unexpected = s->unexpected,
        .unexpected_len = e->p2p.unexp.len,
        .unexpected_high_water = e->p2p.unexp.high_water,
        .posted_len = e->p2p.posted.len,
        .direct_bytes = s->direct_bytes,
    };
    rmpi_mt_leave(e);
    return RMP_SUCCESS;
}
