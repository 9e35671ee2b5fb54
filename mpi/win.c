/* SPDX-License-Identifier: BSD-3-Clause */
/* Window creation, destruction and queries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_rma.h"

static mpii_pool_t win_pool = MPII_POOL_INIT(mpii_win_t);

mpii_win_t *mpii_win(MPI_Win h)
{
    return mpii_obj_valid(h, MPII_MAGIC_WIN) ? (mpii_win_t *)h : NULL;
}

static void win_destroy(mpii_win_t *w)
{
    if (w->data)
        rmp_win_free(&w->data);
    if (w->ctl)
        rmp_win_free(&w->ctl);
    if (w->rc)
        rmp_comm_free(&w->rc);
    mpii_errh_release(w->errh);
    free(w->sizes);
    free(w->shoff);
    free(w->units);
    free(w->world);
    free(w->locked);
    free(w->start_grp);
    mpii_obj_free(&win_pool, w);
}

/* flavor: MPI_WIN_FLAVOR_CREATE (base given), _ALLOCATE / _SHARED (base returned),
 * _DYNAMIC (no memory: regions attached later; displacements are addresses). */
/* A shared window in one block, rank after rank (MPI's default for Win_allocate_shared):
 * rank 0 allocates it all, each rank's part starts where the previous one's ends. */
static int win_shared_contig(mpii_win_t *w, rmp_comm_t parent, MPI_Aint size, void **base)
{
    int64_t me = size, *all = calloc((size_t)w->size, sizeof(*all));
    w->shoff = calloc((size_t)w->size + 1, sizeof(*w->shoff));
    int rc = all && w->shoff ? RMP_SUCCESS : RMP_ERR_NOMEM;
    /* Every rank reaches each collective, whatever failed locally. */
    int rc2 = rmp_allgather(&me, all ? all : &me, all ? sizeof(me) : 0, RMP_UINT8, parent);
    rc = rc != RMP_SUCCESS ? rc : rc2;
    for (int i = 0; rc == RMP_SUCCESS && i < w->size; i++)
        w->shoff[i + 1] = w->shoff[i] + (MPI_Aint)all[i];
    free(all);
    size_t total = rc == RMP_SUCCESS && w->rank == 0 ? (size_t)w->shoff[w->size] : 0;
    void *mine = NULL, *p0 = NULL;
    rc2 = rmp_win_allocate(total, w->rc, &mine, &w->data);
    rc = rc != RMP_SUCCESS ? rc : rc2;
    if (rc == RMP_SUCCESS && rmp_win_shared_ptr(w->data, 0, &p0) == RMP_SUCCESS)
        *base = (char *)p0 + w->shoff[w->rank];
    else
        *base = NULL; /* not on one node: win_shared reports it */
    return rc;
}

/* alloc_shared_noncontig = true in info. */
static int win_noncontig(MPI_Info info)
{
    char v[8];
    int len = sizeof(v), flag = 0;
    if (info == MPI_INFO_NULL ||
        PMPI_Info_get_string(info, "alloc_shared_noncontig", &len, v, &flag) != MPI_SUCCESS)
        return 0;
    return flag && strcmp(v, "true") == 0;
}

/* Win_allocate_shared's default layout (win_make's flavor argument only). */
#define WIN_SHARED_CONTIG (-1)

static int win_make(void *base, MPI_Aint size, int disp_unit, MPI_Comm comm, int flavor,
                    void *baseptr, MPI_Win *win, const char *fn)
{
    mpii_check_init(fn);
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    int given = flavor == MPI_WIN_FLAVOR_CREATE || flavor == MPI_WIN_FLAVOR_DYNAMIC;
    if (!win || (!given && !baseptr))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "%s is NULL", win ? "baseptr" : "win");
    if (size < 0)
        return mpii_err_comm(c, MPI_ERR_SIZE, fn, "negative size %lld", (long long)size);
    if (disp_unit <= 0)
        return mpii_err_comm(c, MPI_ERR_DISP, fn, "disp_unit %d is not positive", disp_unit);
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
        return mpii_err_comm(c, MPI_ERR_BASE, fn, "base is NULL with size %lld",
                             (long long)size);
    mpii_win_t *w = mpii_obj_new(&win_pool, MPII_MAGIC_WIN);
    if (!w)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    int n = c->size, rc = rmp_comm_dup(c->rc, &w->rc);
    w->rank = c->rank;
    w->size = n;
    w->flavor = flavor == WIN_SHARED_CONTIG ? MPI_WIN_FLAVOR_SHARED : flavor;
    w->model = MPI_WIN_UNIFIED;
    w->disp_unit = disp_unit;
    w->win_size = size;
    w->errh = mpii_errh(MPI_ERRORS_ARE_FATAL);
    mpii_errh_retain(w->errh);
    struct { int64_t size; int64_t unit; } me = {size, disp_unit}, *all = NULL;
    w->sizes = calloc((size_t)n, sizeof(*w->sizes));
    w->units = calloc((size_t)n, sizeof(*w->units));
    w->locked = calloc((size_t)n, 1);
    w->world = malloc((size_t)n * sizeof(int));
    all = calloc((size_t)n, sizeof(*all));
    if (rc == RMP_SUCCESS && (!w->sizes || !w->units || !w->locked || !w->world || !all))
        rc = RMP_ERR_NOMEM;
    /* Every rank reaches the collectives below, so a local failure cannot hang the rest. */
    if (rc == RMP_SUCCESS && flavor == MPI_WIN_FLAVOR_CREATE)
        rc = rmp_win_create(base, (size_t)size, w->rc, &w->data);
    else if (rc == RMP_SUCCESS && flavor == MPI_WIN_FLAVOR_DYNAMIC)
        rc = rmp_win_create_dynamic(w->rc, &w->data);
    else if (rc == RMP_SUCCESS && flavor == WIN_SHARED_CONTIG)
        rc = win_shared_contig(w, c->rc, size, &base);
    else if (rc == RMP_SUCCESS)
        rc = rmp_win_allocate((size_t)size, w->rc, &base, &w->data);
    void *ctl = NULL;
    if (rc == RMP_SUCCESS)
        rc = rmp_win_allocate((size_t)(MPII_CTL_POST + n) * sizeof(uint64_t), w->rc, &ctl,
                              &w->ctl);
    /* On the parent, whose collectives are set up already: the first collective on the
     * window's own communicator would make its shared-memory segment (a few MiB, mapped by
     * every rank, then unmapped at the free), for a window that may never need one. */
    if (rc == RMP_SUCCESS)
        rc = rmp_allgather(&me, all, sizeof(me), RMP_UINT8, c->rc);
    if (rc != RMP_SUCCESS) {
        free(all);
        win_destroy(w);
        return mpii_err_comm(c, mpii_err_from_rmp(rc), fn, "%s", rmp_strerror(rc));
    }
    for (int i = 0; i < n; i++) {
        w->world[i] = mpii_comm_world_rank(c, i);
        w->sizes[i] = (MPI_Aint)all[i].size;
        w->units[i] = (int)all[i].unit;
    }
    free(all);
    w->ctl_base = ctl;
    w->base = base;
    if (!given)
        memcpy(baseptr, &base, sizeof(base));
    *win = (MPI_Win)w;
    return MPI_SUCCESS;
}

/* Win_create and Win_allocate: no info hint applies. */
static int win_plain(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                     int flavor, void *baseptr, MPI_Win *win, const char *fn)
{
    (void)info;
    return win_make(base, size, disp_unit, comm, flavor, baseptr, win, fn);
}

MPII_TWINS(Win_create, win_plain(base, size, TWIN(disp_unit,
           disp_unit > 0x7fffffff ? -1 : (int)disp_unit), info, comm, MPI_WIN_FLAVOR_CREATE,
           NULL, win, FN))

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    (void)info;
    return win_make(NULL, 0, 1, comm, MPI_WIN_FLAVOR_DYNAMIC, NULL, win,
                    "MPI_Win_create_dynamic");
}
MPII_WEAK(Win_create_dynamic)

/* The dynamic window of handle win for fn, or NULL with the error reported in *err. */
static mpii_win_t *win_dynamic(MPI_Win win, const char *fn, int *err)
{
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    *err = !w ? MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window")
         : w->flavor != MPI_WIN_FLAVOR_DYNAMIC
             ? MPII_WIN_ERR(w, MPI_ERR_RMA_FLAVOR, fn, "the window is not dynamic")
             : MPI_SUCCESS;
    return *err == MPI_SUCCESS ? w : NULL;
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    const char *fn = "MPI_Win_attach";
    int err;
    mpii_win_t *w = win_dynamic(win, fn, &err);
    if (!w)
        return err;
    if (size < 0 || (size > 0 && !base))
        return MPII_WIN_ERR(w, size < 0 ? MPI_ERR_SIZE : MPI_ERR_BASE, fn,
                            "base %p, size %lld", base, (long long)size);
    int rc = rmp_win_attach(w->data, base, (size_t)size);
    return rc == RMP_SUCCESS ? MPI_SUCCESS
                             : MPII_WIN_ERR(w, rc == RMP_ERR_ARG ? MPI_ERR_RMA_ATTACH
                                                                 : mpii_err_from_rmp(rc),
                                            fn, "cannot attach [%p, +%lld): %s", base,
                                            (long long)size,
                                            rc == RMP_ERR_ARG ? "overlaps an attached region"
                                                              : rmp_strerror(rc));
}
MPII_WEAK(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    const char *fn = "MPI_Win_detach";
    int err;
    mpii_win_t *w = win_dynamic(win, fn, &err);
    if (!w)
        return err;
    int rc = rmp_win_detach(w->data, base);
    return rc == RMP_SUCCESS ? MPI_SUCCESS
                             : MPII_WIN_ERR(w, rc == RMP_ERR_ARG ? MPI_ERR_ARG
                                                                 : mpii_err_from_rmp(rc),
                                            fn, "%p is not an attached region's base", base);
}
MPII_WEAK(Win_detach)

MPII_TWINS(Win_allocate, win_plain(NULL, size, TWIN(disp_unit,
           disp_unit > 0x7fffffff ? -1 : (int)disp_unit), info, comm, MPI_WIN_FLAVOR_ALLOCATE,
           baseptr, win, FN))

/* One block for all ranks, or with alloc_shared_noncontig each rank's own segment, mapped
 * by the others on its node. Ranks on several nodes: MPI_ERR_RMA_SHARED. */
static int win_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win, const char *fn)
{
    int rc = win_make(NULL, size, disp_unit, comm,
                      win_noncontig(info) ? MPI_WIN_FLAVOR_SHARED : WIN_SHARED_CONTIG, baseptr,
                      win, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    mpii_win_t *w = (mpii_win_t *)*win;
    int ok = 1, all = 0;
    for (int i = 0; i < w->size; i++) {
        void *p;
        ok &= rmp_win_shared_ptr(w->data, mpii_win_dtarget(w, i), &p) == RMP_SUCCESS;
    }
    rc = rmp_allreduce(&ok, &all, 1, RMP_INT32, RMP_MIN, mpii_comm(comm)->rc);
    if (rc == RMP_SUCCESS && all)
        return MPI_SUCCESS;
    win_destroy(w);
    *win = MPI_WIN_NULL;
    return mpii_err_comm(mpii_comm(comm), MPI_ERR_RMA_SHARED, fn,
                         "the ranks of the communicator do not share memory (one node only)");
}

MPII_TWINS(Win_allocate_shared, win_shared(size, TWIN(disp_unit,
           disp_unit > 0x7fffffff ? -1 : (int)disp_unit), info, comm, baseptr, win, FN))

/* The displacement unit as an int (idu, MPI_Win_shared_query) or MPI_Aint (adu, _c). */
static int win_query(MPI_Win win, int rank, MPI_Aint *size, int *idu, MPI_Aint *adu,
                     void *baseptr, const char *fn)
{
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    /* MPI 4: any flavor but dynamic; a rank whose memory this process cannot load from
     * (another node, a created window) answers size 0 and NULL. */
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return MPII_WIN_ERR(w, MPI_ERR_RMA_FLAVOR, fn, "a dynamic window has no segments");
    if (rank == MPI_PROC_NULL) /* the lowest rank with a non-empty segment */
        for (rank = 0; rank < w->size - 1 && w->sizes[rank] == 0; rank++)
            ;
    if (rank < 0 || rank >= w->size)
        return MPII_WIN_ERR(w, MPI_ERR_RANK, fn, "invalid rank %d (size %d)", rank, w->size);
    if (!size || (!idu && !adu) || !baseptr)
        return MPII_WIN_ERR(w, MPI_ERR_ARG, fn, "an output argument is NULL");
    void *p = NULL;
    if (w->sizes[rank] > 0 &&
        rmp_win_shared_ptr(w->data, mpii_win_dtarget(w, rank), &p) == RMP_SUCCESS && p)
        p = (char *)p + mpii_win_doff(w, rank);
    else
        p = NULL;
    *size = p ? w->sizes[rank] : 0;
    if (idu)
        *idu = w->units[rank];
    else
        *adu = w->units[rank];
    memcpy(baseptr, &p, sizeof(p));
    return MPI_SUCCESS;
}

MPII_TWINS(Win_shared_query, win_query(win, rank, size, TWIN(disp_unit, NULL),
           TWIN(NULL, disp_unit), baseptr, FN))

int PMPI_Win_free(MPI_Win *win)
{
    const char *fn = "MPI_Win_free";
    mpii_check_init(fn);
    mpii_win_t *w = win ? mpii_win(*win) : NULL;
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    /* Freeing is collective: an epoch still open here would leave others waiting. */
    if (w->nlocked || w->lock_all || w->start_grp || w->posted)
        return MPII_WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "a %s epoch is still open",
                            w->posted ? "exposure" : "passive or active target access");
    int err = mpii_win_attr_delete_all(w, fn);
    if (err != MPI_SUCCESS)
        return err;
    win_destroy(w); /* rmp_win_free: flush, then a barrier before the memory goes */
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Win_free)

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag)
{
    const char *fn = "MPI_Win_get_attr";
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    if (!attribute_val || !flag)
        return MPII_WIN_ERR(w, MPI_ERR_ARG, fn, "NULL argument");
    /* MPI hands out pointers to the values, except the base itself. */
    void *v = NULL;
    switch (keyval) {
    case MPI_WIN_BASE: v = w->base; break;
    case MPI_WIN_SIZE: v = &w->win_size; break;
    case MPI_WIN_DISP_UNIT: v = &w->disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &w->flavor; break;
    case MPI_WIN_MODEL: v = &w->model; break;
    default:
        return mpii_win_attr_get(w, keyval, attribute_val, flag);
    }
    memcpy(attribute_val, &v, sizeof(v));
    *flag = 1;
    return MPI_SUCCESS;
}
MPII_WEAK(Win_get_attr)

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    const char *fn = "MPI_Win_get_group";
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w || !group)
        return MPII_WIN_ERR(w, w ? MPI_ERR_ARG : MPI_ERR_WIN, fn, "%s",
                            w ? "group is NULL" : "invalid window");
    mpii_group_t *g = mpii_group_new(w->size, w->world);
    if (!g)
        return MPII_WIN_ERR(w, MPI_ERR_NO_MEM, fn, "out of memory");
    *group = mpii_group_handle(g);
    return MPI_SUCCESS;
}
MPII_WEAK(Win_get_group)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_Win_set_errhandler";
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    mpii_errh_t *e = mpii_errh(errhandler);
    if (!e || (e->kind == MPII_ERRH_USER && e->obj != MPII_OBJ_WIN))
        return MPII_WIN_ERR(w, MPI_ERR_ERRHANDLER, fn, "invalid error handler for a window");
    mpii_errh_retain(e);
    mpii_errh_release(w->errh);
    w->errh = e;
    return MPI_SUCCESS;
}
MPII_WEAK(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Win_get_errhandler";
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w || !errhandler)
        return MPII_WIN_ERR(w, w ? MPI_ERR_ARG : MPI_ERR_WIN, fn, "%s",
                            w ? "errhandler is NULL" : "invalid window");
    mpii_errh_retain(w->errh);
    *errhandler = mpii_errh_handle(w->errh);
    return MPI_SUCCESS;
}
MPII_WEAK(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    const char *fn = "MPI_Win_call_errhandler";
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    MPII_WIN_ERR(w, errorcode, fn, "error raised by MPI_Win_call_errhandler");
    return MPI_SUCCESS;
}
MPII_WEAK(Win_call_errhandler)

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    mpii_check_init("MPI_Win_set_name");
    mpii_win_t *w = mpii_win(win);
    if (!w || !win_name)
        return MPII_WIN_ERR(w, w ? MPI_ERR_ARG : MPI_ERR_WIN, "MPI_Win_set_name", "%s",
                            w ? "name is NULL" : "invalid window");
    snprintf(w->name, sizeof(w->name), "%s", win_name);
    return MPI_SUCCESS;
}
MPII_WEAK(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    mpii_check_init("MPI_Win_get_name");
    mpii_win_t *w = mpii_win(win);
    if (win == MPI_WIN_NULL && win_name && resultlen) { /* MPI 4.1: the null handle's name */
        snprintf(win_name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
        *resultlen = (int)strlen(win_name);
        return MPI_SUCCESS;
    }
    if (!w || !win_name || !resultlen)
        return MPII_WIN_ERR(w, w ? MPI_ERR_ARG : MPI_ERR_WIN, "MPI_Win_get_name", "%s",
                            w ? "NULL argument" : "invalid window");
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}
MPII_WEAK(Win_get_name)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "win.twins.h"
