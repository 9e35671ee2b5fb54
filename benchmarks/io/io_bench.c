/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO benchmark, standard MPI only (builds with any MPI's mpicc):
 *   coll     a 3-D block-distributed array of doubles, one sub-block per rank
 *            (subarray filetype, set_view, write_all/read_all); the file is the
 *            global array in row-major order
 *   indep    each rank its own contiguous region (write_at/read_at)
 *   strided  each rank blocks of -b bytes every 2*np blocks (a resized contiguous
 *            filetype, independent write/read, default hints: no sieving hint)
 *   raw      pwrite/pread of the whole size by rank 0 alone: the ceiling
 * Writes are timed up to MPI_File_sync (fsync) so the disk rows include the flush.
 * With -D rank 0 drops the page cache (sync; echo 3 > /proc/sys/vm/drop_caches) before
 * every read; tmpfs data stays in memory whatever it does. Every read is verified.
 * Output: one line per pattern,
 *   RESULT pattern=P np=N mib=M write_mbs=W read_mbs=R
 * (MB/s = 1e6 bytes per second of the slowest rank; the data size is M MiB).
 *
 *   io_bench -d DIR [-s MiB] [-p coll,indep,strided,raw] [-b BLOCK] [-D] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, np, drop;
static char path[4096];

static void die(const char *what, int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    int l = 0;
    MPI_Error_string(rc, s, &l);
    fprintf(stderr, "rank %d: %s: %s\n", rank, what, s);
    MPI_Abort(MPI_COMM_WORLD, 2);
}
#define CK(call) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) die(#call, rc_); } while (0)

static void drop_caches(void)
{
    if (!drop)
        return;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        sync();
        int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
        if (fd < 0 || write(fd, "3\n", 2) != 2) {
            fprintf(stderr, "cannot drop the page cache (not root?)\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* seconds of the slowest rank for what ran since t0 */
static double elapsed(double t0)
{
    double t = MPI_Wtime() - t0, m = 0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static void report(const char *pat, long mib, double tw, double tr)
{
    double bytes = (double)mib * 1048576.0;
    if (rank == 0)
        printf("RESULT pattern=%s np=%d mib=%ld write_mbs=%.1f read_mbs=%.1f\n", pat, np, mib,
               bytes / tw / 1e6, bytes / tr / 1e6);
    fflush(stdout);
}

static void check(const double *got, size_t n, double (*want)(size_t, void *), void *arg,
                  const char *pat)
{
    long bad = 0, all = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want(i, arg))
            bad++;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all) {
        if (rank == 0)
            fprintf(stderr, "%s: %ld doubles read back wrong\n", pat, all);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
}

/* timed open + access + sync (write) of one file; the file is left in place */
static double timed(MPI_Datatype ftype, MPI_Offset disp, int coll, MPI_Offset at, double *buf,
                    size_t n, int wr)
{
    MPI_File fh;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    CK(MPI_File_open(MPI_COMM_WORLD, path, wr ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY,
                     MPI_INFO_NULL, &fh));
    if (ftype != MPI_DATATYPE_NULL)
        CK(MPI_File_set_view(fh, disp, MPI_DOUBLE, ftype, "native", MPI_INFO_NULL));
    MPI_Status st;
    if (coll && wr)
        CK(MPI_File_write_all(fh, buf, (int)n, MPI_DOUBLE, &st));
    else if (coll)
        CK(MPI_File_read_all(fh, buf, (int)n, MPI_DOUBLE, &st));
    else if (ftype == MPI_DATATYPE_NULL && wr)
        CK(MPI_File_write_at(fh, at, buf, (int)n, MPI_DOUBLE, &st));
    else if (ftype == MPI_DATATYPE_NULL)
        CK(MPI_File_read_at(fh, at, buf, (int)n, MPI_DOUBLE, &st));
    else if (wr)
        CK(MPI_File_write(fh, buf, (int)n, MPI_DOUBLE, &st));
    else
        CK(MPI_File_read(fh, buf, (int)n, MPI_DOUBLE, &st));
    if (wr)
        CK(MPI_File_sync(fh));
    CK(MPI_File_close(&fh));
    return elapsed(t0);
}

/* ---- coll: the 3-D array */
typedef struct { int g[3], l[3], s[3]; } blk_t;

static double blk_val(size_t i, void *arg)
{
    const blk_t *b = arg;
    size_t x = i % (size_t)b->l[2], y = i / (size_t)b->l[2] % (size_t)b->l[1],
           z = i / ((size_t)b->l[2] * (size_t)b->l[1]);
    return (double)(((z + (size_t)b->s[0]) * (size_t)b->g[1] + y + (size_t)b->s[1]) *
                    (size_t)b->g[2] + x + (size_t)b->s[2]);
}

static void run_coll(long mib)
{
    int e = 0, dims[3] = {0, 0, 0}, per[3] = {0, 0, 0}, c[3];
    while (((size_t)1 << e) < (size_t)mib * 1048576 / 8)
        e++;
    blk_t b;
    for (int i = 0; i < 3; i++)
        b.g[i] = 1 << (e / 3 + (i < e % 3));
    MPI_Dims_create(np, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, per, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, c);
    MPI_Comm_free(&cart);
    size_t n = 1;
    for (int i = 0; i < 3; i++) {
        b.l[i] = b.g[i] / dims[i];
        b.s[i] = c[i] * b.l[i];
        n *= (size_t)b.l[i];
    }
    MPI_Datatype ft;
    MPI_Type_create_subarray(3, b.g, b.l, b.s, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    double *buf = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        buf[i] = blk_val(i, &b);
    double tw = timed(ft, 0, 1, 0, buf, n, 1);
    memset(buf, 0, n * sizeof(double));
    drop_caches();
    double tr = timed(ft, 0, 1, 0, buf, n, 0);
    check(buf, n, blk_val, &b, "coll");
    report("coll", (long)((size_t)b.g[0] * b.g[1] * b.g[2] * 8 >> 20), tw, tr);
    MPI_Type_free(&ft);
    free(buf);
}

/* ---- indep: contiguous regions */
static double lin_val(size_t i, void *arg)
{
    return (double)(i + *(size_t *)arg);
}

static void run_indep(long mib)
{
    size_t n = (size_t)mib * 1048576 / 8 / (size_t)np, base = n * (size_t)rank;
    double *buf = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        buf[i] = lin_val(i, &base);
    MPI_Offset at = (MPI_Offset)(base * sizeof(double));
    double tw = timed(MPI_DATATYPE_NULL, 0, 0, at, buf, n, 1);
    memset(buf, 0, n * sizeof(double));
    drop_caches();
    double tr = timed(MPI_DATATYPE_NULL, 0, 0, at, buf, n, 0);
    check(buf, n, lin_val, &base, "indep");
    report("indep", mib, tw, tr);
    free(buf);
}

/* ---- strided: block b of every 2*np */
static void run_strided(long mib, long blk)
{
    size_t n = (size_t)mib * 1048576 / 8 / (size_t)np, base = n * (size_t)rank;
    MPI_Datatype c, ft;
    MPI_Type_contiguous((int)(blk / 8), MPI_DOUBLE, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)(2 * np * blk), &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&c);
    double *buf = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        buf[i] = lin_val(i, &base);
    double tw = timed(ft, (MPI_Offset)rank * blk, 0, 0, buf, n, 1);
    memset(buf, 0, n * sizeof(double));
    drop_caches();
    double tr = timed(ft, (MPI_Offset)rank * blk, 0, 0, buf, n, 0);
    check(buf, n, lin_val, &base, "strided");
    report("strided", mib, tw, tr);
    MPI_Type_free(&ft);
    free(buf);
}

/* ---- raw: one process, pwrite/pread of the whole buffer */
static int raw_io(int fd, char *p, size_t n, int wr)
{
    for (size_t d = 0; d < n;) {
        ssize_t r = wr ? pwrite(fd, p + d, n - d, (off_t)d) : pread(fd, p + d, n - d, (off_t)d);
        if (r <= 0)
            return -1;
        d += (size_t)r;
    }
    return 0;
}

static void run_raw(long mib)
{
    size_t n = (size_t)mib * 1048576 / 8, zero = 0;
    double tw = 0, tr = 0, *buf = NULL;
    int bad = 0;
    if (rank == 0) {
        buf = malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++)
            buf[i] = lin_val(i, &zero);
        double t0 = MPI_Wtime();
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        bad |= fd < 0 || raw_io(fd, (char *)buf, n * 8, 1) || fsync(fd);
        close(fd);
        tw = MPI_Wtime() - t0;
        memset(buf, 0, n * 8);
    }
    drop_caches();
    if (rank == 0) {
        double t0 = MPI_Wtime();
        int fd = open(path, O_RDONLY);
        bad |= fd < 0 || raw_io(fd, (char *)buf, n * 8, 0);
        close(fd);
        tr = MPI_Wtime() - t0;
        for (size_t i = 0; i < n; i++)
            bad |= buf[i] != lin_val(i, &zero);
        free(buf);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "raw: I/O failed or read back wrong\n");
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    report("raw", mib, tw, tr);
}

int main(int argc, char **argv)
{
    const char *dir = "/dev/shm", *pats = "coll,indep,strided,raw";
    long mib = 64, blk = 1024;
    int opt;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    while ((opt = getopt(argc, argv, "d:s:p:b:D")) != -1) {
        if (opt == 'd')
            dir = optarg;
        else if (opt == 's')
            mib = atol(optarg);
        else if (opt == 'p')
            pats = optarg;
        else if (opt == 'b')
            blk = atol(optarg);
        else if (opt == 'D')
            drop = 1;
    }
    if (mib <= 0 || blk < 8 || blk % 8 || (size_t)mib * 1048576 % (size_t)(np * blk)) {
        if (rank == 0)
            fprintf(stderr, "usage: io_bench -d DIR [-s MiB] [-p coll,indep,strided,raw] [-b BLOCK] [-D]\n");
        MPI_Finalize();
        return 1;
    }
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    snprintf(path, sizeof(path), "%s/io_bench.%d.dat", dir, (int)getppid());
    MPI_Bcast(path, sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);
    char *list = strdup(pats), *save = NULL;
    for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        if (strcmp(p, "coll") == 0)
            run_coll(mib);
        else if (strcmp(p, "indep") == 0)
            run_indep(mib);
        else if (strcmp(p, "strided") == 0)
            run_strided(mib, blk);
        else if (strcmp(p, "raw") == 0)
            run_raw(mib);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            unlink(path);
    }
    free(list);
    MPI_Finalize();
    return 0;
}
