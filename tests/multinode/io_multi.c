/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO across hosts (tests/multinode/run): `io_multi DIR`, DIR a directory every
 * rank sees. A 2-D array of doubles distributed by column blocks (each rank's part is
 * strided in the file) is written with MPI_File_write_all through a subarray view (its
 * cb_nodes hint, one aggregator per host by default, checked against the hosts);
 * every rank then reads the whole file back and checks every element. Then each rank
 * writes rank + 1 ints with MPI_File_write_ordered, and every rank checks that the
 * blocks are in rank order. Prints "2 passed, 0 failed" (rank 0) on success; any
 * mismatch aborts the job with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define ROWS 96
#define COLS 80

#define CHECK(c, ...)                                                                      \
    do {                                                                                   \
        if (!(c)) {                                                                        \
            fprintf(stderr, "io_multi rank %d: ", rank);                                   \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                  \
        }                                                                                  \
    } while (0)

static int rank, size;

static double val(int i, int j)
{
    return i * 1000.0 + j + 0.25;
}

static void t_write_all(const char *path)
{
    int c0 = COLS * rank / size, c1 = COLS * (rank + 1) / size, nc = c1 - c0;
    int gs[2] = {ROWS, COLS}, ls[2] = {ROWS, nc}, st[2] = {0, c0};
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    double *mine = malloc(sizeof(double) * ROWS * (size_t)(nc ? nc : 1));
    double *all = malloc(sizeof(double) * ROWS * COLS);
    CHECK(mine && all, "malloc");
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < nc; j++)
            mine[i * nc + j] = val(i, c0 + j);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                           &fh);
    CHECK(rc == MPI_SUCCESS, "open %s: error %d", path, rc);
    /* one aggregator per node by default: cb_nodes is the number of hosts */
    MPI_Comm node;
    int lr, hosts = 0, len = 16, flag = 0;
    char v[16];
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lr);
    lr = lr == 0;
    MPI_Allreduce(&lr, &hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    MPI_Info in;
    CHECK(MPI_File_get_info(fh, &in) == MPI_SUCCESS, "get_info");
    CHECK(MPI_Info_get_string(in, "cb_nodes", &len, v, &flag) == MPI_SUCCESS && flag &&
              atoi(v) == hosts,
          "cb_nodes is %s, want %d (the hosts)", flag ? v : "unset", hosts);
    MPI_Info_free(&in);
    CHECK(MPI_File_set_size(fh, 0) == MPI_SUCCESS, "set_size");
    CHECK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL) == MPI_SUCCESS,
          "set_view");
    MPI_Status s;
    CHECK(MPI_File_write_all(fh, mine, ROWS * nc, MPI_DOUBLE, &s) == MPI_SUCCESS, "write_all");
    int n = -1;
    MPI_Get_count(&s, MPI_DOUBLE, &n);
    CHECK(n == ROWS * nc, "write_all count %d, want %d", n, ROWS * nc);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS,
          "set_view bytes");
    MPI_Offset sz = -1;
    MPI_File_get_size(fh, &sz);
    CHECK(sz == (MPI_Offset)sizeof(double) * ROWS * COLS, "file size %lld", (long long)sz);
    memset(all, 0, sizeof(double) * ROWS * COLS);
    CHECK(MPI_File_read_at_all(fh, 0, all, ROWS * COLS, MPI_DOUBLE, &s) == MPI_SUCCESS,
          "read_at_all");
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            CHECK(all[i * COLS + j] == val(i, j), "element (%d,%d) is %g, want %g", i, j,
                  all[i * COLS + j], val(i, j));
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    MPI_Type_free(&ft);
    free(mine);
    free(all);
}

static void t_ordered(const char *path)
{
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                           &fh);
    CHECK(rc == MPI_SUCCESS, "open %s: error %d", path, rc);
    CHECK(MPI_File_set_size(fh, 0) == MPI_SUCCESS, "set_size");
    int mine[64];
    for (int k = 0; k <= rank; k++)
        mine[k] = rank * 1000 + k;
    CHECK(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "write_ordered");
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    int total = size * (size + 1) / 2, *all = malloc(sizeof(int) * (size_t)total);
    CHECK(all != NULL, "malloc");
    MPI_Offset pos = -1;
    MPI_File_get_position_shared(fh, &pos);
    /* the default view's etype is MPI_BYTE */
    CHECK(pos == total * (MPI_Offset)sizeof(int),
          "shared pointer at %lld after write_ordered, want %lld", (long long)pos,
          (long long)(total * (MPI_Offset)sizeof(int)));
    CHECK(MPI_File_read_at(fh, 0, all, total, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "read_at");
    int at = 0;
    for (int r = 0; r < size; r++)
        for (int k = 0; k <= r; k++, at++)
            CHECK(all[at] == r * 1000 + k, "ordered element %d is %d, want %d", at, all[at],
                  r * 1000 + k);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    free(all);
}

static void remove_file(const char *path)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(MPI_File_delete(path, MPI_INFO_NULL) == MPI_SUCCESS, "delete %s", path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc > 1, "usage: io_multi DIR (a directory every rank sees)");
    CHECK(size <= 64, "at most 64 ranks");
    char path[512];
    snprintf(path, sizeof(path), "%s/io_multi.dat", argv[1]);
    t_write_all(path);
    remove_file(path);
    if (rank == 0)
        printf("ok write_all of a %dx%d column-block array, read back by every rank\n", ROWS,
               COLS);
    snprintf(path, sizeof(path), "%s/io_multi_ordered.dat", argv[1]);
    t_ordered(path);
    remove_file(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ok write_ordered of %d ranks\n", size);
        printf("2 passed, 0 failed\n");
    }
    MPI_Finalize();
    return 0;
}
