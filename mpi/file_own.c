/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO collective access without aggregation. When every rank is on one node and
 * the pieces of the accesses are large, two-phase (file_twophase.c) only adds work:
 * the file is local (tmpfs, or a disk through the page cache shared by all ranks), so
 * gathering the pieces on an aggregator is a pack, an exchange and an unpack more per
 * byte, and one writer instead of all of them. Here every rank moves its own pieces
 * between its buffer and the file, one system call per piece (pieces of a view never
 * touch: adjacent ones are merged), straight from a contiguous buffer, through the
 * bounce buffer of mpii_file_bounce (file_io.c) otherwise (figures: file_twophase.c's
 * TP_OWN_PIECE, docs/io.md). */
#include <fcntl.h>
#include <stdlib.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include "mpii.h"
#include "mpii_file.h"

/* A read from a disk asks the kernel for the next OWN_AHEAD bytes of its pieces
 * (POSIX_FADV_WILLNEED) before it reads one. Without it the pieces of interleaved ranks
 * are not sequential to any one file descriptor, the kernel's readahead hardly starts,
 * and every rank waits for one piece at a time. When the ranks' pieces cover most of
 * the span (dense), one request also covers the holes between my pieces (the other
 * ranks' pieces, read by them anyway), so the device sees large sequential requests;
 * else only holes up to OWN_HOLE are read through. The 3-D array at 4 ranks, page cache
 * dropped, 1 GiB: 1445-1970 MB/s -> 2561-2685 (benchmarks/io/results, docs/io.md). */
#define OWN_AHEAD ((MPI_Offset)16 << 20)
#define OWN_HOLE ((MPI_Offset)64 << 10)

/* Where an access stands in my pieces: v[i], in bytes into it; a read has asked the
 * kernel for v[i..pf) (ahead bytes of them), through holes up to hole. */
typedef struct {
    int fd, ra;
    const mpii_fseg_t *v;
    size_t nv, i, pf;
    MPI_Offset in, ahead, hole;
} own_cur_t;

static void own_ahead(own_cur_t *c)
{
    while (c->pf < c->nv && c->ahead < OWN_AHEAD) {
        MPI_Offset lo = c->v[c->pf].off, hi = lo + c->v[c->pf].len;
        c->ahead += c->v[c->pf++].len;
        while (c->pf < c->nv && c->ahead < OWN_AHEAD && c->v[c->pf].off >= hi &&
               c->v[c->pf].off - hi <= c->hole) {
            hi = c->v[c->pf].off + c->v[c->pf].len;
            c->ahead += c->v[c->pf++].len;
        }
        if (hi > lo)
            (void)posix_fadvise(c->fd, (off_t)lo, (off_t)(hi - lo), POSIX_FADV_WILLNEED);
    }
}

/* n packed bytes at pk to or from the pieces from the cursor on, which advances (the
 * pieces are taken in stream order, so the stream byte at is where the cursor is).
 * *moved: bytes moved (a read stops short at end of file). */
static int own_span(void *ctx, size_t at, char *pk, size_t n, int write, size_t *moved)
{
    own_cur_t *c = ctx;
    size_t m = 0;
    int rc = MPI_SUCCESS;
    (void)at;
    while (m < n && c->i < c->nv && rc == MPI_SUCCESS) {
        const mpii_fseg_t *s = &c->v[c->i];
        if (c->ra && c->in == 0)
            own_ahead(c);
        size_t len = (size_t)(s->len - c->in), got = 0;
        len = len < n - m ? len : n - m;
        rc = mpii_file_fd_xfer(c->fd, s->off + c->in, pk + m, len, write, &got);
        m += got;
        if (rc == MPI_SUCCESS && got < len) {
            rc = write ? MPI_ERR_IO : MPI_SUCCESS; /* a write of nothing: no progress */
            break;
        }
        c->in += (MPI_Offset)len;
        if (c->in == s->len) {
            c->ahead -= c->i < c->pf ? s->len : 0;
            c->i++;
            c->in = 0;
        }
    }
    *moved = m;
    return rc;
}

int mpii_file_own_io(mpii_file_t *f, const mpii_fseg_t *v, size_t nv, void *buf,
                     MPI_Count count, mpii_dtype_t *d, int write, int dense, size_t *done)
{
    struct statfs sf;
    own_cur_t c = {.fd = f->fd, .v = v, .nv = nv, .hole = dense ? INT64_MAX : OWN_HOLE};
    c.ra = !write && fstatfs(f->fd, &sf) == 0 && sf.f_type != TMPFS_MAGIC;
    return mpii_file_bounce(d, buf, count, write, own_span, &c, done);
}
