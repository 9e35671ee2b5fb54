/* SPDX-License-Identifier: BSD-3-Clause */
/* Intercommunicators: the object over its union communicator, and how one is made
 * (Intercomm_create, Intercomm_create_from_groups, dup, split, create) and taken apart
 * (Intercomm_merge, remote group and size). See mpii_inter.h. */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"

void mpii_inter_free(mpii_inter_t *x)
{
    if (!x)
        return;
    if (x->coll)
        mpii_comm_destroy(x->coll);
    mpii_group_release(x->rgroup);
    free(x->l2u);
    free(x->r2u);
    free(x->u2r);
    free(x);
}

int mpii_inter_world_rank(const mpii_comm_t *c, int rank)
{
    return rmp_comm_world_rank(c->rc, c->inter->l2u[rank]);
}

/* What each member of a new union tells the others: its group and its place in it. */
typedef struct inter_entry {
    int side, key, key2, urank;
} inter_entry_t;

static int inter_entry_cmp(const void *a, const void *b)
{
    const inter_entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->key2 != y->key2)
        return x->key2 < y->key2 ? -1 : 1;
    return x->urank < y->urank ? -1 : x->urank > y->urank;
}

/* Make the intercomm over union communicator urc (taken). Each member gives its side
 * and its order (key, key2) in its group. *out NULL when either group is empty. The
 * error handler is parent's. Returns an MPI error class. */
int mpii_inter_build(rmp_comm_t urc, const mpii_comm_t *parent, int side, int key, int key2,
                       mpii_comm_t **out)
{
    *out = NULL;
    int n = rmp_comm_size(urc), me = rmp_comm_rank(urc), err = MPI_ERR_NO_MEM, nl = 0;
    inter_entry_t *all = calloc((size_t)n, sizeof(*all));
    mpii_inter_t *x = calloc(1, sizeof(*x));
    rmp_comm_t crc = RMP_COMM_NULL;
    mpii_comm_t *c = NULL;
    if (!all || !x)
        goto fail;
    all[me] = (inter_entry_t){side, key, key2, me};
    int st = rmp_allgather(&all[me], all, sizeof(*all), RMP_UINT8, urc);
    if (st == RMP_SUCCESS)
        st = rmp_comm_dup(urc, &crc);
    if (st != RMP_SUCCESS) {
        err = mpii_err_from_rmp(st);
        goto fail;
    }
    qsort(all, (size_t)n, sizeof(*all), inter_entry_cmp);
    for (int u = 0; u < n; u++)
        nl += all[u].side == side;
    if (nl == n) { /* the remote group is empty: no intercomm */
        err = MPI_SUCCESS;
        goto fail;
    }
    x->side = side;
    x->usize = n;
    x->rsize = n - nl;
    x->l2u = malloc((size_t)nl * sizeof(int));
    x->r2u = malloc((size_t)x->rsize * sizeof(int));
    x->u2r = malloc((size_t)n * sizeof(int));
    if (!x->l2u || !x->r2u || !x->u2r)
        goto fail;
    int lr = 0, rr = 0, mine = 0;
    for (int i = 0; i < n; i++) {
        int u = all[i].urank;
        if (all[i].side == side) {
            x->u2r[u] = -1;
            if (u == me)
                mine = lr;
            x->l2u[lr++] = u;
        } else {
            x->u2r[u] = rr;
            x->r2u[rr++] = u;
        }
    }
    err = mpii_comm_wrap(crc, parent, &x->coll);
    crc = RMP_COMM_NULL;
    if (err != MPI_SUCCESS)
        goto fail;
    /* internal: its errors are returned to the intercomm call, which reports them */
    mpii_errh_release(x->coll->errh);
    x->coll->errh = mpii_errh(MPI_ERRORS_RETURN);
    mpii_errh_retain(x->coll->errh);
    err = mpii_comm_wrap(urc, parent, &c);
    urc = RMP_COMM_NULL;
    if (err != MPI_SUCCESS)
        goto fail;
    c->rank = mine;
    c->size = nl;
    c->p2p_slow = MPII_P2P_SLOW_INTER;
    c->inter = x;
    free(all);
    *out = c;
    return MPI_SUCCESS;
fail:
    free(all);
    mpii_inter_free(x);
    if (crc)
        rmp_comm_free(&crc);
    if (urc)
        rmp_comm_free(&urc);
    return err;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* The key (mpii.h) of a communicator of world ranks w[0..n-1] made under tag. */
uint64_t mpii_key_of_members(int n, const int *w, int tag)
{
    uint64_t k = mpii_key_mix(3, (uint64_t)(uint32_t)tag);
    for (int i = 0; i < n; i++)
        k = mpii_key_mix(k, (uint64_t)(uint32_t)w[i]);
    return k;
}

/* The union of two disjoint lists of world ranks as a communicator of world (sorted
 * by world rank), made by its members only under tag; its key in *key. */
static int inter_union(int nl, const int *lw, int nr, const int *rw, int tag, rmp_comm_t *urc,
                       uint64_t *key)
{
    int n = nl + nr;
    int *all = malloc((size_t)n * sizeof(int));
    if (!all)
        return MPI_ERR_NO_MEM;
    memcpy(all, lw, (size_t)nl * sizeof(int));
    memcpy(all + nl, rw, (size_t)nr * sizeof(int));
    qsort(all, (size_t)n, sizeof(int), int_cmp);
    for (int i = 1; i < n; i++)
        if (all[i] == all[i - 1]) {
            free(all);
            return MPI_ERR_GROUP; /* the groups overlap */
        }
    *key = mpii_key_of_members(n, all, tag);
    int st = rmp_comm_create_group(mpii_comm_world.rc, n, all, tag & RMP_TAG_UB, urc);
    free(all);
    return st == RMP_SUCCESS ? MPI_SUCCESS : mpii_err_from_rmp(st);
}

/* The leaders swap their groups' world ranks over peer; everyone learns them through
 * local. Returns the remote list (malloc'd), whether this group is side 1, and the tag
 * of the union's creation: the user's mixed with the peer communicator's key, so that
 * creations from several threads with one tag over different peers (MPICH
 * threads/comm/idup_comm_gen) never take each other's messages on the world. */
static int ic_exchange(mpii_comm_t *lc, int lleader, MPI_Comm peer, int rleader, int tag,
                       const int *lw, int *nr_out, int **rw_out, int *side, int *utag)
{
    MPI_Comm local = mpii_comm_handle(lc);
    /* remote size, remote leader's world rank, then the peer's key (both halves) */
    int hdr[4] = {0, 0, 0, 0};
    int *rw = NULL, err;
    if (lc->rank == lleader) {
        uint64_t pk = mpii_comm(peer)->key;
        int mine[4] = {lc->size, lw[lleader], (int)(uint32_t)pk, (int)(uint32_t)(pk >> 32)};
        err = PMPI_Sendrecv(mine, 4, MPI_INT, rleader, tag, hdr, 4, MPI_INT, rleader, tag, peer,
                            MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
        /* the two leaders' views of the peer: the smaller, the same on both sides */
        uint64_t rk = (uint64_t)(uint32_t)hdr[2] | (uint64_t)(uint32_t)hdr[3] << 32;
        if (pk < rk) {
            hdr[2] = mine[2];
            hdr[3] = mine[3];
        }
    }
    if ((err = PMPI_Bcast(hdr, 4, MPI_INT, lleader, local)) != MPI_SUCCESS)
        return err;
    uint64_t k = (uint64_t)(uint32_t)hdr[2] | (uint64_t)(uint32_t)hdr[3] << 32;
    *utag = (int)(mpii_key_mix(k, (uint64_t)(uint32_t)tag) & RMP_TAG_UB);
    if (hdr[0] <= 0 || !(rw = malloc((size_t)hdr[0] * sizeof(int))))
        return hdr[0] <= 0 ? MPI_ERR_INTERN : MPI_ERR_NO_MEM;
    if (lc->rank == lleader)
        err = PMPI_Sendrecv(lw, lc->size, MPI_INT, rleader, tag, rw, hdr[0], MPI_INT, rleader,
                            tag, peer, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS)
        err = PMPI_Bcast(rw, hdr[0], MPI_INT, lleader, local);
    if (err != MPI_SUCCESS) {
        free(rw);
        return err;
    }
    *nr_out = hdr[0];
    *rw_out = rw;
    *side = lw[lleader] > hdr[1];
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create";
    mpii_check_init(fn);
    mpii_comm_t *lc = mpii_comm(local_comm);
    if (!lc || lc->inter)
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid local communicator");
    if (!newintercomm)
        return mpii_err_comm(lc, MPI_ERR_ARG, fn, "newintercomm is NULL");
    if (local_leader < 0 || local_leader >= lc->size)
        return mpii_err_comm(lc, MPI_ERR_RANK, fn, "invalid local leader %d", local_leader);
    if (tag < 0 || tag > RMP_TAG_UB)
        return mpii_err_comm(lc, MPI_ERR_TAG, fn, "invalid tag %d", tag);
    mpii_comm_t *pc = lc->rank == local_leader ? mpii_comm(peer_comm) : NULL;
    if (lc->rank == local_leader && (!pc || remote_leader < 0 || remote_leader >= pc->size))
        return mpii_err_comm(lc, pc ? MPI_ERR_RANK : MPI_ERR_COMM, fn,
                             "invalid peer communicator or remote leader %d", remote_leader);
    int *lw = malloc((size_t)lc->size * sizeof(int)), *rw = NULL, nr = 0, side = 0;
    if (!lw)
        return mpii_err_comm(lc, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < lc->size; i++)
        lw[i] = mpii_comm_world_rank(lc, i);
    int utag = 0;
    int err = ic_exchange(lc, local_leader, peer_comm, remote_leader, tag, lw, &nr, &rw, &side,
                          &utag);
    rmp_comm_t urc = RMP_COMM_NULL;
    uint64_t key = 0;
    if (err == MPI_SUCCESS)
        err = inter_union(lc->size, lw, nr, rw, utag, &urc, &key);
    free(lw);
    free(rw);
    mpii_comm_t *c = NULL;
    if (err == MPI_SUCCESS)
        err = mpii_inter_build(urc, lc, side, lc->rank, 0, &c);
    if (err == MPI_SUCCESS && !c)
        err = MPI_ERR_INTERN;
    if (err != MPI_SUCCESS)
        return mpii_err_comm(lc, err, fn, "could not create the intercommunicator");
    c->key = key;
    *newintercomm = mpii_comm_handle(c);
    return MPI_SUCCESS;
}
MPII_WEAK(Intercomm_create)

/* A tag of rmp_comm_create_group from an MPI-4 string tag (both sides hash alike). */
static int string_tag(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return (int)(h & RMP_TAG_UB);
}

/* Replace the error handler c got from world by errh (MPI_ERRHANDLER_NULL: keep). */
static void set_errh(mpii_comm_t *c, MPI_Errhandler errh)
{
    mpii_errh_t *e = errh != MPI_ERRHANDLER_NULL ? mpii_errh(errh) : NULL;
    if (!e)
        return;
    mpii_errh_release(c->errh);
    c->errh = e;
    mpii_errh_retain(e);
}

/* Errors of the _from_group(s) creations go to their errhandler argument (there is no
 * parent communicator); without one, to MPI_COMM_WORLD's. */
static int from_err(MPI_Errhandler errh, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int from_err(MPI_Errhandler errh, int code, const char *fn, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    mpii_errh_t *e = errh != MPI_ERRHANDLER_NULL ? mpii_errh(errh) : NULL;
    MPI_Comm nul = MPI_COMM_NULL;
    if (e)
        return mpii_err_obj(e, &nul, code, fn, "%s", msg);
    return mpii_err_comm(NULL, code, fn, "%s", msg);
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create_from_groups";
    mpii_check_init(fn);
    mpii_group_t *lg = mpii_group(local_group), *rg = mpii_group(remote_group);
    (void)info;
    if (!lg || !rg || lg->rank == MPI_UNDEFINED || rg->size == 0)
        return from_err(errhandler, MPI_ERR_GROUP, fn,
                        "invalid group, or not in the local one");
    if (!stringtag || !newintercomm)
        return from_err(errhandler, MPI_ERR_ARG, fn, "NULL stringtag or newintercomm");
    if (local_leader < 0 || local_leader >= lg->size || remote_leader < 0 ||
        remote_leader >= rg->size)
        return from_err(errhandler, MPI_ERR_RANK, fn, "invalid leader");
    int side = lg->world[local_leader] > rg->world[remote_leader];
    rmp_comm_t urc = RMP_COMM_NULL;
    uint64_t key = 0;
    int err = inter_union(lg->size, lg->world, rg->size, rg->world, string_tag(stringtag), &urc,
                          &key);
    mpii_comm_t *c = NULL;
    if (err == MPI_SUCCESS)
        err = mpii_inter_build(urc, &mpii_comm_world, side, lg->rank, 0, &c);
    if (err == MPI_SUCCESS && !c)
        err = MPI_ERR_INTERN;
    if (err != MPI_SUCCESS)
        return from_err(errhandler, err, fn, "could not create the intercommunicator");
    c->key = key;
    set_errh(c, errhandler);
    *newintercomm = mpii_comm_handle(c);
    return MPI_SUCCESS;
}
MPII_WEAK(Intercomm_create_from_groups)

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_from_group";
    mpii_check_init(fn);
    mpii_group_t *g = mpii_group(group);
    (void)info;
    if (!g)
        return from_err(errhandler, MPI_ERR_GROUP, fn, "invalid group");
    if (!stringtag || !newcomm)
        return from_err(errhandler, MPI_ERR_ARG, fn, "NULL stringtag or newcomm");
    if (g->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    rmp_comm_t rc = RMP_COMM_NULL;
    int st = rmp_comm_create_group(mpii_comm_world.rc, g->size, g->world,
                                   string_tag(stringtag), &rc);
    if (st != RMP_SUCCESS)
        return from_err(errhandler, mpii_err_from_rmp(st), fn, "%s", rmp_strerror(st));
    mpii_comm_t *c;
    int err = mpii_comm_wrap(rc, &mpii_comm_world, &c);
    if (err != MPI_SUCCESS)
        return from_err(errhandler, err, fn, "out of memory");
    c->key = mpii_key_of_members(g->size, g->world, string_tag(stringtag));
    c->sbs = g->sbs;
    set_errh(c, errhandler);
    *newcomm = mpii_comm_handle(c);
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_create_from_group)

int mpii_inter_dup(mpii_comm_t *c, mpii_comm_t **out)
{
    rmp_comm_t urc = RMP_COMM_NULL;
    int st = rmp_comm_dup(c->rc, &urc);
    if (st != RMP_SUCCESS)
        return mpii_err_from_rmp(st);
    return mpii_inter_build(urc, c, c->inter->side, c->rank, 0, out);
}

int mpii_inter_split(mpii_comm_t *c, int color, int key, mpii_comm_t **out)
{
    rmp_comm_t urc = RMP_COMM_NULL;
    *out = NULL;
    int st = rmp_comm_split(c->rc, color, rmp_comm_rank(c->rc), &urc);
    if (st != RMP_SUCCESS)
        return mpii_err_from_rmp(st);
    if (!urc)
        return MPI_SUCCESS;
    return mpii_inter_build(urc, c, c->inter->side, key, c->rank, out);
}

/* World ranks of c's local group (local) or remote group into w. */
static void inter_worlds(const mpii_comm_t *c, int remote, int *w)
{
    int n = remote ? c->inter->rsize : c->size;
    for (int i = 0; i < n; i++)
        w[i] = rmp_comm_world_rank(c->rc, remote ? c->inter->r2u[i] : c->inter->l2u[i]);
}

/* MPI_IDENT (same order), MPI_SIMILAR (same set) or MPI_UNEQUAL. */
static int lists_compare(int n, const int *a, const int *b)
{
    int same_order = 1;
    for (int i = 0; i < n; i++) {
        int found = 0;
        same_order &= a[i] == b[i];
        for (int j = 0; j < n && !found; j++)
            found = a[i] == b[j];
        if (!found)
            return MPI_UNEQUAL;
    }
    return same_order ? MPI_IDENT : MPI_SIMILAR;
}

int mpii_inter_compare(mpii_comm_t *a, mpii_comm_t *b)
{
    if (!a->inter || !b->inter || a->size != b->size || a->inter->rsize != b->inter->rsize)
        return MPI_UNEQUAL;
    int nl = a->size, nr = a->inter->rsize;
    int *w = malloc((size_t)(2 * (nl + nr)) * sizeof(int));
    if (!w)
        return MPI_UNEQUAL;
    inter_worlds(a, 0, w);
    inter_worlds(b, 0, w + nl);
    inter_worlds(a, 1, w + 2 * nl);
    inter_worlds(b, 1, w + 2 * nl + nr);
    int l = lists_compare(nl, w, w + nl), r = lists_compare(nr, w + 2 * nl, w + 2 * nl + nr);
    free(w);
    if (l == MPI_UNEQUAL || r == MPI_UNEQUAL)
        return MPI_UNEQUAL;
    return l == MPI_IDENT && r == MPI_IDENT ? MPI_CONGRUENT : MPI_SIMILAR;
}

#define INTER_GET(h, c, fn)                                                                \
    mpii_check_init(fn);                                                                   \
    mpii_comm_t *c = mpii_comm(h);                                                         \
    if (!c)                                                                                \
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");              \
    if (!c->inter)                                                                         \
        return mpii_err_comm(c, MPI_ERR_COMM, fn, "not an intercommunicator");

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    INTER_GET(comm, c, "MPI_Comm_remote_size");
    if (!size)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_remote_size", "size is NULL");
    *size = c->inter->rsize;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    INTER_GET(comm, c, "MPI_Comm_remote_group");
    if (!group)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_remote_group", "group is NULL");
    mpii_inter_t *x = c->inter;
    if (!x->rgroup) {
        int *w = malloc((size_t)x->rsize * sizeof(int));
        if (w) {
            inter_worlds(c, 1, w);
            x->rgroup = mpii_group_new(x->rsize, w);
            free(w);
        }
        if (!x->rgroup)
            return mpii_err_comm(c, MPI_ERR_NO_MEM, "MPI_Comm_remote_group", "out of memory");
    }
    x->rgroup->refs++;
    *group = mpii_group_handle(x->rgroup);
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_remote_group)

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    const char *fn = "MPI_Intercomm_merge";
    INTER_GET(intercomm, c, fn);
    if (!newintracomm)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "newintracomm is NULL");
    mpii_inter_t *x = c->inter;
    /* every member learns the other group's flag from its rank 0 */
    int mine = high != 0, theirs = 0, err = MPI_SUCCESS;
    int tag = (int)(x->seq++ & RMP_TAG_UB);
    MPI_Comm cc = mpii_comm_handle(x->coll);
    MPI_Request rq = MPI_REQUEST_NULL;
    err = PMPI_Irecv(&theirs, 1, MPI_INT, x->r2u[0], tag, cc, &rq);
    for (int j = 0; j < x->rsize && c->rank == 0 && err == MPI_SUCCESS; j++)
        err = PMPI_Send(&mine, 1, MPI_INT, x->r2u[j], tag, cc);
    if (err == MPI_SUCCESS)
        err = PMPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS)
        return mpii_err_comm(c, err, fn, "could not exchange the high flags");
    int first = mine != theirs ? !mine : x->side == 0;
    rmp_comm_t rc = RMP_COMM_NULL;
    uint64_t key = mpii_comm_child_key(c);
    int st = rmp_comm_split(c->rc, 0, first ? c->rank : x->rsize + c->rank, &rc);
    if (st != RMP_SUCCESS)
        return mpii_err_comm(c, mpii_err_from_rmp(st), fn, "%s", rmp_strerror(st));
    mpii_comm_t *n;
    if ((err = mpii_comm_wrap(rc, c, &n)) != MPI_SUCCESS)
        return mpii_err_comm(c, err, fn, "out of memory");
    n->key = key;
    *newintracomm = mpii_comm_handle(n);
    return MPI_SUCCESS;
}
MPII_WEAK(Intercomm_merge)
