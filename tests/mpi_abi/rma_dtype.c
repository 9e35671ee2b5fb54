/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided operations on non-contiguous target datatypes: every RMA call with vector,
 * indexed and struct (resized, with holes) target types, origin types of another shape
 * and the same signature, on every window flavour (created, allocated, dynamic, shared).
 * The bytes in the holes of the target layout must stay untouched, accumulates from all
 * ranks at once must add up (per-element atomicity), MINLOC/MAXLOC pairs go through a
 * vector of MPI_DOUBLE_INT. Run at 2 and 4 ranks, on shm and over tcp. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define WN 96   /* ints in each rank's window */
#define OFF 3   /* the accesses start OFF ints into it */
#define HOLE -7 /* what the holes hold */
#define NT 3

static int rank, size;

enum { F_CREATE, F_ALLOCATE, F_DYNAMIC, F_SHARED, NFLAV };
static const char *flav_name[NFLAV] = {"create", "allocate", "dynamic", "shared"};

typedef struct twin {
    MPI_Win win;
    int *mem;
    MPI_Aint *addr; /* dynamic: each rank's attached address */
    int flavor;
} twin_t;

/* MPI_Type_create_struct of two int blocks, resized with a gap at the end. */
static MPI_Datatype make_struct(void)
{
    int bl[2] = {2, 1};
    MPI_Aint disp[2] = {0, 5 * sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, s, r;
    CHECK_OK(MPI_Type_create_struct(2, bl, disp, types, &s));
    CHECK_OK(MPI_Type_create_resized(s, 0, 8 * sizeof(int), &r));
    MPI_Type_free(&s);
    return r;
}

static MPI_Datatype make_type(int which, int *count)
{
    MPI_Datatype t;
    if (which == 0) { /* 2 x (4 blocks of 2 ints, stride 5) */
        CHECK_OK(MPI_Type_vector(4, 2, 5, MPI_INT, &t));
        *count = 2;
    } else if (which == 1) { /* 2 x (3 irregular blocks) */
        int bl[3] = {3, 1, 2}, dp[3] = {1, 7, 12};
        CHECK_OK(MPI_Type_indexed(3, bl, dp, MPI_INT, &t));
        *count = 2;
    } else { /* 3 x resized struct */
        t = make_struct();
        *count = 3;
    }
    CHECK_OK(MPI_Type_commit(&t));
    return t;
}

/* The int indices count elements of t cover, in type order (packing the identity). */
static int type_ints(MPI_Datatype t, int count, int *ix)
{
    int id[WN], psize, pos = 0, n;
    for (int i = 0; i < WN; i++)
        id[i] = i;
    MPI_Type_size(t, &psize);
    n = psize * count / (int)sizeof(int);
    CHECK(n <= WN, "type too large");
    CHECK_OK(MPI_Pack(id, count, t, ix, n * (int)sizeof(int), &pos, MPI_COMM_SELF));
    return n;
}

static MPI_Aint tdisp(const twin_t *w, int target)
{
    return w->flavor == F_DYNAMIC ? w->addr[target] + OFF * (MPI_Aint)sizeof(int) : OFF;
}

static int twin_open(twin_t *w, int flavor)
{
    memset(w, 0, sizeof(*w));
    w->flavor = flavor;
    MPI_Aint bytes = WN * sizeof(int);
    if (flavor == F_CREATE) {
        w->mem = malloc((size_t)bytes);
        CHECK_OK(MPI_Win_create(w->mem, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                &w->win));
    } else if (flavor == F_ALLOCATE) {
        CHECK_OK(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem,
                                  &w->win));
    } else if (flavor == F_DYNAMIC) {
        MPI_Aint mine;
        w->mem = malloc((size_t)bytes);
        w->addr = calloc((size_t)size, sizeof(MPI_Aint));
        CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        CHECK_OK(MPI_Win_attach(w->win, w->mem, bytes));
        CHECK_OK(MPI_Get_address(w->mem, &mine));
        CHECK_OK(MPI_Allgather(&mine, 1, MPI_AINT, w->addr, 1, MPI_AINT, MPI_COMM_WORLD));
    } else {
        /* Needs every rank on one node sharing memory: not over tcp alone. */
        const char *tl = getenv("RMP_TRANSPORTS");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                         &w->mem, &w->win);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        if (rc != MPI_SUCCESS) {
            CHECK(tl && strstr(tl, "shm") == NULL, "Win_allocate_shared failed on shm");
            return 0;
        }
    }
    return 1;
}

static void twin_close(twin_t *w)
{
    if (w->flavor == F_DYNAMIC)
        CHECK_OK(MPI_Win_detach(w->win, w->mem));
    CHECK_OK(MPI_Win_free(&w->win));
    if (w->flavor == F_CREATE || w->flavor == F_DYNAMIC)
        free(w->mem);
    free(w->addr);
}

/* Fill this rank's window (outside any epoch: between fences). */
static void fill(twin_t *w, int v)
{
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w->win));
    for (int i = 0; i < WN; i++)
        w->mem[i] = v;
    CHECK_OK(MPI_Win_unlock(rank, w->win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* The window holds want(k) at the k-th covered int and HOLE elsewhere. */
#define CHECK_WIN(w, ix, n, hole, want, what)                                                \
    do {                                                                                      \
        int k_ = 0;                                                                           \
        CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, (w)->win));                           \
        for (int i_ = 0; i_ < WN; i_++) {                                                     \
            int at_ = k_ < (n) && i_ == OFF + (ix)[k_];                                       \
            int exp_ = at_ ? (want) : (hole);                                                 \
            CHECK((w)->mem[i_] == exp_, "%s (%s): int %d is %d, expected %d", what,           \
                  flav_name[(w)->flavor], i_, (w)->mem[i_], exp_);                            \
            k_ += at_;                                                                        \
        }                                                                                     \
        CHECK_OK(MPI_Win_unlock(rank, (w)->win));                                             \
    } while (0)

static void test_put_get(twin_t *w, MPI_Datatype t, int count, const int *ix, int n)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int org[WN], back[2 * WN];
    MPI_Datatype strided; /* origin of another shape: every other int */
    CHECK_OK(MPI_Type_vector(n, 1, 2, MPI_INT, &strided));
    CHECK_OK(MPI_Type_commit(&strided));
    for (int k = 0; k < n; k++)
        org[k] = 1000 * rank + k;
    /* Put, fence epoch, contiguous origin. */
    fill(w, HOLE);
    CHECK_OK(MPI_Win_fence(0, w->win));
    CHECK_OK(MPI_Put(org, n, MPI_INT, to, tdisp(w, to), count, t, w->win));
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
    CHECK_WIN(w, ix, n, HOLE, 1000 * from + k_, "Put");
    /* Get into a strided origin, passive target; the origin's holes untouched. */
    for (int i = 0; i < 2 * n; i++)
        back[i] = -1;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, w->win));
    CHECK_OK(MPI_Get(back, 1, strided, to, tdisp(w, to), count, t, w->win));
    CHECK_OK(MPI_Win_unlock(to, w->win));
    for (int k = 0; k < n; k++)
        CHECK(back[2 * k] == 1000 * rank + k && back[2 * k + 1] == -1,
              "Get (%s): element %d is %d, %d", flav_name[w->flavor], k, back[2 * k],
              back[2 * k + 1]);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Put from a strided origin, lock_all with a flush. */
    fill(w, HOLE);
    for (int k = 0; k < n; k++)
        back[2 * k] = 2000 * rank + k;
    CHECK_OK(MPI_Win_lock_all(0, w->win));
    CHECK_OK(MPI_Put(back, 1, strided, to, tdisp(w, to), count, t, w->win));
    CHECK_OK(MPI_Win_flush(to, w->win));
    CHECK_OK(MPI_Win_unlock_all(w->win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_WIN(w, ix, n, HOLE, 2000 * from + k_, "Put strided origin");
    /* Request-based forms. */
    MPI_Request rq[2];
    fill(w, HOLE);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, w->win));
    CHECK_OK(MPI_Rput(org, n, MPI_INT, to, tdisp(w, to), count, t, w->win, &rq[0]));
    CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Win_flush(to, w->win));
    for (int i = 0; i < n; i++)
        back[i] = -1;
    CHECK_OK(MPI_Rget(back, n, MPI_INT, to, tdisp(w, to), count, t, w->win, &rq[1]));
    CHECK_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Win_unlock(to, w->win));
    for (int k = 0; k < n; k++)
        CHECK(back[k] == 1000 * rank + k, "Rget (%s): element %d is %d", flav_name[w->flavor],
              k, back[k]);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_WIN(w, ix, n, HOLE, 1000 * from + k_, "Rput");
    MPI_Type_free(&strided);
}

/* Every rank accumulates into rank 0 at once, reps times: sums must be exact. */
static void test_acc(twin_t *w, MPI_Datatype t, int count, const int *ix, int n)
{
    const int reps = 4;
    int org[WN], res[WN], prev[WN];
    fill(w, 0);
    for (int k = 0; k < n; k++)
        org[k] = rank + 1 + k;
    CHECK_OK(MPI_Win_lock_all(0, w->win));
    for (int r = 0; r < reps; r++)
        CHECK_OK(MPI_Accumulate(org, n, MPI_INT, 0, tdisp(w, 0), count, t, MPI_SUM, w->win));
    CHECK_OK(MPI_Win_unlock_all(w->win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        CHECK_WIN(w, ix, n, 0, reps * (size * (size + 1) / 2 + size * k_), "Accumulate");
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Get_accumulate of 1: each rank sees its own fetches grow, the total is exact. */
    fill(w, 0);
    for (int k = 0; k < n; k++) {
        org[k] = 1;
        prev[k] = -1;
    }
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));
    for (int r = 0; r < reps; r++) {
        CHECK_OK(MPI_Get_accumulate(org, n, MPI_INT, res, n, MPI_INT, 0, tdisp(w, 0), count, t,
                                    MPI_SUM, w->win));
        CHECK_OK(MPI_Win_flush(0, w->win));
        for (int k = 0; k < n; k++) {
            CHECK(res[k] > prev[k] && res[k] < (reps + 2) * size, "Get_accumulate (%s): fetched %d "
                  "after %d", flav_name[w->flavor], res[k], prev[k]);
            prev[k] = res[k];
        }
    }
    /* Request-based forms, and NO_OP / REPLACE on the same layout. */
    MPI_Request rq;
    CHECK_OK(MPI_Raccumulate(org, n, MPI_INT, 0, tdisp(w, 0), count, t, MPI_SUM, w->win, &rq));
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Rget_accumulate(org, n, MPI_INT, res, n, MPI_INT, 0, tdisp(w, 0), count, t,
                                 MPI_SUM, w->win, &rq));
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Win_unlock(0, w->win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        CHECK_WIN(w, ix, n, 0, (reps + 2) * size, "Get_accumulate");
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
    CHECK_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, res, n, MPI_INT, 0, tdisp(w, 0), count, t,
                                MPI_NO_OP, w->win));
    CHECK_OK(MPI_Win_flush(0, w->win));
    for (int k = 0; k < n; k++)
        CHECK(res[k] == (reps + 2) * size, "NO_OP fetch %d", res[k]);
    CHECK_OK(MPI_Win_unlock(0, w->win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
    CHECK_OK(MPI_Accumulate(org, n, MPI_INT, 0, tdisp(w, 0), count, t, MPI_REPLACE, w->win));
    CHECK_OK(MPI_Win_unlock(0, w->win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        CHECK_WIN(w, ix, n, 0, 1, "REPLACE");
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* MAXLOC on a vector of MPI_DOUBLE_INT (packed pairs are not the C structs). */
static void test_pairs(twin_t *w)
{
    struct di { double v; int i; } org[8], *tw = (struct di *)(void *)w->mem;
    MPI_Datatype vec;
    CHECK_OK(MPI_Type_vector(2, 2, 3, MPI_DOUBLE_INT, &vec));
    CHECK_OK(MPI_Type_commit(&vec));
    int nb = WN * (int)sizeof(int) / (int)sizeof(struct di);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w->win));
    for (int i = 0; i < nb; i++) {
        tw[i].v = -1.0;
        tw[i].i = -1;
    }
    CHECK_OK(MPI_Win_unlock(rank, w->win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < 4; k++) {
        org[k].v = (double)(k == 1 ? size - rank : rank); /* element 1: rank 0 is largest */
        org[k].i = rank;
    }
    /* Pairs are 16-byte structs; disp_unit is sizeof(int). */
    MPI_Aint d = w->flavor == F_DYNAMIC ? w->addr[0] : 0;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));
    CHECK_OK(MPI_Accumulate(org, 4, MPI_DOUBLE_INT, 0, d, 1, vec, MPI_MAXLOC, w->win));
    CHECK_OK(MPI_Win_unlock(0, w->win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));
        int at[4] = {0, 1, 3, 4};
        for (int k = 0; k < 4; k++) {
            double v = k == 1 ? size : size - 1;
            int i = k == 1 ? 0 : size - 1;
            CHECK(tw[at[k]].v == v && tw[at[k]].i == i, "MAXLOC pair %d: (%g, %d)", k,
                  tw[at[k]].v, tw[at[k]].i);
        }
        CHECK(tw[2].v == -1.0 && tw[2].i == -1 && tw[5].i == -1, "MAXLOC wrote a hole");
        CHECK_OK(MPI_Win_unlock(0, w->win));
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Type_free(&vec);
}

/* The origin at MPI_BOTTOM, its type of absolute addresses. */
static void test_bottom(twin_t *w)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size, v[2] = {3000 + rank, 0};
    int bl = 1, ix0 = 0;
    MPI_Aint addr;
    MPI_Datatype t;
    CHECK_OK(MPI_Get_address(&v[0], &addr));
    CHECK_OK(MPI_Type_create_hindexed(1, &bl, &addr, MPI_INT, &t));
    CHECK_OK(MPI_Type_commit(&t));
    fill(w, HOLE);
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, w->win));
    CHECK_OK(MPI_Put(MPI_BOTTOM, 1, t, to, tdisp(w, to), 1, MPI_INT, w->win));
    CHECK_OK(MPI_Win_unlock(to, w->win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_WIN(w, &ix0, 1, HOLE, 3000 + from, "Put from MPI_BOTTOM");
    MPI_Type_free(&t);
}

/* An access whose holes reach past the window is refused, not performed. */
static void test_range(twin_t *w)
{
    MPI_Datatype t;
    int v[2] = {1, 2}, cls = MPI_SUCCESS;
    if (w->flavor == F_DYNAMIC)
        return; /* checked at the target there */
    CHECK_OK(MPI_Type_vector(2, 1, WN, MPI_INT, &t));
    CHECK_OK(MPI_Type_commit(&t));
    CHECK_OK(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));
    MPI_Error_class(MPI_Put(v, 2, MPI_INT, 0, 0, 1, t, w->win), &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "put past the window: class %d", cls);
    MPI_Error_class(MPI_Put(v, 0, MPI_INT, 0, 0, 2, MPI_INT, w->win), &cls);
    CHECK(cls == MPI_ERR_ARG, "put of 0 origin ints to 2 target ints: class %d", cls);
    CHECK_OK(MPI_Win_unlock(0, w->win));
    CHECK_OK(MPI_Win_set_errhandler(w->win, MPI_ERRORS_ARE_FATAL));
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int f = 0; f < NFLAV; f++) {
        twin_t w;
        if (!twin_open(&w, f))
            continue;
        for (int which = 0; which < NT; which++) {
            int count, ix[WN];
            MPI_Datatype t = make_type(which, &count);
            int n = type_ints(t, count, ix);
            test_put_get(&w, t, count, ix, n);
            test_acc(&w, t, count, ix, n);
            MPI_Type_free(&t);
        }
        test_pairs(&w);
        test_bottom(&w);
        test_range(&w);
        twin_close(&w);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("rma_dtype: ok (%d ranks)\n", size);
    return 0;
}
