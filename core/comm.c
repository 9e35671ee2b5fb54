/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators: the world, split and dup. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "log.h"
#include "coll_id.h"
#include "p2p.h"
#include "ulfm.h"
#include "xchg.h"

struct rmp_comm *rmpi_world;
static uint32_t comm_next_cid = 2; /* 0/1: world p2p/collectives */


int rmpi_comm_world_init(void)
{
    rmpi_world = calloc(1, sizeof(*rmpi_world));
    if (!rmpi_world)
        return RMP_ERR_NOMEM;
    rmpi_world->cid = 0;
    rmpi_world->rank = rmpi_g.rank;
    rmpi_world->size = rmpi_g.size;
    rmpi_world->world = NULL;
    return RMP_SUCCESS;
}

void rmpi_comm_retain(struct rmp_comm *c)
{
    __atomic_fetch_add(&c->holds, 1, __ATOMIC_RELAXED);
}

/* The owner's destroy is one more release: holds counts references minus one. */
void rmpi_comm_release(struct rmp_comm *c)
{
    rmpi_comm_destroy(c);
}

int rmpi_comm_check_slow(rmp_comm_t comm)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!comm)
        return RMP_ERR_ARG;
    return rmpi_ulfm_revoked(comm) ? RMP_ERR_REVOKED : RMP_SUCCESS;
}

uint32_t rmpi_comm_next_cid(void)
{
    return comm_next_cid;
}

void rmpi_comm_cid_taken(uint32_t cid)
{
    if (cid > comm_next_cid)
        comm_next_cid = cid;
}

void rmpi_comm_destroy(struct rmp_comm *c)
{
    if (__atomic_fetch_sub(&c->holds, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    rmpi_ulfm_forget(c->cid);
    if (c->coll_priv && c->coll_priv_free)
        c->coll_priv_free(c->coll_priv);
    free(c->world);
    free(c);
}

void rmpi_comm_world_fini(void)
{
    if (rmpi_world)
        rmpi_comm_destroy(rmpi_world);
    rmpi_world = NULL;
}

RMP_EXPORT rmp_comm_t rmp_comm_world(void)
{
    return rmpi_g.state == RMPI_STATE_INIT ? rmpi_world : RMP_COMM_NULL;
}

RMP_EXPORT int rmp_comm_rank(rmp_comm_t comm)
{
    int rc = rmpi_comm_check_local(comm);
    return rc != RMP_SUCCESS ? rc : comm->rank;
}

RMP_EXPORT int rmp_comm_size(rmp_comm_t comm)
{
    int rc = rmpi_comm_check_local(comm);
    return rc != RMP_SUCCESS ? rc : comm->size;
}

typedef struct comm_split_entry {
    int32_t color, key, rank;
    uint32_t next_cid;
} comm_split_entry_t;

static int comm_entry_cmp(const void *a, const void *b)
{
    const comm_split_entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

RMP_EXPORT int rmp_comm_split(rmp_comm_t comm, int color, int key, rmp_comm_t *newcomm)
{
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!newcomm || (color < 0 && color != RMP_UNDEFINED))
        return RMP_ERR_ARG;
    int n = comm->size;
    comm_split_entry_t *all = calloc((size_t)n, sizeof(*all));
    struct rmp_comm *c = NULL;
    if (!all)
        return RMP_ERR_NOMEM;
    all[comm->rank] = (comm_split_entry_t){color, key, comm->rank, comm_next_cid};
    rc = rmpi_xchg_allgather(comm, RMPI_TAG_CORE_SPLIT, all, sizeof(*all));
    if (rc != RMP_SUCCESS)
        goto out_free;
    /* The entries come from the peers: a rank that is not its sender's
     * would index past the member table below. */
    for (int r = 0; r < n; r++)
        if (all[r].rank != r) {
            rmpi_error("comm_split: malformed entry from rank %d", r);
            rc = RMP_ERR_TRANSPORT;
            goto out_free;
        }
    /* Every member agrees on the new context: the largest next cid seen. */
    uint32_t cid = 0;
    for (int r = 0; r < n; r++)
        if (all[r].next_cid > cid)
            cid = all[r].next_cid;
    comm_next_cid = cid + 2;
    if (color == RMP_UNDEFINED) {
        *newcomm = RMP_COMM_NULL;
        goto out_free;
    }
    int m = 0;
    for (int r = 0; r < n; r++)
        if (all[r].color == color)
            all[m++] = all[r];
    qsort(all, (size_t)m, sizeof(*all), comm_entry_cmp);
    c = calloc(1, sizeof(*c));
    if (!c || !(c->world = malloc((size_t)m * sizeof(int)))) {
        rc = RMP_ERR_NOMEM;
        goto out_free;
    }
    c->cid = cid;
    c->size = m;
    for (int i = 0; i < m; i++) {
        c->world[i] = rmpi_comm_world_rank(comm, all[i].rank);
        if (all[i].rank == comm->rank)
            c->rank = i;
    }
    *newcomm = c;
    c = NULL;
out_free:
    if (c)
        rmpi_comm_destroy(c);
    free(all);
    return rc;
}

RMP_EXPORT int rmp_comm_dup(rmp_comm_t comm, rmp_comm_t *newcomm)
{
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    return rmp_comm_split(comm, 0, comm->rank, newcomm);
}

RMP_EXPORT int rmp_comm_free(rmp_comm_t *comm)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!comm || !*comm || *comm == rmpi_world)
        return RMP_ERR_ARG;
    rmpi_comm_destroy(*comm);
    *comm = RMP_COMM_NULL;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_comm_set_user(rmp_comm_t comm, void *user)
{
    int rc = rmpi_comm_check_local(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    comm->user = user;
    return RMP_SUCCESS;
}

RMP_EXPORT void *rmp_comm_user(rmp_comm_t comm)
{
    return rmpi_comm_check_local(comm) == RMP_SUCCESS ? comm->user : NULL;
}

RMP_EXPORT int rmp_comm_world_rank(rmp_comm_t comm, int rank)
{
    int rc = rmpi_comm_check_local(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (rank < 0 || rank >= comm->size)
        return RMP_ERR_ARG;
    return rmpi_comm_world_rank(comm, rank);
}

RMP_EXPORT int rmp_node_id(void)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    int id = rmpi_g.node_of[rmpi_g.rank];
    /* bootstrap numbers a node it could not identify below zero */
    return id >= 0 ? id : 2000000 + rmpi_g.rank;
}

RMP_EXPORT int rmp_comm_create_group(rmp_comm_t comm, int n, const int ranks[], int tag,
                                     rmp_comm_t *newcomm)
{
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (n < 1 || n > comm->size || !ranks || !newcomm || tag < 0)
        return RMP_ERR_ARG;
    int me = -1;
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= comm->size)
            return RMP_ERR_ARG;
        if (ranks[i] == comm->rank)
            me = i;
        for (int j = 0; j < i; j++)
            if (ranks[j] == ranks[i])
                return RMP_ERR_ARG;
    }
    if (me < 0)
        return RMP_ERR_ARG;
    comm_split_entry_t *all = calloc((size_t)n, sizeof(*all));
    struct rmp_comm *c = NULL;
    if (!all)
        return RMP_ERR_NOMEM;
    all[me] = (comm_split_entry_t){0, 0, comm->rank, comm_next_cid};
    rc = rmpi_xchg_allgather_among(comm, n, ranks, me,
                                   RMPI_TAG_CORE_GROUP + (tag & RMPI_TAG_CORE_GROUP_MASK), all,
                                   sizeof(*all));
    for (int i = 0; i < n && rc == RMP_SUCCESS; i++)
        if (all[i].rank != ranks[i]) {
            rmpi_error("comm_create_group: malformed entry from rank %d", ranks[i]);
            rc = RMP_ERR_TRANSPORT;
        }
    if (rc != RMP_SUCCESS)
        goto out_free;
    /* The largest next cid of the members is above every cid any of them uses. */
    uint32_t cid = 0;
    for (int i = 0; i < n; i++)
        if (all[i].next_cid > cid)
            cid = all[i].next_cid;
    comm_next_cid = cid + 2;
    c = calloc(1, sizeof(*c));
    if (!c || !(c->world = malloc((size_t)n * sizeof(int)))) {
        rc = RMP_ERR_NOMEM;
        goto out_free;
    }
    c->cid = cid;
    c->size = n;
    c->rank = me;
    for (int i = 0; i < n; i++)
        c->world[i] = rmpi_comm_world_rank(comm, ranks[i]);
    *newcomm = c;
    c = NULL;
out_free:
    if (c)
        rmpi_comm_destroy(c);
    free(all);
    return rc;
}
