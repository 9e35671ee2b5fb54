/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO collective access over interleaved views (two-phase: pieces travel to the
 * aggregator owning their file domain): a block-cyclic array written with write_all
 * and read back with read_at_all under another distribution, with collective buffering
 * enabled and disabled by hint, a read past the end of file (short count), ranks with
 * nothing to access, and a striping_unit that aligns the file domains. */
#include "io_util.h"

#define NBLK 37 /* blocks per rank */

static int rank, size;

static void roundtrip(const char *path, const char *cb, int blk, int rblk)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", cb);
    MPI_Info_set(info, "romio_cb_read", cb);
    MPI_Info_set(info, "striping_unit", "512");
    MPI_File fh;
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    MPI_Info_free(&info);
    CHECK_OK(MPI_File_set_size(fh, 0));
    long n = (long)NBLK * blk * size; /* ints in the file */
    MPI_Datatype ft, ft1;
    MPI_Type_vector(NBLK, blk, blk * size, MPI_INT, &ft1);
    MPI_Type_create_resized(ft1, 0, (MPI_Aint)n * 4, &ft);
    MPI_Type_commit(&ft);
    CHECK_OK(MPI_File_set_view(fh, (MPI_Offset)rank * blk * 4, MPI_INT, ft, "native",
                               MPI_INFO_NULL));
    int *buf = malloc(sizeof(int) * NBLK * (size_t)blk);
    for (int b = 0; b < NBLK; b++)
        for (int j = 0; j < blk; j++)
            buf[b * blk + j] = (b * size + rank) * blk + j; /* its index in the file */
    MPI_Status st;
    CHECK_OK(MPI_File_write_all(fh, buf, NBLK * blk, MPI_INT, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == NBLK * blk, "write_all count %d", cnt);
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_sync(fh));
    int *raw = malloc(sizeof(int) * (size_t)n + 64);
    CHECK(io_slurp(path, (unsigned char *)raw, n * 4 + 64) == n * 4, "file length (%s)", cb);
    for (long i = 0; i < n; i++)
        CHECK(raw[i] == i, "file int %ld = %d (cb %s, blk %d)", i, raw[i], cb, blk);
    free(raw);
    MPI_Type_free(&ft);
    MPI_Type_free(&ft1);

    /* read back cyclically by rblk, into every other int of memory; the last rank
     * asks for one block past the end of file */
    MPI_Type_vector((int)(n / rblk / size) + 1, rblk, rblk * size, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    CHECK_OK(MPI_File_set_view(fh, (MPI_Offset)rank * rblk * 4, MPI_INT, ft, "native",
                               MPI_INFO_NULL));
    int want = (int)(n / rblk / size) * rblk + (rank == size - 1 ? rblk : 0);
    long have = 0; /* the ints of my view before end of file */
    while (have < want && (have / rblk) * rblk * size + (long)rank * rblk + have % rblk < n)
        have++;
    int *back = malloc(sizeof(int) * (2 * (size_t)want + 4)); /* and the 3 of the small read */
    MPI_Datatype mt;
    MPI_Type_vector(want, 1, 2, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    memset(back, 0xff, sizeof(int) * 2 * (size_t)want);
    CHECK_OK(MPI_File_read_at_all(fh, 0, back, 1, mt, &st));
    MPI_Get_elements(&st, MPI_INT, &cnt);
    long expect = have < want ? have : want;
    CHECK(cnt == expect, "read_at_all elements %d, want %ld (cb %s)", cnt, expect, cb);
    for (int i = 0; i < cnt; i++) {
        long idx = (long)(i / rblk) * rblk * size + (long)rank * rblk + i % rblk;
        CHECK(back[2 * i] == idx, "read_at_all %d: %d, want %ld (cb %s)", i, back[2 * i], idx, cb);
        CHECK(back[2 * i + 1] == -1, "memory hole written");
    }
    /* ranks with nothing to read take part */
    CHECK_OK(MPI_File_read_at_all(fh, 0, back, rank % 2 ? 0 : 3, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    int small = rank % 2 || (long)rank * rblk >= n ? 0 : 3; /* a view past the end: 0 */
    CHECK(cnt == small && (!small || back[0] == rank * rblk),
          "small read_at_all: count %d, first %d (cb %s)", cnt, back[0], cb);
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
    free(back);
    free(buf);
    CHECK_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_start(&argc, &argv, &rank, &size);
    char p[320];
    snprintf(p, sizeof(p), "%s", io_path("coll"));
    roundtrip(p, "enable", 5, 3);
    roundtrip(p, "disable", 5, 3);
    roundtrip(p, "automatic", 300, 7);
    roundtrip(p, "enable", 1, 1000);
    const char *names[] = {"coll"};
    io_dir_remove(names, 1);
    MPI_Finalize();
    if (rank == 0)
        printf("io_coll: ok\n");
    return 0;
}
