/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the MPI-IO programs: a temporary directory made by rank 0 and known to
 * all ranks, paths in it, and its removal. */
#ifndef MPI_ABI_IO_UTIL_H
#define MPI_ABI_IO_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static char io_dir[256];

#if defined(__GNUC__)
#define IO_UNUSED __attribute__((unused))
#else
#define IO_UNUSED
#endif

static void io_dir_make(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(io_dir, sizeof(io_dir), "%s/rmp-io-XXXXXX", t && *t ? t : "/tmp");
        CHECK(mkdtemp(io_dir) != NULL, "mkdtemp %s", io_dir);
    }
    MPI_Bcast(io_dir, sizeof(io_dir), MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* MPI_Init, this rank and the size, and the directory: every io program's start. */
static void io_start(int *argc, char ***argv, int *rank, int *size)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    io_dir_make();
}

static const char *io_path(const char *name)
{
    static char p[320];
    snprintf(p, sizeof(p), "%s/%s", io_dir, name);
    return p;
}

/* The whole file as bytes (test side: plain POSIX, independent of MPI-IO). */
IO_UNUSED static long io_slurp(const char *path, unsigned char *buf, long max)
{
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL, "cannot open %s", path);
    long n = (long)fread(buf, 1, (size_t)max, fp);
    fclose(fp);
    return n;
}

static void io_dir_remove(const char *const *names, int n)
{
    int rank;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < n; i++)
            unlink(io_path(names[i]));
        CHECK(rmdir(io_dir) == 0, "rmdir %s: a file is left", io_dir);
    }
}

#endif
