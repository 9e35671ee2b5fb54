/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixed cost of MPI-IO: MPI_File_open (MPI_MODE_CREATE | MPI_MODE_RDWR) and
 * MPI_File_close of one file by every rank, nothing written, N times after a warm-up of
 * 5; standard MPI only (benchmarks/io/compare-open builds it with each MPI's wrapper).
 * Prints the mean of the slowest rank per iteration, in microseconds:
 *   RESULT np=N open_us=O close_us=C
 *
 *   open_close [-n N] FILE */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, n = 200;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
        else
            path = argv[i];
    }
    if (!path || n < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: open_close [-n N] FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double t[2] = {0, 0};
    for (int i = -5; i < n; i++) {
        MPI_File fh;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 3);
        double t1 = MPI_Wtime();
        MPI_File_close(&fh);
        double t2 = MPI_Wtime();
        double d[2] = {t1 - t0, t2 - t1}, m[2];
        MPI_Reduce(d, m, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (i >= 0) {
            t[0] += m[0];
            t[1] += m[1];
        }
    }
    if (rank == 0) {
        printf("RESULT np=%d open_us=%.1f close_us=%.1f\n", np, t[0] / n * 1e6, t[1] / n * 1e6);
        MPI_File_delete(path, MPI_INFO_NULL);
    }
    MPI_Finalize();
    return 0;
}
