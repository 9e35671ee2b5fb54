/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO nonblocking independent access done by the I/O thread (mpi/file_async.c):
 * completion without waiting, data, many outstanding requests (Waitall, Testany,
 * Testsome), non-contiguous memory, the individual and shared pointers, sync after
 * nonblocking writes, close with operations pending, Request_free and Cancel of
 * pending ones. MPI_Init (MPI_THREAD_SINGLE): the thread is the library's.
 * `io_async --bench MIB`: times iwrite+wait, a compute loop, and both overlapped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "io_util.h"

#define BIG ((int)4 << 20)
#define NREQ 64
#define SMALL 4096

static int rank, size;

static unsigned char pat(int r, long i)
{
    return (unsigned char)(r * 131 + i * 7 + (i >> 12));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

static void compute(long iters)
{
    double x = 1.0;
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* A big write and read per rank, completed by polling MPI_Test only. */
static void t_big(MPI_File fh)
{
    unsigned char *w = malloc(BIG), *r = malloc(BIG);
    CHECK(w && r, "malloc");
    for (long i = 0; i < BIG; i++)
        w[i] = pat(rank, i);
    MPI_Request q;
    MPI_Status st;
    CHECK(MPI_File_iwrite_at(fh, (MPI_Offset)rank * BIG, w, BIG, MPI_BYTE, &q) == MPI_SUCCESS,
          "iwrite_at");
    compute(2000000);
    int flag = 0;
    double t0 = now();
    while (!flag && now() - t0 < 30) {
        CHECK(MPI_Test(&q, &flag, &st) == MPI_SUCCESS, "Test");
        if (!flag)
            compute(10000);
    }
    CHECK(flag && q == MPI_REQUEST_NULL, "iwrite_at did not complete in 30 s");
    int n = -1;
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == BIG, "iwrite_at count %d", n);
    memset(r, 0, BIG);
    CHECK(MPI_File_iread_at(fh, (MPI_Offset)rank * BIG, r, BIG, MPI_BYTE, &q) == MPI_SUCCESS,
          "iread_at");
    CHECK(MPI_Wait(&q, &st) == MPI_SUCCESS, "Wait");
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == BIG && memcmp(w, r, BIG) == 0, "iread_at back: count %d, data differs", n);
    /* the blocking read of the same process sees the completed write */
    memset(r, 0, BIG);
    CHECK(MPI_File_read_at(fh, (MPI_Offset)rank * BIG, r, BIG, MPI_BYTE, &st) == MPI_SUCCESS,
          "read_at");
    CHECK(memcmp(w, r, BIG) == 0, "blocking read after iwrite differs");
    free(w);
    free(r);
}

/* Many small requests outstanding at once. */
static void t_many(MPI_File fh)
{
    MPI_Offset base = (MPI_Offset)size * BIG + (MPI_Offset)rank * NREQ * SMALL;
    unsigned char *w = malloc(NREQ * SMALL), *r = calloc(NREQ, SMALL);
    CHECK(w && r, "malloc");
    for (long i = 0; i < NREQ * SMALL; i++)
        w[i] = pat(rank + 7, i);
    MPI_Request q[NREQ];
    MPI_Status st[NREQ];
    for (int i = 0; i < NREQ; i++) /* in reverse order: the offsets tell where */
        CHECK(MPI_File_iwrite_at(fh, base + (NREQ - 1 - i) * SMALL, w + (NREQ - 1 - i) * SMALL,
                                 SMALL, MPI_BYTE, &q[i]) == MPI_SUCCESS,
              "iwrite_at %d", i);
    CHECK(MPI_Waitall(NREQ, q, st) == MPI_SUCCESS, "Waitall");
    for (int i = 0; i < NREQ; i++) {
        int n = -1;
        MPI_Get_count(&st[i], MPI_BYTE, &n);
        CHECK(n == SMALL && q[i] == MPI_REQUEST_NULL, "Waitall status %d: count %d", i, n);
    }
    for (int i = 0; i < NREQ; i++)
        CHECK(MPI_File_iread_at(fh, base + i * SMALL, r + i * SMALL, SMALL, MPI_BYTE, &q[i]) ==
                  MPI_SUCCESS,
              "iread_at %d", i);
    /* half by Testany, the rest by Testsome */
    int left = NREQ, seen[NREQ] = {0};
    double t0 = now();
    while (left > NREQ / 2 && now() - t0 < 30) {
        int idx = -1, flag = 0;
        CHECK(MPI_Testany(NREQ, q, &idx, &flag, st) == MPI_SUCCESS, "Testany");
        if (flag && idx != MPI_UNDEFINED) {
            CHECK(!seen[idx], "Testany returned %d twice", idx);
            seen[idx] = 1;
            left--;
        }
    }
    while (left > 0 && now() - t0 < 30) {
        int out = 0, idx[NREQ];
        CHECK(MPI_Testsome(NREQ, q, &out, idx, st) == MPI_SUCCESS, "Testsome");
        CHECK(out != MPI_UNDEFINED, "Testsome: no active request while %d left", left);
        for (int k = 0; k < out; k++) {
            CHECK(!seen[idx[k]], "Testsome returned %d twice", idx[k]);
            seen[idx[k]] = 1;
            left--;
        }
    }
    CHECK(left == 0, "%d reads did not complete in 30 s", left);
    CHECK(memcmp(w, r, NREQ * SMALL) == 0, "many: data read back differs");
    free(w);
    free(r);
}

/* Non-contiguous memory through the individual pointer, which moves at the call. */
static void t_vector(const char *path)
{
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open %s", path);
    MPI_Datatype vec;
    MPI_Type_vector(1000, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int w[2000], r[2000];
    for (int i = 0; i < 2000; i++) {
        w[i] = i * 3 + rank;
        r[i] = -1;
    }
    MPI_Request q[2];
    MPI_Offset p = -1;
    CHECK(MPI_File_iwrite(fh, w, 1, vec, &q[0]) == MPI_SUCCESS, "iwrite vector");
    MPI_File_get_position(fh, &p);
    CHECK(p == 4000, "position after iwrite %lld, want 4000", (long long)p);
    CHECK(MPI_File_iwrite(fh, w + 1, 1, vec, &q[1]) == MPI_SUCCESS, "iwrite vector 2");
    CHECK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
    int got[2000];
    CHECK(MPI_File_read_at(fh, 0, got, 2000, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "read_at");
    for (int i = 0; i < 1000; i++)
        CHECK(got[i] == w[2 * i] && got[1000 + i] == w[2 * i + 1], "vector write: element %d",
              i);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    MPI_Status st;
    CHECK(MPI_File_iread(fh, r, 1, vec, &q[0]) == MPI_SUCCESS, "iread vector");
    CHECK(MPI_Wait(&q[0], &st) == MPI_SUCCESS, "Wait");
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 1000, "iread vector count %d", n);
    for (int i = 0; i < 2000; i++)
        CHECK(r[i] == (i % 2 ? -1 : w[i]), "vector read: element %d is %d", i, r[i]);
    MPI_Type_free(&vec);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
}

/* Shared pointer: each rank's block lands once, somewhere; sync makes it visible. */
static void t_shared(const char *path)
{
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open %s", path);
    int mine[16];
    for (int i = 0; i < 16; i++)
        mine[i] = rank * 100 + i;
    MPI_Request q;
    CHECK(MPI_File_iwrite_shared(fh, mine, 16, MPI_INT, &q) == MPI_SUCCESS, "iwrite_shared");
    CHECK(MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    int *all = malloc(sizeof(int) * 16 * (size_t)size), cnt[64] = {0};
    CHECK(all != NULL, "malloc");
    MPI_Status st;
    CHECK(MPI_File_iread_at(fh, 0, all, 16 * size, MPI_INT, &q) == MPI_SUCCESS, "iread_at");
    CHECK(MPI_Wait(&q, &st) == MPI_SUCCESS, "Wait");
    for (int b = 0; b < size; b++) {
        int who = all[16 * b] / 100;
        CHECK(who >= 0 && who < size, "block %d from rank %d", b, who);
        cnt[who]++;
        for (int i = 0; i < 16; i++)
            CHECK(all[16 * b + i] == who * 100 + i, "block %d element %d", b, i);
    }
    for (int r = 0; r < size; r++)
        CHECK(cnt[r] == 1, "rank %d's block is there %d times", r, cnt[r]);
    free(all);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
}

/* Close with requests pending waits for them; Request_free and Cancel of pending ones. */
static void t_close_pending(const char *path)
{
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open %s", path);
    enum { K = 16, SZ = 256 << 10 };
    unsigned char *w = malloc((size_t)K * SZ);
    CHECK(w != NULL, "malloc");
    for (long i = 0; i < (long)K * SZ; i++)
        w[i] = pat(rank + 3, i);
    MPI_Request q[K];
    for (int i = 0; i < K; i++)
        CHECK(MPI_File_iwrite_at(fh, (MPI_Offset)i * SZ, w + (size_t)i * SZ, SZ, MPI_BYTE,
                                 &q[i]) == MPI_SUCCESS,
              "iwrite_at %d", i);
    MPI_Request_free(&q[K - 1]); /* completes on its own */
    CHECK(q[K - 1] == MPI_REQUEST_NULL, "Request_free did not null the handle");
    CHECK(MPI_Cancel(&q[K - 2]) == MPI_SUCCESS, "Cancel of a pending write");
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close with pending writes");
    MPI_Status st[K];
    CHECK(MPI_Waitall(K, q, st) == MPI_SUCCESS, "Waitall after close");
    int c = 0;
    MPI_Test_cancelled(&st[K - 2], &c);
    int skip = c ? K - 2 : -1; /* a cancelled write may or may not have landed */
    for (int i = 0; i < K - 1; i++) {
        int n = -1;
        MPI_Get_count(&st[i], MPI_BYTE, &n);
        CHECK(i == skip || n == SZ, "write %d after close: count %d", i, n);
    }
    unsigned char *r = malloc((size_t)K * SZ);
    CHECK(r != NULL, "malloc");
    long got = io_slurp(path, r, (long)K * SZ);
    CHECK(got == (long)K * SZ, "file has %ld bytes, want %ld", got, (long)K * SZ);
    for (int i = 0; i < K; i++)
        CHECK(i == skip || memcmp(r + (size_t)i * SZ, w + (size_t)i * SZ, SZ) == 0,
              "block %d differs after close", i);
    free(w);
    free(r);
}

/* Sync after nonblocking writes: the next rank reads what this one wrote. */
static void t_sync(MPI_File fh)
{
    MPI_Offset base = (MPI_Offset)size * BIG + (MPI_Offset)size * NREQ * SMALL;
    int w[1024], r[1024];
    for (int i = 0; i < 1024; i++)
        w[i] = rank * 10000 + i;
    MPI_Request q;
    CHECK(MPI_File_iwrite_at(fh, base + rank * (MPI_Offset)sizeof(w), w, 1024, MPI_INT, &q) ==
              MPI_SUCCESS,
          "iwrite_at");
    CHECK(MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    int from = (rank + 1) % size;
    CHECK(MPI_File_read_at(fh, base + from * (MPI_Offset)sizeof(r), r, 1024, MPI_INT,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "read_at");
    for (int i = 0; i < 1024; i++)
        CHECK(r[i] == from * 10000 + i, "rank %d's element %d is %d", from, i, r[i]);
}

static void bench(int mib)
{
    size_t n = (size_t)mib << 20;
    char *w = malloc(n);
    CHECK(w != NULL, "malloc");
    memset(w, rank + 1, n);
    MPI_File fh;
    const char *path = io_path("bench.dat");
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open");
    MPI_Request q;
    MPI_Offset off = (MPI_Offset)rank * (MPI_Offset)n;
    /* warm: the file's pages exist, so every round rewrites the same ones */
    MPI_File_write_at(fh, off, w, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
    double tio = 1e30, tcomp = 1e30, tboth = 1e30;
    long iters = 10000000;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        MPI_File_iwrite_at(fh, off, w, (int)n, MPI_BYTE, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        double t1 = now();
        if (round == 0) { /* calibrate the compute loop to the I/O time */
            double c0 = now();
            compute(iters);
            iters = (long)((double)iters * (t1 - t0) / (now() - c0));
        }
        double t2 = now();
        compute(iters);
        double t3 = now();
        MPI_File_iwrite_at(fh, off, w, (int)n, MPI_BYTE, &q);
        compute(iters);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        double t4 = now();
        if (round > 0) {
            tio = t1 - t0 < tio ? t1 - t0 : tio;
            tcomp = t3 - t2 < tcomp ? t3 - t2 : tcomp;
            tboth = t4 - t3 < tboth ? t4 - t3 : tboth;
        }
    }
    MPI_File_close(&fh);
    if (rank == 0) {
        unlink(path);
        printf("iwrite %d MiB per rank at %d ranks (best of 4): io+wait %.1f ms, compute "
               "%.1f ms, overlapped %.1f ms (sum %.1f, max %.1f)\n",
               mib, size, 1e3 * tio, 1e3 * tcomp, 1e3 * tboth, 1e3 * (tio + tcomp),
               1e3 * (tio > tcomp ? tio : tcomp));
    }
    free(w);
}

int main(int argc, char **argv)
{
    io_start(&argc, &argv, &rank, &size);
    CHECK(size <= 64, "at most 64 ranks");
    if (argc > 2 && strcmp(argv[1], "--bench") == 0) {
        bench(atoi(argv[2]));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            rmdir(io_dir);
        MPI_Finalize();
        return 0;
    }
    char mine[64], cls[64];
    snprintf(mine, sizeof(mine), "vec.%d", rank);
    snprintf(cls, sizeof(cls), "close.%d", rank);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, io_path("async.dat"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS,
          "open");
    t_big(fh);
    t_many(fh);
    t_sync(fh);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    t_vector(io_path(mine));
    t_shared(io_path("shared.dat"));
    t_close_pending(io_path(cls));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        const char *names[] = {"async.dat", "shared.dat"};
        for (int i = 0; i < 2; i++)
            unlink(io_path(names[i]));
    }
    unlink(io_path(mine));
    unlink(io_path(cls));
    io_dir_remove(NULL, 0);
    if (rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
