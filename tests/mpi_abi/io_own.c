/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO collective access without aggregation (file_own.c: one node, pieces of 16 KiB
 * and more, romio_cb_* automatic): blocks of 68000 bytes dealt cyclically to the ranks
 * with one hole block per cycle, written with write_all from a contiguous buffer and
 * from every other int of memory (a packed bounce window whose 4 MiB edge falls inside a
 * piece), the last rank writing nothing (at 3 ranks and more); every byte of the file
 * checked, holes included (a pattern put there first must stay); read back with
 * read_all into both layouts, one block past the end of file asked for (short count),
 * memory holes untouched. The same with romio_cb_write/read enable (two-phase). */
#include <fcntl.h>

#include "io_util.h"

#define BLK 17000 /* ints per block: 68000 bytes */
#define NB 80     /* blocks per rank: 5.4 MB, more than one bounce window */
#define HOLE 0x5a5a5a5a

static int rank, size;

static long blk_off(int b, int r) /* int offset of block b of rank r */
{
    return ((long)b * (size + 1) + r) * BLK;
}

static void roundtrip(const char *path, const char *cb, int strided_write)
{
    int nb = size > 2 && rank == size - 1 ? 0 : NB; /* blocks I write */
    int last = size > 2 ? size - 2 : size - 1;       /* the last rank that writes */
    long flen = blk_off(NB - 1, last) + BLK;         /* ints in the file */
    if (rank == 0) { /* the pattern the holes must keep */
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
        CHECK(fd >= 0, "create %s", path);
        int *pat = malloc(sizeof(int) * (size_t)flen);
        for (long i = 0; i < flen; i++)
            pat[i] = HOLE;
        CHECK(write(fd, pat, sizeof(int) * (size_t)flen) == (ssize_t)(sizeof(int) * (size_t)flen),
              "pattern write");
        close(fd);
        free(pat);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", cb);
    MPI_Info_set(info, "romio_cb_read", cb);
    MPI_File fh;
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    MPI_Datatype ft, mt;
    MPI_Type_vector(NB + 1, BLK, BLK * (size + 1), MPI_INT, &ft);
    MPI_Type_commit(&ft);
    CHECK_OK(MPI_File_set_view(fh, (MPI_Offset)rank * BLK * 4, MPI_INT, ft, "native",
                               MPI_INFO_NULL));
    size_t n = (size_t)(NB + 1) * BLK;
    MPI_Type_vector((int)n, 1, 2, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    int *buf = malloc(sizeof(int) * 2 * n);
    for (size_t i = 0; i < n; i++) {
        int v = (int)blk_off((int)(i / BLK), rank) + (int)(i % BLK); /* its index in the file */
        if (strided_write) {
            buf[2 * i] = v;
            buf[2 * i + 1] = -7;
        } else {
            buf[i] = v;
        }
    }
    MPI_Status st;
    int cnt;
    if (strided_write)
        CHECK_OK(MPI_File_write_all(fh, buf, nb ? 1 : 0, mt, &st)); /* NB + 1 blocks: see below */
    else
        CHECK_OK(MPI_File_write_all(fh, buf, nb * BLK, MPI_INT, &st));
    MPI_Get_elements(&st, MPI_INT, &cnt);
    CHECK(cnt == (strided_write && nb ? (NB + 1) * BLK : nb * BLK), "write_all elements %d (cb %s)",
          cnt, cb);
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    /* the strided write also wrote block NB of the writers: the file grew */
    long fend = strided_write ? blk_off(NB, last) + BLK : flen;
    if (rank == 0) {
        int *raw = malloc(sizeof(int) * (size_t)fend + 64);
        CHECK(io_slurp(path, (unsigned char *)raw, (long)sizeof(int) * fend + 64) ==
                  (long)sizeof(int) * fend,
              "file length (cb %s, strided %d)", cb, strided_write);
        for (long i = 0; i < fend; i++) {
            long b = i / BLK, r = b % (size + 1), k = b / (size + 1);
            int data = r < size && !(size > 2 && r == size - 1) &&
                       (k < NB || (strided_write && k == NB));
            int want = data ? (int)i : i < flen ? HOLE : 0;
            CHECK(raw[i] == want, "file int %ld = %d, want %d (cb %s, strided %d)", i, raw[i],
                  want, cb, strided_write);
        }
        free(raw);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* read NB + 1 blocks: the writers' last one lies past the end of file for all
     * but those whose block NB was written */
    long have = 0;
    for (int b = 0; b <= NB; b++) {
        long o = blk_off(b, rank);
        long in = fend - o < 0 ? 0 : fend - o > BLK ? BLK : fend - o;
        have += in;
        if (in < BLK)
            break;
    }
    for (int layout = 0; layout < 2; layout++) {
        memset(buf, 0xff, sizeof(int) * 2 * n);
        if (layout)
            CHECK_OK(MPI_File_read_at_all(fh, 0, buf, 1, mt, &st));
        else
            CHECK_OK(MPI_File_read_at_all(fh, 0, buf, (int)n, MPI_INT, &st));
        MPI_Get_elements(&st, MPI_INT, &cnt);
        CHECK(cnt == have, "read_at_all elements %d, want %ld (cb %s, layout %d)", cnt, have, cb,
              layout);
        for (long i = 0; i < (long)n; i++) {
            int got = layout ? buf[2 * i] : buf[i];
            long b = i / BLK, idx = blk_off((int)b, rank) + i % BLK;
            int writer = !(size > 2 && rank == size - 1) && (b < NB || strided_write);
            int want = i >= have ? -1 : writer ? (int)idx : idx < flen ? HOLE : 0;
            CHECK(got == want, "read int %ld = %d, want %d (cb %s, layout %d)", i, got, want, cb,
                  layout);
            if (layout)
                CHECK(buf[2 * i + 1] == -1, "memory hole %ld written (cb %s)", i, cb);
        }
    }
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
    free(buf);
    CHECK_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_start(&argc, &argv, &rank, &size);
    char p[320];
    snprintf(p, sizeof(p), "%s", io_path("own"));
    roundtrip(p, "automatic", 0);
    roundtrip(p, "automatic", 1);
    roundtrip(p, "enable", 1);
    const char *names[] = {"own"};
    io_dir_remove(names, 1);
    MPI_Finalize();
    if (rank == 0)
        printf("io_own: ok\n");
    return 0;
}
