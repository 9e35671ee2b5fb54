/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators: the predefined ones, rank/size, dup, split, create, free,
 * compare, names. */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_dyn.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"

mpii_comm_t mpii_comm_world = {.magic = MPII_MAGIC_COMM, .key = 1, .name = "MPI_COMM_WORLD"};
mpii_comm_t mpii_comm_self = {.magic = MPII_MAGIC_COMM, .key = 2, .name = "MPI_COMM_SELF"};
static mpii_pool_t comm_pool = MPII_POOL_INIT(mpii_comm_t);

uint64_t mpii_key_mix(uint64_t a, uint64_t b)
{
    uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t mpii_comm_child_key(mpii_comm_t *parent)
{
    return mpii_key_mix(parent->key, ++parent->nchild);
}

MPI_Comm mpii_comm_handle(mpii_comm_t *c)
{
    if (c == &mpii_comm_world)
        return MPI_COMM_WORLD;
    if (c == &mpii_comm_self)
        return MPI_COMM_SELF;
    return (MPI_Comm)c;
}

int mpii_comm_wrap(rmp_comm_t rc, const mpii_comm_t *parent, mpii_comm_t **out)
{
    mpii_comm_t *c = mpii_obj_new(&comm_pool, MPII_MAGIC_COMM);
    if (!c) {
        rmp_comm_free(&rc);
        return MPI_ERR_NO_MEM;
    }
    c->rc = rc;
    rmp_comm_set_user(rc, c); /* a request's status names its rmp communicator */
    c->rank = rmp_comm_rank(rc);
    c->size = rmp_comm_size(rc);
    mpii_part_comm_new(c);
    c->errh = parent->errh;
    mpii_errh_retain(c->errh);
    c->sbs = parent->sbs; /* derived from the same session */
    *out = c;
    return MPI_SUCCESS;
}

void mpii_comm_destroy(mpii_comm_t *c)
{
    if (c == mpii_dyn_parent) /* MPI_Comm_get_parent answers MPI_COMM_NULL from now on */
        mpii_dyn_parent = NULL;
    mpii_bsend_comm_free(c);
    if (c->coll_priv && c->coll_priv_free)
        c->coll_priv_free(c->coll_priv);
    mpii_topo_free(c->topo);
    mpii_inter_free(c->inter);
    mpii_group_release(c->group);
    mpii_errh_release(c->errh);
    if (c->rc)
        rmp_comm_free(&c->rc);
    mpii_obj_free(&comm_pool, c);
}

int mpii_comm_world_rank(const mpii_comm_t *c, int rank)
{
    if (c == &mpii_comm_world)
        return rank;
    if (c == &mpii_comm_self)
        return mpii_comm_world.rank;
    if (c->inter)
        return mpii_inter_world_rank(c, rank);
    return rmp_comm_world_rank(c->rc, rank);
}

#define COMM_GET(h, c, fn)                                                          \
    mpii_check_init(fn);                                                            \
    mpii_comm_t *c = mpii_comm(h);                                                  \
    if (MPII_UNLIKELY(!c))                                                          \
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator %p", (void *)(h));

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    COMM_GET(comm, c, "MPI_Comm_rank");
    if (!rank)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_rank)

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    COMM_GET(comm, c, "MPI_Comm_size");
    if (!size)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_size)

/* A new communicator from a split of c; *out is MPI_COMM_NULL for color UNDEFINED. */
static int comm_split(mpii_comm_t *c, int color, int key, MPI_Comm *out, const char *fn)
{
    uint64_t ckey = mpii_comm_child_key(c);
    if (c->inter) {
        mpii_comm_t *ic = NULL;
        int err = mpii_inter_split(c, color, key, &ic);
        if (err != MPI_SUCCESS)
            return mpii_err_comm(c, err, fn, "could not split the intercommunicator");
        if (ic)
            ic->key = ckey;
        *out = ic ? mpii_comm_handle(ic) : MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    rmp_comm_t rc = RMP_COMM_NULL;
    int st = rmp_comm_split(c->rc, color, key, &rc);
    if (st != RMP_SUCCESS)
        return mpii_err_comm(c, mpii_err_from_rmp(st), fn, "%s", rmp_strerror(st));
    if (!rc) {
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    mpii_comm_t *n;
    int err = mpii_comm_wrap(rc, c, &n);
    if (err != MPI_SUCCESS)
        return mpii_err_comm(c, err, fn, "out of memory");
    n->key = ckey;
    *out = mpii_comm_handle(n);
    return MPI_SUCCESS;
}

/* The same group on a new context, without topology or attributes (also a persistent
 * collective's private context: coll_persist.c). Errors are reported. */
int mpii_comm_dup_bare(mpii_comm_t *c, mpii_comm_t **out, const char *fn)
{
    MPI_Comm h;
    if (c->inter) {
        mpii_comm_t *ic = NULL;
        uint64_t ckey = mpii_comm_child_key(c);
        int err = mpii_inter_dup(c, &ic);
        if (err != MPI_SUCCESS || !ic)
            return mpii_err_comm(c, err != MPI_SUCCESS ? err : MPI_ERR_INTERN, fn,
                                 "could not duplicate the intercommunicator");
        ic->key = ckey;
        h = mpii_comm_handle(ic);
    } else {
        int err = comm_split(c, 0, c->rank, &h, fn);
        if (err != MPI_SUCCESS)
            return err;
    }
    *out = (mpii_comm_t *)h;
    return MPI_SUCCESS;
}

static int comm_dup(MPI_Comm comm, MPI_Comm *newcomm, const char *fn)
{
    COMM_GET(comm, c, fn);
    if (!newcomm)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "newcomm is NULL");
    mpii_comm_t *n;
    int err = mpii_comm_dup_bare(c, &n, fn);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Comm h = mpii_comm_handle(n);
    if (c->topo && (err = mpii_topo_dup(c->topo, &n->topo)) != MPI_SUCCESS)
        goto err_free;
    err = mpii_attr_copy_all(c, n, fn);
    if (err != MPI_SUCCESS)
        goto err_free;
    *newcomm = h;
    return MPI_SUCCESS;
err_free:
    mpii_attr_delete_all(n, fn);
    mpii_comm_destroy(n);
    return mpii_err_comm(c, err, fn, "cannot copy the communicator's topology or attributes");
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return comm_dup(comm, newcomm, "MPI_Comm_dup");
}
MPII_WEAK(Comm_dup)

/* No info key changes how rmp builds a communicator: the info is checked only. */
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_INFO, "MPI_Comm_dup_with_info",
                             "invalid info");
    return comm_dup(comm, newcomm, "MPI_Comm_dup_with_info");
}
MPII_WEAK(Comm_dup_with_info)

/* ---- MPI_Comm_idup ----
 * rmp_comm_idup agrees on the new context in rmp's progress engine (core/cid.c): the
 * call returns at once and the request completes in Wait/Test, overlapping idups on
 * one communicator in call order, idups from several threads at once on different
 * communicators independently. An intercommunicator needs two new contexts (its
 * union's and its collectives'), both idups of its union communicator; the rest is
 * the parent's layout. The new communicator's object exists from the call on; it is
 * filled at completion. */
typedef struct idup_pend {
    mpii_comm_t *parent, *n;
    rmp_comm_t urc, crc;
    rmp_request_t ureq, creq;
    int done, err;
} idup_pend_t;

/* A copy of intercommunicator c over the new union urc and collectives' context crc. */
static int idup_inter(mpii_comm_t *c, rmp_comm_t urc, rmp_comm_t crc, mpii_comm_t **out)
{
    const mpii_inter_t *px = c->inter;
    mpii_inter_t *x = calloc(1, sizeof(*x));
    mpii_comm_t *t = NULL;
    int err = MPI_ERR_NO_MEM;
    if (!x)
        goto fail;
    x->side = px->side;
    x->rsize = px->rsize;
    x->usize = px->usize;
    x->l2u = malloc((size_t)c->size * sizeof(int));
    x->r2u = malloc((size_t)px->rsize * sizeof(int));
    x->u2r = malloc((size_t)px->usize * sizeof(int));
    if (!x->l2u || !x->r2u || !x->u2r)
        goto fail;
    memcpy(x->l2u, px->l2u, (size_t)c->size * sizeof(int));
    memcpy(x->r2u, px->r2u, (size_t)px->rsize * sizeof(int));
    memcpy(x->u2r, px->u2r, (size_t)px->usize * sizeof(int));
    err = mpii_comm_wrap(crc, c, &x->coll);
    crc = RMP_COMM_NULL;
    if (err != MPI_SUCCESS)
        goto fail;
    /* internal: its errors are returned to the intercomm call, which reports them */
    mpii_errh_release(x->coll->errh);
    x->coll->errh = mpii_errh(MPI_ERRORS_RETURN);
    mpii_errh_retain(x->coll->errh);
    err = mpii_comm_wrap(urc, c, &t);
    urc = RMP_COMM_NULL;
    if (err != MPI_SUCCESS)
        goto fail;
    t->rank = c->rank;
    t->size = c->size;
    t->p2p_slow = MPII_P2P_SLOW_INTER;
    t->inter = x;
    *out = t;
    return MPI_SUCCESS;
fail:
    mpii_inter_free(x);
    if (crc)
        rmp_comm_free(&crc);
    if (urc)
        rmp_comm_free(&urc);
    return err;
}

/* The agreed contexts into the object handed out at the call. */
static int idup_fill(idup_pend_t *p)
{
    mpii_comm_t *c = p->parent, *t = NULL;
    rmp_comm_t urc = p->urc, crc = p->crc;
    p->urc = p->crc = RMP_COMM_NULL;
    int err = c->inter ? idup_inter(c, urc, crc, &t) : mpii_comm_wrap(urc, c, &t);
    if (err != MPI_SUCCESS)
        return err;
    if (c->topo)
        err = mpii_topo_dup(c->topo, &t->topo);
    if (err == MPI_SUCCESS)
        err = mpii_attr_copy_all(c, t, "MPI_Comm_idup");
    if (err != MPI_SUCCESS) {
        mpii_attr_delete_all(t, "MPI_Comm_idup");
        mpii_comm_destroy(t);
        return err;
    }
    uint64_t key = p->n->key;
    mpii_errh_release(p->n->errh);
    *p->n = *t; /* the user's handle is p->n: move the new communicator there */
    p->n->key = key;
    rmp_comm_set_user(p->n->rc, p->n);
    mpii_obj_free(&comm_pool, t);
    return MPI_SUCCESS;
}

/* Complete p if its agreements are (wait: until they are). */
static void idup_advance(idup_pend_t *p, int wait)
{
    rmp_request_t *q[2] = {&p->ureq, &p->creq};
    for (int i = 0; i < 2; i++) {
        if (!*q[i])
            continue;
        rmp_status_t st;
        int flag = 1, rc = wait ? rmp_wait(q[i], &st) : rmp_test(q[i], &flag, &st);
        if (rc == RMP_SUCCESS && flag)
            rc = st.error;
        if (rc != RMP_SUCCESS && p->err == MPI_SUCCESS)
            p->err = mpii_err_from_rmp(rc);
        if (rc != RMP_SUCCESS && *q[i])
            rmp_request_free(q[i]); /* gave up waiting: it finishes alone */
        if (*q[i])
            return;
    }
    if (p->err == MPI_SUCCESS)
        p->err = idup_fill(p);
    if (p->urc)
        rmp_comm_free(&p->urc);
    if (p->crc)
        rmp_comm_free(&p->crc);
    p->done = 1;
}

static int idup_poll(mpii_req_t *r)
{
    idup_pend_t *p = r->ctx;
    if (!p->done)
        idup_advance(p, 0);
    if (!p->done)
        return 0;
    r->err = p->err;
    mpii_status_empty(&r->status);
    r->status.MPI_ERROR = p->err;
    return 1;
}

/* Freed before completion (MPI_Request_free): the new communicator is still made. */
static void idup_release(mpii_req_t *r)
{
    idup_pend_t *p = r->ctx;
    if (p && !p->done)
        idup_advance(p, 1);
    free(p);
    r->ctx = NULL;
}

static int comm_idup(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request,
                     const char *fn)
{
    COMM_GET(comm, c, fn);
    if (!request || !newcomm)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "request or newcomm is NULL");
    *request = MPI_REQUEST_NULL;
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_comm(c, MPI_ERR_INFO, fn, "invalid info");
    idup_pend_t *p = calloc(1, sizeof(*p));
    mpii_comm_t *n = p ? mpii_obj_new(&comm_pool, MPII_MAGIC_COMM) : NULL;
    if (!n) {
        free(p);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    n->key = mpii_comm_child_key(c);
    n->errh = c->errh; /* until filled: errors on it go to the parent's handler */
    mpii_errh_retain(n->errh);
    p->parent = c;
    p->n = n;
    int st = rmp_comm_idup(c->rc, &p->urc, &p->ureq);
    if (st == RMP_SUCCESS && c->inter)
        st = rmp_comm_idup(c->rc, &p->crc, &p->creq);
    mpii_req_t *r = st == RMP_SUCCESS ? mpii_req_new_poll(c, idup_poll, idup_release, p) : NULL;
    if (!r) {
        p->err = st != RMP_SUCCESS ? mpii_err_from_rmp(st) : MPI_ERR_NO_MEM;
        idup_advance(p, 1); /* what was started completes on every member, then is freed */
        mpii_errh_release(n->errh);
        mpii_obj_free(&comm_pool, n);
        free(p);
        if (st != RMP_SUCCESS)
            return mpii_err_comm(c, mpii_err_from_rmp(st), fn, "%s", rmp_strerror(st));
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *newcomm = (MPI_Comm)n;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return comm_idup(comm, MPI_INFO_NULL, newcomm, request, "MPI_Comm_idup");
}
MPII_WEAK(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return comm_idup(comm, info, newcomm, request, "MPI_Comm_idup_with_info");
}
MPII_WEAK(Comm_idup_with_info)

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    COMM_GET(comm, c, "MPI_Comm_split");
    if (!newcomm)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_split", "newcomm is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_split", "negative color %d", color);
    return comm_split(c, color == MPI_UNDEFINED ? RMP_UNDEFINED : color, key, newcomm,
                      "MPI_Comm_split");
}
MPII_WEAK(Comm_split)

/* The group is a subgroup of the communicator's (every member passes one, so each
 * finds the error alone and none is left waiting in the split). */
static int comm_group_in(mpii_comm_t *c, const mpii_group_t *g, const char *fn)
{
    if (g->size > c->size)
        return mpii_err_comm(c, MPI_ERR_GROUP, fn, "the group (size %d) is larger than the "
                             "communicator (size %d)", g->size, c->size);
    int nworld = mpii_comm_world.size;
    char *in = calloc((size_t)nworld, 1);
    if (!in)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int r = 0; r < c->size; r++) {
        int w = mpii_comm_world_rank(c, r);
        if (w >= 0 && w < nworld)
            in[w] = 1;
    }
    int bad = -1;
    for (int i = 0; i < g->size && bad < 0; i++)
        if (g->world[i] < 0 || g->world[i] >= nworld || !in[g->world[i]])
            bad = i;
    free(in);
    if (bad >= 0)
        return mpii_err_comm(c, MPI_ERR_GROUP, fn, "rank %d of the group is not a member of "
                             "the communicator", bad);
    return MPI_SUCCESS;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    COMM_GET(comm, c, "MPI_Comm_create");
    mpii_group_t *g = mpii_group(group);
    if (!g)
        return mpii_err_comm(c, MPI_ERR_GROUP, "MPI_Comm_create", "invalid group");
    if (!newcomm)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_create", "newcomm is NULL");
    /* Every member of comm takes part: a split where the group's members share
     * one color and are ordered by their rank in the group. Members may pass
     * different, disjoint groups (MPI-2.2): the color is the group's smallest world
     * rank. An intercomm's two sides pass their own groups: one color for both. */
    if (!c->inter) {
        int err = comm_group_in(c, g, "MPI_Comm_create");
        if (err != MPI_SUCCESS)
            return err;
    }
    int me = mpii_comm_world_rank(c, c->rank), grank = -1, color = 0;
    for (int i = 0; i < g->size; i++) {
        if (g->world[i] == me)
            grank = i;
        if (!c->inter && (i == 0 || g->world[i] < color))
            color = g->world[i];
    }
    return comm_split(c, grank < 0 ? RMP_UNDEFINED : color, grank, newcomm, "MPI_Comm_create");
}
MPII_WEAK(Comm_create)

/* Only the group's members call it: the others are not involved at all. */
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    COMM_GET(comm, c, "MPI_Comm_create_group");
    mpii_group_t *g = mpii_group(group);
    if (!g)
        return mpii_err_comm(c, MPI_ERR_GROUP, "MPI_Comm_create_group", "invalid group");
    if (c->inter)
        return mpii_err_comm(c, MPI_ERR_COMM, "MPI_Comm_create_group",
                             "an intercommunicator is not allowed");
    if (!newcomm || tag < 0 || tag > RMP_TAG_UB)
        return mpii_err_comm(c, !newcomm ? MPI_ERR_ARG : MPI_ERR_TAG, "MPI_Comm_create_group",
                             "NULL newcomm or invalid tag %d", tag);
    if (g->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    /* the group's world ranks as ranks of comm */
    int *ranks = malloc((size_t)g->size * sizeof(int));
    if (!ranks)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, "MPI_Comm_create_group", "out of memory");
    for (int i = 0; i < g->size; i++) {
        ranks[i] = -1;
        for (int r = 0; r < c->size && ranks[i] < 0; r++)
            if (mpii_comm_world_rank(c, r) == g->world[i])
                ranks[i] = r;
        if (ranks[i] < 0) {
            free(ranks);
            return mpii_err_comm(c, MPI_ERR_GROUP, "MPI_Comm_create_group",
                                 "the group is not a subset of the communicator's group");
        }
    }
    rmp_comm_t rc = RMP_COMM_NULL;
    int st = rmp_comm_create_group(c->rc, g->size, ranks, tag, &rc);
    free(ranks);
    if (st != RMP_SUCCESS)
        return mpii_err_comm(c, mpii_err_from_rmp(st), "MPI_Comm_create_group", "%s",
                             rmp_strerror(st));
    mpii_comm_t *n;
    int err = mpii_comm_wrap(rc, c, &n);
    if (err != MPI_SUCCESS)
        return mpii_err_comm(c, err, "MPI_Comm_create_group", "out of memory");
    n->key = mpii_key_mix(c->key, mpii_key_of_members(g->size, g->world, tag));
    *newcomm = mpii_comm_handle(n);
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_create_group)

int PMPI_Comm_free(MPI_Comm *comm)
{
    mpii_check_init("MPI_Comm_free");
    mpii_comm_t *c = comm ? mpii_comm(*comm) : NULL;
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_free", "invalid communicator");
    if (c == &mpii_comm_world || c == &mpii_comm_self)
        return mpii_err_comm(c, MPI_ERR_COMM, "MPI_Comm_free",
                             "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
    int err = mpii_attr_delete_all(c, "MPI_Comm_free");
    if (err != MPI_SUCCESS)
        return err;
    mpii_comm_destroy(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_free)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    COMM_GET(comm1, a, "MPI_Comm_compare");
    mpii_comm_t *b = mpii_comm(comm2);
    if (!b)
        return mpii_err_comm(a, MPI_ERR_COMM, "MPI_Comm_compare", "invalid communicator");
    if (!result)
        return mpii_err_comm(a, MPI_ERR_ARG, "MPI_Comm_compare", "result is NULL");
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (a->inter || b->inter) {
        *result = mpii_inter_compare(a, b);
        return MPI_SUCCESS;
    }
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int same_order = 1, same_set = 1;
    for (int i = 0; i < a->size && same_set; i++) {
        int w = mpii_comm_world_rank(a, i), found = 0;
        if (w != mpii_comm_world_rank(b, i))
            same_order = 0;
        for (int j = 0; j < b->size && !found; j++)
            found = mpii_comm_world_rank(b, j) == w;
        same_set = found;
    }
    *result = !same_set ? MPI_UNEQUAL : same_order ? MPI_CONGRUENT : MPI_SIMILAR;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    COMM_GET(comm, c, "MPI_Comm_test_inter");
    if (!flag)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_test_inter", "flag is NULL");
    *flag = c->inter != NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_test_inter)

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    COMM_GET(comm, c, "MPI_Comm_set_name");
    if (!comm_name)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_set_name", "name is NULL");
    snprintf(c->name, sizeof(c->name), "%s", comm_name);
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    if (comm == MPI_COMM_NULL && comm_name && resultlen) { /* as MPICH does */
        *resultlen = snprintf(comm_name, MPI_MAX_OBJECT_NAME, "MPI_COMM_NULL");
        return MPI_SUCCESS;
    }
    COMM_GET(comm, c, "MPI_Comm_get_name");
    if (!comm_name || !resultlen)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_get_name", "NULL output argument");
    memcpy(comm_name, c->name, sizeof(c->name));
    *resultlen = (int)strlen(c->name);
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_get_name)
