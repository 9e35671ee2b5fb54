/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Type_create_darray (+ _c): the elements a darray type selects from a global array
 * (packed from an array holding each element's own index) against the standard's
 * definition computed element by element, and against hand-written lists for one
 * case; extent = the whole array, lb 0; envelope and contents. Each rank checks its own
 * part of a grid of the world's size and every part of fixed grids of 6 and 4. */
#include <string.h>

#include "check.h"

#define MAXG 4096

static int rank, wsize;

/* Owner coordinate of global index x of one dimension. */
static int owner(int x, int g, int distrib, int darg, int p)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return x / blk;
    }
    int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return x / blk % p;
}

/* The expected indices: the global array in memory order, the elements r owns. */
static int expected(int size, int r, int nd, const int *g, const int *dist, const int *darg,
                    const int *ps, int order, int *out)
{
    int coords[4], n = 0, total = 1, procs = size;
    for (int i = 0; i < nd; i++) {
        procs /= ps[i];
        coords[i] = r / procs;
        r %= procs;
        total *= g[i];
    }
    for (int lin = 0; lin < total; lin++) {
        int rest = lin, mine = 1;
        for (int k = 0; k < nd; k++) { /* fastest dimension first */
            int i = order == MPI_ORDER_C ? nd - 1 - k : k;
            int x = rest % g[i];
            rest /= g[i];
            mine &= owner(x, g[i], dist[i], darg[i], ps[i]) == coords[i];
        }
        if (mine)
            out[n++] = lin;
    }
    return n;
}

static int global[MAXG];

static void check_one(const char *what, int size, int r, int nd, const int *g, const int *dist,
                      const int *darg, const int *ps, int order, int use_c)
{
    static int want[MAXG], got[MAXG];
    MPI_Datatype t;
    int total = 1;
    for (int i = 0; i < nd; i++)
        total *= g[i];
    if (use_c) {
        MPI_Count gc[4];
        for (int i = 0; i < nd; i++)
            gc[i] = g[i];
        CHECK_OK(MPI_Type_create_darray_c(size, r, nd, gc, dist, darg, ps, order, MPI_INT, &t));
    } else {
        CHECK_OK(MPI_Type_create_darray(size, r, nd, g, dist, darg, ps, order, MPI_INT, &t));
    }
    CHECK_OK(MPI_Type_commit(&t));
    int n = expected(size, r, nd, g, dist, darg, ps, order, want), ts, pos = 0;
    MPI_Aint lb, ext;
    CHECK_OK(MPI_Type_size(t, &ts));
    CHECK(ts == n * 4, "%s rank %d: size %d, expected %d", what, r, ts, n * 4);
    CHECK_OK(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(lb == 0 && ext == (MPI_Aint)total * 4, "%s rank %d: lb %ld extent %ld", what, r,
          (long)lb, (long)ext);
    CHECK_OK(MPI_Pack(global, 1, t, got, sizeof(got), &pos, MPI_COMM_SELF));
    for (int k = 0; k < n; k++)
        CHECK(got[k] == want[k], "%s rank %d: element %d is %d, expected %d", what, r, k,
              got[k], want[k]);
    if (!use_c) {
        int ni, na, ndt, comb, ints[20];
        MPI_Aint addrs[1];
        MPI_Datatype types[1];
        CHECK_OK(MPI_Type_get_envelope(t, &ni, &na, &ndt, &comb));
        CHECK(comb == MPI_COMBINER_DARRAY && ni == 4 * nd + 4 && na == 0 && ndt == 1,
              "%s: envelope %d %d %d %d", what, comb, ni, na, ndt);
        CHECK_OK(MPI_Type_get_contents(t, 20, 1, 1, ints, addrs, types));
        CHECK(ints[0] == size && ints[1] == r && ints[2] == nd && ints[3] == g[0] &&
                  ints[3 + nd] == dist[0] && ints[3 + 2 * nd] == darg[0] &&
                  ints[3 + 3 * nd] == ps[0] && ints[4 * nd + 3] == order &&
                  types[0] == MPI_INT, "%s: contents", what);
    } else {
        MPI_Count ni, na, nc, ndt;
        int comb;
        CHECK_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &ndt, &comb));
        CHECK(comb == MPI_COMBINER_DARRAY && ni == 3 * nd + 4 && nc == nd && ndt == 1,
              "%s: envelope_c", what);
    }
    CHECK_OK(MPI_Type_free(&t));
}

/* Every part of a grid, each global element owned exactly once. */
static void check_grid(const char *what, int size, int nd, const int *g, const int *dist,
                       const int *darg, const int *ps, int order)
{
    for (int r = 0; r < size; r++)
        check_one(what, size, r, nd, g, dist, darg, ps, order, r % 2);
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 0; i < MAXG; i++)
        global[i] = i;
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;

    /* Hand-computed: a 4x6 C array, rows in blocks over 2, columns cyclic(2) over 2. */
    {
        int g[2] = {4, 6}, dist[2] = {B, C}, darg[2] = {D, 2}, ps[2] = {2, 2}, got[8], pos = 0;
        int want1[] = {2, 3, 8, 9}, want2[] = {12, 13, 16, 17, 18, 19, 22, 23};
        MPI_Datatype t;
        CHECK_OK(MPI_Type_create_darray(4, 1, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
        CHECK_OK(MPI_Type_commit(&t));
        CHECK_OK(MPI_Pack(global, 1, t, got, sizeof(got), &pos, MPI_COMM_SELF));
        CHECK(pos == 16 && !memcmp(got, want1, sizeof(want1)), "hand case, rank 1");
        CHECK_OK(MPI_Type_free(&t));
        pos = 0;
        CHECK_OK(MPI_Type_create_darray(4, 2, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
        CHECK_OK(MPI_Type_commit(&t));
        CHECK_OK(MPI_Pack(global, 1, t, got, sizeof(got), &pos, MPI_COMM_SELF));
        CHECK(pos == 32 && !memcmp(got, want2, sizeof(want2)), "hand case, rank 2");
        CHECK_OK(MPI_Type_free(&t));
        /* The same in Fortran order (6 fastest is now the first dimension's role). */
        int gf[2] = {6, 4}, df[2] = {C, B}, af[2] = {2, D}, pf[2] = {2, 2};
        int wantf[] = {2, 3, 8, 9}; /* rank 2: grid coords (1, 0) own columns 2,3 rows 0,1 */
        pos = 0;
        CHECK_OK(MPI_Type_create_darray(4, 2, 2, gf, df, af, pf, MPI_ORDER_FORTRAN, MPI_INT,
                                        &t));
        CHECK_OK(MPI_Type_commit(&t));
        CHECK_OK(MPI_Pack(global, 1, t, got, sizeof(got), &pos, MPI_COMM_SELF));
        CHECK(pos == 16 && !memcmp(got, wantf, sizeof(wantf)), "hand case, Fortran order");
        CHECK_OK(MPI_Type_free(&t));
    }

    /* The world's own grid: a 1-D block and a 2-D cyclic over wsize x 1. */
    {
        int g[1] = {37}, dist[1] = {B}, darg[1] = {D}, ps[1] = {wsize};
        check_one("world block", wsize, rank, 1, g, dist, darg, ps, MPI_ORDER_C, 0);
        int g2[2] = {13, 5}, dist2[2] = {C, N}, darg2[2] = {3, D}, ps2[2] = {wsize, 1};
        check_one("world cyclic", wsize, rank, 2, g2, dist2, darg2, ps2, MPI_ORDER_FORTRAN, 1);
    }
    /* Fixed grids, every part: 3-D mixes in both orders, short last blocks, empty parts. */
    {
        int g[3] = {7, 5, 9}, dist[3] = {B, C, C}, darg[3] = {D, D, 2}, ps[3] = {3, 1, 2};
        check_grid("3d C", 6, 3, g, dist, darg, ps, MPI_ORDER_C);
        check_grid("3d Fortran", 6, 3, g, dist, darg, ps, MPI_ORDER_FORTRAN);
        int g2[2] = {10, 3}, dist2[2] = {B, C}, darg2[2] = {4, 1}, ps2[2] = {3, 2};
        check_grid("block 4 of 10 over 3", 6, 2, g2, dist2, darg2, ps2, MPI_ORDER_C);
        int g3[2] = {2, 9}, dist3[2] = {C, B}, darg3[2] = {5, D}, ps3[2] = {4, 1};
        check_grid("cyclic(5) of 2 over 4 (empty parts)", 4, 2, g3, dist3, darg3, ps3,
                   MPI_ORDER_FORTRAN);
    }
    /* Bad arguments. */
    {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int g[1] = {10}, dist[1] = {B}, darg[1] = {2}, ps[1] = {4}, ec;
        MPI_Datatype t;
        int rc = MPI_Type_create_darray(4, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
        MPI_Error_class(rc, &ec);
        CHECK(ec == MPI_ERR_ARG, "4 blocks of 2 for 10 elements: class %d", ec);
        darg[0] = D;
        rc = MPI_Type_create_darray(3, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
        MPI_Error_class(rc, &ec);
        CHECK(ec == MPI_ERR_ARG, "grid of 4 for size 3: class %d", ec);
        dist[0] = N;
        rc = MPI_Type_create_darray(4, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
        MPI_Error_class(rc, &ec);
        CHECK(ec == MPI_ERR_ARG, "NONE over 4: class %d", ec);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("dtype_darray: ok\n");
    return 0;
}
