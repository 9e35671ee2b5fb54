/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory behind a byte range of a typed buffer's packed stream, as address/length
 * segments (rmp_layout_t.segments): lets rmp copy a derived datatype's data straight
 * between two processes (cross-memory attach with segment lists) instead of packing
 * it, where the blocks are long (docs/protocols.md, "Layouts"). */
#include <sys/uio.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

typedef struct pack_segs {
    struct iovec *v;
    size_t n, max;
} pack_segs_t;

/* Append [a, a + len), merged into the last segment when it follows it; 0 when full. */
static int iov_add(pack_segs_t *s, uintptr_t a, size_t len)
{
    if (len == 0)
        return 1;
    if (s->n > 0 && (uintptr_t)s->v[s->n - 1].iov_base + s->v[s->n - 1].iov_len == a) {
        s->v[s->n - 1].iov_len += len;
        return 1;
    }
    if (s->n == s->max)
        return 0;
    s->v[s->n].iov_base = (void *)a;
    s->v[s->n++].iov_len = len;
    return 1;
}

static size_t iov_min(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t iov_walk(const mpii_dl_t *d, uintptr_t base, size_t skip, size_t avail,
                       pack_segs_t *s);

/* Elements [j, blocklen) of child c at b (from byte r of element j): the bytes added,
 * fewer than asked when the list is full. A child that is one run as long as its
 * extent makes the block one segment. */
static size_t iov_block(const mpii_dl_t *c, uintptr_t b, MPI_Count blocklen, size_t r,
                        size_t avail, pack_segs_t *s)
{
    size_t csz = c->size, moved = 0;
    if (c->kind == MPII_DL_RUN && c->extent == (MPI_Aint)csz) {
        size_t n = iov_min((size_t)blocklen * csz - r, avail);
        return iov_add(s, b + (uintptr_t)c->u.run.off + r, n) ? n : 0;
    }
    MPI_Count j = (MPI_Count)(r / csz);
    size_t r2 = r % csz;
    for (; j < blocklen && moved < avail; j++, r2 = 0) {
        size_t want = iov_min(csz - r2, avail - moved);
        size_t got = iov_walk(c, b + (uintptr_t)(j * c->extent), r2, avail - moved, s);
        moved += got;
        if (got < want)
            break;
    }
    return moved;
}

/* Bytes [skip, skip + avail) of one element of d at base (skip < d->size), as pack_walk
 * in pack.c moves them; returns the bytes added. */
static size_t iov_walk(const mpii_dl_t *d, uintptr_t base, size_t skip, size_t avail,
                       pack_segs_t *s)
{
    size_t moved = 0;
    switch (d->kind) {
    case MPII_DL_RUN: {
        size_t n = iov_min(d->u.run.len - skip, avail);
        return iov_add(s, base + (uintptr_t)d->u.run.off + skip, n) ? n : 0;
    }
    case MPII_DL_VEC: {
        size_t bsz = (size_t)d->u.vec.blocklen * d->u.vec.child->size;
        MPI_Count i = (MPI_Count)(skip / bsz);
        size_t r = skip % bsz;
        for (; i < d->u.vec.count && moved < avail; i++, r = 0) {
            size_t want = iov_min(bsz - r, avail - moved);
            size_t got = iov_block(d->u.vec.child, base + (uintptr_t)(i * d->u.vec.stride),
                                   d->u.vec.blocklen, r, avail - moved, s);
            moved += got;
            if (got < want)
                break;
        }
        return moved;
    }
    default: { /* MPII_DL_IDX */
        const size_t *ps = d->u.idx.psum;
        MPI_Count lo = mpii_dl_idx_block(d, skip);
        size_t r = skip - ps[lo];
        for (MPI_Count k = lo; k < d->u.idx.n && moved < avail; k++, r = 0) {
            if (ps[k + 1] == ps[k])
                continue;
            size_t want = iov_min(ps[k + 1] - ps[k] - r, avail - moved);
            size_t got = iov_block(d->u.idx.child[k], base + (uintptr_t)d->u.idx.disp[k],
                                   d->u.idx.blocklen[k], r, avail - moved, s);
            moved += got;
            if (got < want)
                break;
        }
        return moved;
    }
    }
}

size_t mpii_dtype_segments(void *ctx, size_t off, size_t len, struct iovec *iov, size_t max,
                           size_t *n)
{
    const mpii_typed_t *t = ctx;
    const mpii_dtype_t *d = t->d;
    pack_segs_t s = {iov, 0, max};
    size_t moved = 0;
    *n = 0;
    if (d->size == 0 || t->count <= 0)
        return 0;
    size_t total = (size_t)t->count * d->size;
    if (off >= total)
        return 0;
    len = iov_min(len, total - off);
    uintptr_t buf = (uintptr_t)t->buf;
    if (d->contig) {
        moved = iov_add(&s, buf + (uintptr_t)d->true_lb + off, len) ? len : 0;
    } else {
        MPI_Count e = (MPI_Count)(off / d->size);
        size_t r = off % d->size;
        for (; e < t->count && moved < len; e++, r = 0) {
            size_t want = iov_min(d->size - r, len - moved);
            size_t got = iov_walk(d->dl, buf + (uintptr_t)(e * d->extent), r, len - moved, &s);
            moved += got;
            if (got < want)
                break;
        }
    }
    *n = s.n;
    return moved;
}
