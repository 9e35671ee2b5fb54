/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO fast paths (file_twophase.c, file_aggr.c, file_sieve.c, file_direct.c):
 * - two-phase with cb_nodes aggregators and a cb_buffer_size smaller than the access
 *   (several rounds): the file equals the array written, read back collectively;
 * - data sieving writes and reads with holes (romio_ds_* enabled and disabled), every
 *   rank interleaved with the others: the holes keep what POSIX wrote there first;
 * - O_DIRECT on the direct_io hint on disk and on tmpfs: get_info says whether it is
 *   in force (as a probe open with O_DIRECT says the file system allows), unaligned
 *   offsets and memory come back right either way;
 * - get_info shows the values in force. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_util.h"

static int rank, np;

static void info_is(MPI_File fh, const char *key, const char *want)
{
    MPI_Info in;
    char v[64];
    int len = sizeof(v), flag = 0;
    CHECK(MPI_File_get_info(fh, &in) == MPI_SUCCESS, "get_info");
    CHECK(MPI_Info_get_string(in, key, &len, v, &flag) == MPI_SUCCESS && flag, "no %s", key);
    CHECK(strcmp(v, want) == 0, "%s is %s, want %s", key, v, want);
    MPI_Info_free(&in);
}

/* the byte a file position holds after the tests (pattern of its writer) */
static unsigned char ref_byte(long off, int tag)
{
    return (unsigned char)(off * 7 + tag);
}

/* 1. two-phase in rounds: rank r writes column block r of a 2-D array of N rows */
static void test_twophase(const char *path, const char *cbn)
{
    enum { N = 96, W = 1000 }; /* row of np*W bytes: every row interleaves all ranks */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "8192"); /* file N*np*W: >= 12 rounds */
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    if (cbn)
        MPI_Info_set(info, "cb_nodes", cbn);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) ==
              MPI_SUCCESS, "open");
    MPI_Info_free(&info);
    /* the default: one aggregator per node, the node count being what split_type says */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int lr, nodes = 0;
    MPI_Comm_rank(node, &lr);
    lr = lr == 0;
    MPI_Allreduce(&lr, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    char want[16];
    snprintf(want, sizeof(want), "%d", cbn ? (atoi(cbn) < np ? atoi(cbn) : np) : nodes);
    info_is(fh, "cb_nodes", want);
    info_is(fh, "cb_buffer_size", "8192");
    MPI_Datatype ft;
    int gs[2] = {N, np * W}, ls[2] = {N, W}, st[2] = {0, rank * W};
    MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL) == MPI_SUCCESS, "view");
    /* memory non-contiguous too: every other byte of a 2x buffer */
    MPI_Datatype mt;
    MPI_Type_vector(N * W, 1, 2, MPI_BYTE, &mt);
    MPI_Type_commit(&mt);
    unsigned char *buf = malloc(2 * N * W), *file = malloc((size_t)N * np * W + 1);
    for (int i = 0; i < N * W; i++)
        buf[2 * i] = ref_byte((long)(i / W) * np * W + rank * W + i % W, 1);
    MPI_Status s;
    int cnt = 0;
    CHECK(MPI_File_write_all(fh, buf, 1, mt, &s) == MPI_SUCCESS, "write_all");
    MPI_Get_count(&s, MPI_BYTE, &cnt);
    CHECK(cnt == N * W, "write_all count %d", cnt);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    long got = io_slurp(path, file, (long)N * np * W + 1);
    CHECK(got == (long)N * np * W, "file size %ld", got);
    for (long i = 0; i < got; i++)
        CHECK(file[i] == ref_byte(i, 1), "file byte %ld is %d", i, file[i]);
    memset(buf, 0, 2 * N * W);
    CHECK(MPI_File_read_at_all(fh, 0, buf, 1, mt, &s) == MPI_SUCCESS, "read_all");
    MPI_Get_count(&s, MPI_BYTE, &cnt);
    CHECK(cnt == N * W, "read_all count %d", cnt);
    for (int i = 0; i < N * W; i++)
        CHECK(buf[2 * i] == ref_byte((long)(i / W) * np * W + rank * W + i % W, 1) &&
                  buf[2 * i + 1] == 0, "read byte %d", i);
    /* a read past the end of file: the rounds stop short where the file does */
    CHECK(MPI_File_read_at_all(fh, (MPI_Offset)(N - 2) * W, buf, 1, mt, &s) == MPI_SUCCESS,
          "read_all at the end");
    MPI_Get_count(&s, MPI_BYTE, &cnt);
    CHECK(cnt == 2 * W, "read_all at the end: count %d", cnt);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    free(buf);
    free(file);
}

/* 2. sieving: blocks of B bytes, rank r owns block r of every 2*np, the other np
 * blocks are holes rank 0 filled with POSIX before */
static void test_sieve(const char *path, const char *ds, int blk, int cut)
{
    /* tiny blocks: over 1024 pieces in a window, several preadv/pwritev each */
    const long NB = blk < 64 ? 3000 : 300;
    long fsz = (long)NB * 2 * np * blk;
    unsigned char *file = malloc((size_t)fsz + 1), *buf = malloc((size_t)NB * blk);
    if (rank == 0) {
        for (long i = 0; i < fsz; i++)
            file[i] = ref_byte(i, 2);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        CHECK(fd >= 0 && write(fd, file, (size_t)fsz) == fsz && close(fd) == 0, "posix write");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", ds);
    MPI_Info_set(info, "romio_ds_read", ds);
    MPI_Info_set(info, "ind_wr_buffer_size", "65536"); /* several windows */
    MPI_Info_set(info, "ind_rd_buffer_size", "32768");
    MPI_File fh;
    /* write-only: sieving reads anyway (the file is opened read-write underneath) */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, info, &fh) == MPI_SUCCESS, "open");
    MPI_Info_free(&info);
    info_is(fh, "romio_ds_write", ds);
    info_is(fh, "ind_wr_buffer_size", "65536");
    MPI_Datatype c, ft;
    MPI_Type_contiguous(blk, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)2 * np * blk, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&c);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * blk, MPI_BYTE, ft, "native", MPI_INFO_NULL) ==
              MPI_SUCCESS, "view");
    for (long i = 0; i < (long)NB * blk; i++)
        buf[i] = ref_byte((i / blk) * 2 * np * blk + rank * blk + i % blk, 3);
    MPI_Status s;
    int cnt = 0;
    /* two calls: the second continues from the individual pointer */
    CHECK(MPI_File_write(fh, buf, NB / 2 * blk, MPI_BYTE, &s) == MPI_SUCCESS, "write");
    CHECK(MPI_File_write(fh, buf + NB / 2 * blk, (NB - NB / 2) * blk, MPI_BYTE, &s) ==
              MPI_SUCCESS, "write");
    MPI_Get_count(&s, MPI_BYTE, &cnt);
    CHECK(cnt == (NB - NB / 2) * blk, "write count %d", cnt);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    MPI_Barrier(MPI_COMM_WORLD);
    long got = io_slurp(path, file, fsz + 1);
    CHECK(got == fsz, "file size %ld", got);
    for (long i = 0; i < fsz; i++) {
        int owner = (int)(i / blk % (2 * np));
        CHECK(file[i] == ref_byte(i, owner < np ? 3 : 2), "%s: file byte %ld is %d", ds, i,
              file[i]);
    }
    /* cut: the file ends halfway into rank 0's last block, the others' lie past it */
    long last = (NB - 2) * blk + (cut && rank == 0 ? blk / 2 : cut ? 0 : blk);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has checked the file */
    if (cut && rank == 0)
        CHECK(truncate(path, fsz - 2L * np * blk + blk / 2) == 0, "truncate");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_read", ds);
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh) == MPI_SUCCESS, "open");
    MPI_Info_free(&info);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * blk, MPI_BYTE, ft, "native", MPI_INFO_NULL) ==
              MPI_SUCCESS, "view");
    memset(buf, 0, (size_t)NB * blk);
    /* from block 1 on, asking one block more than the file holds: a short read */
    CHECK(MPI_File_read_at(fh, blk, buf, NB * blk, MPI_BYTE, &s) == MPI_SUCCESS, "read");
    MPI_Get_count(&s, MPI_BYTE, &cnt);
    CHECK(cnt == last, "%s: read count %d, want %ld", ds, cnt, last);
    for (long i = 0; i < last; i++)
        CHECK(buf[i] == ref_byte((i / blk + 1) * 2 * np * blk + rank * blk + i % blk, 3),
              "%s: read byte %ld", ds, i);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    MPI_Type_free(&ft);
    free(buf);
    free(file);
}

/* 3. O_DIRECT: unaligned offset and memory, larger than the bounce buffer */
static void test_direct(const char *path)
{
    long n = (5L << 20) + 777, off = 12345 + (long)rank * n;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "direct_io", "true");
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) ==
              MPI_SUCCESS, "open");
    MPI_Info_free(&info);
    int pfd = open(path, O_RDWR | O_DIRECT), ok = pfd >= 0;
    if (pfd >= 0)
        close(pfd);
    info_is(fh, "direct_io", ok ? "true" : "false");
    unsigned char *mem = malloc((size_t)n + 8), *p = mem + 3; /* unaligned memory */
    for (long i = 0; i < n; i++)
        p[i] = ref_byte(off + i, 4);
    MPI_Status s;
    int cnt = 0;
    CHECK(MPI_File_write_at(fh, off, p, (int)n, MPI_BYTE, &s) == MPI_SUCCESS, "write_at");
    MPI_Get_count(&s, MPI_BYTE, &cnt);
    CHECK(cnt == n, "write_at count %d", cnt);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    memset(mem, 0, (size_t)n + 8);
    /* past the end: the last rank's read is short */
    CHECK(MPI_File_read_at(fh, off + 1, p, (int)n, MPI_BYTE, &s) == MPI_SUCCESS, "read_at");
    MPI_Get_count(&s, MPI_BYTE, &cnt);
    CHECK(cnt == (rank == np - 1 ? n - 1 : n), "read_at count %d", cnt);
    for (long i = 0; i < cnt; i++)
        CHECK(p[i] == (off + 1 + i < 12345 + (long)np * n
                           ? ref_byte(off + 1 + i, 4) : 0), "direct read byte %ld", i);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    free(mem);
    if (rank == 0) {
        FILE *fp = fopen(path, "rb");
        CHECK(fp && fseek(fp, 0, SEEK_END) == 0 && ftell(fp) == 12345 + (long)np * n,
              "direct file size");
        fclose(fp);
    }
}

int main(int argc, char **argv)
{
    io_start(&argc, &argv, &rank, &np);
    char shm[128];
    snprintf(shm, sizeof(shm), "/dev/shm/rmp-io-fast-%s", strrchr(io_dir, '-') + 1);
    test_twophase(io_path("tp"), NULL);
    test_twophase(io_path("tp"), "2");
    test_sieve(io_path("sieve"), "enable", 512, 0);
    test_sieve(io_path("sieve"), "disable", 512, 0);
    test_sieve(io_path("sieve"), "automatic", 1000, 0);
    test_sieve(io_path("sieve"), "enable", 24, 1);
    test_sieve(io_path("sieve"), "automatic", 1000, 1);
    test_direct(io_path("direct"));
    if (access("/dev/shm", W_OK) == 0) {
        test_direct(shm);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            unlink(shm);
    }
    const char *names[] = {"tp", "sieve", "direct"};
    io_dir_remove(names, 3);
    if (rank == 0)
        printf("io_fast: OK\n");
    MPI_Finalize();
    return 0;
}
