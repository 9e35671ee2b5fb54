/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO collective access without aggregation. When every rank is on one node and
 * the pieces of the accesses are large, two-phase (file_twophase.c) only adds work:
 * the file is local (tmpfs, or a disk through the page cache shared by all ranks), so
 * gathering the pieces on an aggregator is a pack, an exchange and an unpack more per
 * byte, and one writer instead of all of them. Here every rank moves its own pieces
 * between its buffer and the file, one system call per piece (pieces of a view never
 * touch: adjacent ones are merged), straight from a contiguous buffer, through a
 * packed bounce window otherwise (figures: file_twophase.c's TP_OWN_PIECE, docs/io.md). */
#include <stdlib.h>

#include "mpii.h"
#include "mpii_file.h"

#define OWN_CHUNK ((size_t)4 << 20) /* bounce window of a non-contiguous buffer */

/* n packed bytes at pk to or from the pieces v[*i..nv), the first from *in bytes into
 * it; both advance. *moved: bytes moved (a read stops short at end of file). */
static int own_span(int fd, const mpii_fseg_t *v, size_t nv, size_t *i, MPI_Offset *in,
                    char *pk, size_t n, int write, size_t *moved)
{
    size_t m = 0;
    int rc = MPI_SUCCESS;
    while (m < n && *i < nv && rc == MPI_SUCCESS) {
        size_t len = (size_t)(v[*i].len - *in), got = 0;
        len = len < n - m ? len : n - m;
        rc = mpii_file_fd_xfer(fd, v[*i].off + *in, pk + m, len, write, &got);
        m += got;
        if (rc == MPI_SUCCESS && got < len) {
            rc = write ? MPI_ERR_IO : MPI_SUCCESS; /* a write of nothing: no progress */
            break;
        }
        *in += (MPI_Offset)len;
        if (*in == v[*i].len) {
            (*i)++;
            *in = 0;
        }
    }
    *moved = m;
    return rc;
}

int mpii_file_own_io(mpii_file_t *f, const mpii_fseg_t *v, size_t nv, void *buf,
                     MPI_Count count, mpii_dtype_t *d, int write, size_t *done)
{
    size_t total = (size_t)count * d->size, i = 0, moved = 0;
    MPI_Offset in = 0;
    *done = 0;
    if (total == 0)
        return MPI_SUCCESS;
    if (d->contig)
        return own_span(f->fd, v, nv, &i, &in, (char *)buf + d->true_lb, total, write, done);
    size_t cap = total < OWN_CHUNK ? total : OWN_CHUNK;
    char *tmp = malloc(cap);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    while (moved < total && rc == MPI_SUCCESS) {
        size_t n = total - moved < cap ? total - moved : cap, got = 0;
        if (write)
            mpii_dtype_pack(d, buf, count, moved, tmp, n);
        rc = own_span(f->fd, v, nv, &i, &in, tmp, n, write, &got);
        if (!write)
            mpii_dtype_unpack(d, buf, count, moved, tmp, got);
        moved += got;
        if (got < n)
            break;
    }
    free(tmp);
    *done = moved;
    return rc;
}
