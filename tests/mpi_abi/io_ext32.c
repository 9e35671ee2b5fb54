/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO "external32" views of types whose size in the file differs from the native
 * one (MPI-4.1 section 14.5.2: long is 4 bytes, wchar_t 2; long double is IEEE quad):
 * the bytes in the file (read with POSIX), file offsets counted in external32 sizes
 * (explicit offsets and a strided filetype), reading back through the view, the
 * type extent in the file, byte offsets and the end of the file in the view's terms,
 * and the nonblocking forms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <mpi.h>

#include "io_util.h"

static int rank, size;

static long be32s(const unsigned char *b)
{
    return (long)(int)((unsigned)b[0] << 24 | (unsigned)b[1] << 16 | (unsigned)b[2] << 8 | b[3]);
}

static long lval(int r, int k)
{
    return (k % 2 ? -1L : 1L) * (r * 100 + k);
}

/* Explicit offsets in longs: 4 bytes each in the file. */
static void t_long(const char *path)
{
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open");
    CHECK(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL) ==
              MPI_SUCCESS,
          "set_view long external32");
    MPI_Aint e = 0;
    CHECK(MPI_File_get_type_extent(fh, MPI_LONG, &e) == MPI_SUCCESS && e == 4,
          "file extent of long %ld, want 4", (long)e);
    long w[8], r[8];
    for (int k = 0; k < 8; k++)
        w[k] = lval(rank, k);
    MPI_Status st;
    CHECK(MPI_File_write_at(fh, rank * 8, w, 8, MPI_LONG, &st) == MPI_SUCCESS, "write_at");
    int n = -1;
    MPI_Get_count(&st, MPI_LONG, &n);
    CHECK(n == 8, "write_at count %d", n);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    if (rank == 0) {
        unsigned char raw[4 * 8 * 64];
        long got = io_slurp(path, raw, sizeof(raw));
        CHECK(got == 32L * size, "file has %ld bytes, want %d (4 per long)", got, 32 * size);
        for (int i = 0; i < 8 * size; i++)
            CHECK(be32s(raw + 4 * i) == lval(i / 8, i % 8), "long %d in the file: %ld", i,
                  be32s(raw + 4 * i));
    }
    int from = (rank + 1) % size;
    memset(r, 0, sizeof(r));
    CHECK(MPI_File_read_at(fh, from * 8, r, 8, MPI_LONG, &st) == MPI_SUCCESS, "read_at");
    MPI_Get_count(&st, MPI_LONG, &n);
    CHECK(n == 8, "read_at count %d", n);
    for (int k = 0; k < 8; k++)
        CHECK(r[k] == lval(from, k), "long %d of rank %d read back %ld", k, from, r[k]);
    /* nonblocking forms in the view */
    MPI_Request q;
    memset(r, 0, sizeof(r));
    CHECK(MPI_File_iread_at(fh, rank * 8 + 2, r, 4, MPI_LONG, &q) == MPI_SUCCESS, "iread_at");
    CHECK(MPI_Wait(&q, &st) == MPI_SUCCESS, "Wait");
    for (int k = 0; k < 4; k++)
        CHECK(r[k] == lval(rank, k + 2), "iread_at long %d: %ld", k, r[k]);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
}

/* A strided filetype: rank r's k-th long is the file's long k * size + r. */
static void t_vector(const char *path)
{
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open");
    MPI_Datatype ft;
    MPI_Type_vector(6, 1, size, MPI_LONG, &ft);
    MPI_Type_commit(&ft);
    CHECK(MPI_File_set_view(fh, 4 * rank, MPI_LONG, ft, "external32", MPI_INFO_NULL) ==
              MPI_SUCCESS,
          "set_view vector");
    MPI_Aint e = 0;
    MPI_File_get_type_extent(fh, ft, &e);
    CHECK(e == 4 * (5 * size + 1), "file extent of the vector %ld, want %d", (long)e,
          4 * (5 * size + 1));
    long w[6], r[6];
    for (int k = 0; k < 6; k++)
        w[k] = lval(rank, k);
    CHECK(MPI_File_write_all(fh, w, 6, MPI_LONG, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "write_all");
    MPI_Offset p = -1;
    MPI_File_get_position(fh, &p);
    CHECK(p == 6, "position %lld after 6 longs", (long long)p);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    if (rank == 0) {
        unsigned char raw[4 * 6 * 64];
        long got = io_slurp(path, raw, sizeof(raw));
        CHECK(got == 24L * size, "file has %ld bytes, want %d", got, 24 * size);
        for (int i = 0; i < 6 * size; i++)
            CHECK(be32s(raw + 4 * i) == lval(i % size, i / size), "long %d: %ld", i,
                  be32s(raw + 4 * i));
    }
    memset(r, 0, sizeof(r));
    CHECK(MPI_File_read_at(fh, 1, r, 5, MPI_LONG, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "read_at");
    for (int k = 0; k < 5; k++)
        CHECK(r[k] == lval(rank, k + 1), "strided long %d read back %ld", k, r[k]);
    /* offsets of the view in the file's sizes, not the native ones */
    MPI_Offset b = -1;
    CHECK(MPI_File_get_byte_offset(fh, 2, &b) == MPI_SUCCESS && b == 4 * rank + 8 * size,
          "byte offset of long 2: %lld, want %d", (long long)b, 4 * rank + 8 * size);
    /* the end of the file (24 * size bytes) in this rank's view: its 6 longs, and the
     * first long of the next tiling of the filetype (at 4 * rank + 4 * (5 * size + 1))
     * where that long still lies in the file, which it does for all ranks but the last */
    int want = 6 + (rank < size - 1);
    CHECK(MPI_File_seek(fh, 0, MPI_SEEK_END) == MPI_SUCCESS, "seek to the end");
    MPI_File_get_position(fh, &p);
    CHECK(p == want, "position %lld at the end of the file, want %d", (long long)p, want);
    MPI_Type_free(&ft);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
}

/* wchar_t (2 bytes) and long double (IEEE quad), one process's own file. */
static void t_wchar_ldbl(const char *path)
{
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open");
    CHECK(MPI_File_set_view(fh, 0, MPI_WCHAR, MPI_WCHAR, "external32", MPI_INFO_NULL) ==
              MPI_SUCCESS,
          "set_view wchar");
    wchar_t w[5] = {L'a', L'b', (wchar_t)0x263a, L'z', (wchar_t)(0x100 + rank)}, r[5] = {0};
    CHECK(MPI_File_write_at(fh, 0, w, 5, MPI_WCHAR, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "write wchar");
    CHECK(MPI_File_read_at(fh, 0, r, 5, MPI_WCHAR, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "read wchar");
    CHECK(memcmp(w, r, sizeof(w)) == 0, "wchar read back");
    long double x[2] = {1.5L, -0.25L}, y[2] = {0, 0};
    CHECK(MPI_File_set_view(fh, 10, MPI_LONG_DOUBLE, MPI_LONG_DOUBLE, "external32",
                            MPI_INFO_NULL) == MPI_SUCCESS,
          "set_view long double");
    CHECK(MPI_File_write_at(fh, 0, x, 2, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "write long double");
    CHECK(MPI_File_read_at(fh, 0, y, 2, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "read long double");
    CHECK(y[0] == 1.5L && y[1] == -0.25L, "long double read back %Lg %Lg", y[0], y[1]);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    unsigned char raw[64];
    long got = io_slurp(path, raw, sizeof(raw));
    CHECK(got == 10 + 32, "file has %ld bytes, want 42 (5 x 2 + 2 x 16)", got);
    const unsigned char wb[10] = {0, 'a', 0, 'b', 0x26, 0x3a, 0, 'z', 1, (unsigned char)rank};
    CHECK(memcmp(raw, wb, 10) == 0, "wchar bytes in the file");
    /* IEEE quad big-endian: 1.5 is 3fff 8000 0...; -0.25 is bffd 0000 0... */
    const unsigned char q0[4] = {0x3f, 0xff, 0x80, 0}, q1[4] = {0xbf, 0xfd, 0, 0};
    CHECK(memcmp(raw + 10, q0, 4) == 0 && memcmp(raw + 26, q1, 4) == 0,
          "long double bytes %02x%02x%02x%02x", raw[10], raw[11], raw[12], raw[13]);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
}

int main(int argc, char **argv)
{
    io_start(&argc, &argv, &rank, &size);
    CHECK(size <= 64, "at most 64 ranks");
    char own[64];
    snprintf(own, sizeof(own), "wl.%d", rank);
    t_long(io_path("long.dat"));
    t_vector(io_path("vec.dat"));
    t_wchar_ldbl(io_path(own));
    unlink(io_path(own));
    const char *names[] = {"long.dat", "vec.dat"};
    io_dir_remove(names, 2);
    if (rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
