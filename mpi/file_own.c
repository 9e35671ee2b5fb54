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
#include "mpii.h"
#include "mpii_file.h"

/* Where an access stands in my pieces: v[i], in bytes into it. */
typedef struct {
    int fd;
    const mpii_fseg_t *v;
    size_t nv, i;
    MPI_Offset in;
} own_cur_t;

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
            c->i++;
            c->in = 0;
        }
    }
    *moved = m;
    return rc;
}

int mpii_file_own_io(mpii_file_t *f, const mpii_fseg_t *v, size_t nv, void *buf,
                     MPI_Count count, mpii_dtype_t *d, int write, size_t *done)
{
    own_cur_t c = {.fd = f->fd, .v = v, .nv = nv};
    return mpii_file_bounce(d, buf, count, write, own_span, &c, done);
}
