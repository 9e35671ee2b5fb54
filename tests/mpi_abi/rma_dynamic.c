/* SPDX-License-Identifier: BSD-3-Clause */
/* A dynamic window whose target attached an array as two regions that touch: one
 * MPI_Put and one MPI_Get span both (MPI forbids overlap, not adjacency), at eager
 * and larger sizes; an access running into memory not attached (a gap between two
 * regions) is refused. Run at 2 ranks. */
#include <string.h>

#include "check.h"

#define N 16384 /* ints per half */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    int *mem = calloc(3 * N, sizeof(int)); /* [half A][half B][gap-separated C] */
    int *src = malloc(2 * N * sizeof(int)), *chk = malloc(2 * N * sizeof(int));
    CHECK(mem && src && chk, "out of memory");
    MPI_Win win;
    CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Aint addr[2] = {0, 0};
    if (rank == 1) {
        CHECK_OK(MPI_Win_attach(win, mem, N * sizeof(int)));
        CHECK_OK(MPI_Win_attach(win, mem + N, N * sizeof(int)));
        /* C starts one int after B ends: the int between is not attached */
        CHECK_OK(MPI_Win_attach(win, mem + 2 * N + 1, (N - 1) * sizeof(int)));
        CHECK_OK(MPI_Get_address(mem, &addr[0]));
        CHECK_OK(MPI_Get_address(mem + N, &addr[1]));
    }
    CHECK_OK(MPI_Bcast(addr, 2, MPI_AINT, 1, MPI_COMM_WORLD));
    if (rank == 0) {
        const int counts[] = {8, 1000, N, 2 * N};
        for (int c = 0; c < 4; c++) {
            int n = counts[c];
            /* n ints ending ... starting n/2 before the boundary (all of both for 2N) */
            MPI_Aint at = n == 2 * N ? addr[0] : MPI_Aint_add(addr[1], -(MPI_Aint)(n / 2) * 4);
            for (int i = 0; i < n; i++)
                src[i] = c * 100000 + i;
            memset(chk, 0, (size_t)n * sizeof(int));
            CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
            CHECK_OK(MPI_Put(src, n, MPI_INT, 1, at, n, MPI_INT, win));
            CHECK_OK(MPI_Win_flush(1, win));
            CHECK_OK(MPI_Get(chk, n, MPI_INT, 1, at, n, MPI_INT, win));
            CHECK_OK(MPI_Win_unlock(1, win));
            for (int i = 0; i < n; i++)
                CHECK(chk[i] == src[i], "%d ints across the regions: int %d is %d", n, i,
                      chk[i]);
        }
        /* B's last int and the unattached one after it */
        MPI_Aint bad = MPI_Aint_add(addr[1], (MPI_Aint)(N - 1) * 4);
        CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        int err = MPI_Put(src, 2, MPI_INT, 1, bad, 2, MPI_INT, win);
        if (err == MPI_SUCCESS)
            err = MPI_Win_flush(1, win);
        MPI_Win_unlock(1, win);
        CHECK(err != MPI_SUCCESS, "a put into memory not attached succeeded");
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        CHECK(mem[2 * N] == 0, "the unattached int was written");
        CHECK_OK(MPI_Win_detach(win, mem));
        CHECK_OK(MPI_Win_detach(win, mem + N));
        CHECK_OK(MPI_Win_detach(win, mem + 2 * N + 1));
    }
    CHECK_OK(MPI_Win_free(&win));
    free(mem);
    free(src);
    free(chk);
    MPI_Finalize();
    if (rank == 0)
        printf("rma_dynamic: ok\n");
    return 0;
}
