/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators: the world, split and dup. */
#include <stdlib.h>
#include <string.h>

#include "cid.h"
#include "comm.h"
#include "log.h"
#include "coll_id.h"
#include "p2p.h"
#include "ulfm.h"
#include "xchg.h"



int rmpi_comm_world_init(rmpi_engine_t *e)
{
    return rmpi_comm_new(e, 0, e->job.size, e->job.rank, 0, &e->world);
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

int rmpi_comm_node_of(const struct rmp_comm *c, int r)
{
    rmpi_engine_t *e = &rmpi_eng;
    return e->job.node_of[rmpi_comm_world_rank(c, r)];
}

int rmpi_comm_check_slow(rmp_comm_t comm)
{
    /* Another thread at SERIALIZED or more, nothing revoked: what the fast test says. */
    if (RMPI_LIKELY(__atomic_load_n(&rmpi_any_thread, __ATOMIC_RELAXED)) && comm)
        return RMP_SUCCESS;
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!comm)
        return RMP_ERR_ARG;
    return rmpi_ulfm_revoked(e, comm) ? RMP_ERR_REVOKED : RMP_SUCCESS;
}

void rmpi_comm_destroy(struct rmp_comm *c)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (__atomic_fetch_sub(&c->holds, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    rmpi_ulfm_forget(e, c->cid);
    if (c->coll_priv && c->coll_priv_free)
        c->coll_priv_free(c->coll_priv);
    free(c->world);
    free(c);
}

void rmpi_comm_world_fini(rmpi_engine_t *e)
{
    if (e->world)
        rmpi_comm_destroy(e->world);
    e->world = NULL;
}

RMP_EXPORT rmp_comm_t rmp_comm_world(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    return e->thr.state == RMPI_STATE_INIT ? e->world : RMP_COMM_NULL;
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

/* What each member of a split tells the others (beside core/cid.c's own header). */
typedef struct comm_split_entry {
    int32_t color, key, rank;
} comm_split_entry_t;

static int comm_entry_cmp(const void *a, const void *b)
{
    const comm_split_entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int rmpi_comm_new(rmpi_engine_t *e, uint32_t cid, int n, int rank, int with_world,
                  struct rmp_comm **out)
{
    struct rmp_comm *c = calloc(1, sizeof(*c));
    if (!c || (with_world && !(c->world = malloc((size_t)(n > 0 ? n : 1) * sizeof(int))))) {
        free(c);
        return RMP_ERR_NOMEM;
    }
    c->cid = cid;
    c->size = n;
    c->rank = rank;
    c->peers_failed = &e->p2p.nfailed;
    *out = c;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_comm_split(rmp_comm_t comm, int color, int key, rmp_comm_t *newcomm)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!newcomm || (color < 0 && color != RMP_UNDEFINED))
        return RMP_ERR_ARG;
    int n = comm->size;
    comm_split_entry_t mine = {color, key, comm->rank}, *all = calloc((size_t)n, sizeof(*all));
    rmpi_cid_agree_t *a = NULL;
    struct rmp_comm *c = NULL;
    if (!all)
        return RMP_ERR_NOMEM;
    rc = rmpi_cid_agree(comm, n, NULL, comm->rank, RMPI_TAG_CORE_SPLIT, &mine, sizeof(mine),
                        &a);
    if (rc != RMP_SUCCESS)
        goto out_free;
    for (int r = 0; r < n; r++)
        memcpy(&all[r], rmpi_cid_payload(a, r), sizeof(*all));
    /* The entries come from the peers: a rank that is not its sender's
     * would index past the member table below. */
    for (int r = 0; r < n; r++)
        if (all[r].rank != r) {
            rmpi_error("comm_split: malformed entry from rank %d", r);
            rc = RMP_ERR_TRANSPORT;
            goto out_free;
        }
    if (color == RMP_UNDEFINED) {
        *newcomm = RMP_COMM_NULL;
        goto out_free;
    }
    int m = 0;
    for (int r = 0; r < n; r++)
        if (all[r].color == color)
            all[m++] = all[r];
    qsort(all, (size_t)m, sizeof(*all), comm_entry_cmp);
    rc = rmpi_comm_new(e, rmpi_cid_value(a), m, 0, 1, &c);
    if (rc != RMP_SUCCESS)
        goto out_free;
    for (int i = 0; i < m; i++) {
        c->world[i] = rmpi_comm_world_rank(comm, all[i].rank);
        if (all[i].rank == comm->rank)
            c->rank = i;
    }
    *newcomm = c;
out_free:
    rmpi_cid_free(e, a);
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

/* rmp_comm_idup's completion, in the progress engine: the copy of the parent. */
static int comm_idup_done(rmpi_cid_agree_t *a)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmp_comm_t p = rmpi_cid_parent(a), c = NULL;
    int rc = rmpi_comm_new(e, rmpi_cid_value(a), p->size, p->rank, 1, &c);
    if (rc != RMP_SUCCESS)
        return rc;
    for (int i = 0; i < p->size; i++)
        c->world[i] = rmpi_comm_world_rank(p, i);
    *(rmp_comm_t *)rmpi_cid_arg(a) = c;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_comm_idup(rmp_comm_t comm, rmp_comm_t *newcomm, rmp_request_t *req)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!newcomm || !req)
        return RMP_ERR_ARG;
    *newcomm = RMP_COMM_NULL;
    /* a collective call on comm: its own number among the collectives there, so that
     * overlapping idups and other collectives never take each other's messages */
    return rmpi_cid_start(e, comm, comm->size, NULL, comm->rank, rmpi_coll_next_tag(comm), NULL,
                          0, comm_idup_done, newcomm, 1, req, NULL);
}

RMP_EXPORT int rmp_comm_free(rmp_comm_t *comm)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!comm || !*comm || *comm == e->world)
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
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    int id = e->job.node_of[e->job.rank];
    /* bootstrap numbers a node it could not identify below zero */
    return id >= 0 ? id : 2000000 + e->job.rank;
}

RMP_EXPORT int rmp_node_ranks(int *ranks, int max, int *n)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!n || (!ranks && max > 0))
        return RMP_ERR_ARG;
    /* the partition of rmp_node_id: a rank whose node is unknown is alone on its own */
    int me = e->job.rank, id = e->job.node_of[me], k = 0;
    for (int r = 0; r < e->job.size; r++)
        if (r == me || (id >= 0 && e->job.node_of[r] == id)) {
            if (k < max)
                ranks[k] = r;
            k++;
        }
    *n = k;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_comm_create_group(rmp_comm_t comm, int n, const int ranks[], int tag,
                                     rmp_comm_t *newcomm)
{
    rmpi_engine_t *e = &rmpi_eng;
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
    rmpi_cid_agree_t *a = NULL;
    rc = rmpi_cid_agree(comm, n, ranks, me,
                        RMPI_TAG_CORE_GROUP + (tag & RMPI_TAG_CORE_GROUP_MASK), NULL, 0, &a);
    if (rc != RMP_SUCCESS)
        return rc;
    struct rmp_comm *c = NULL;
    rc = rmpi_comm_new(e, rmpi_cid_value(a), n, me, 1, &c);
    rmpi_cid_free(e, a);
    if (rc != RMP_SUCCESS)
        return rc;
    for (int i = 0; i < n; i++)
        c->world[i] = rmpi_comm_world_rank(comm, ranks[i]);
    *newcomm = c;
    return RMP_SUCCESS;
}
