/* SPDX-License-Identifier: BSD-3-Clause */
/* Packing typed buffers by walking a datatype's layout tree over a byte range
 * of the packed stream; MPI_Pack, MPI_Unpack, MPI_Pack_size. */
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

/* Addresses are computed as integers: a displacement may point before the
 * buffer (negative lb), which is valid MPI but not valid pointer arithmetic. */
static inline void pack_mv(uintptr_t typed, char *pk, size_t n, int unpack)
{
    if (unpack)
        memcpy((void *)typed, pk, n);
    else
        memcpy(pk, (const void *)typed, n);
}

static size_t pack_min(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Copy loops for n elements of one size, specialised for the sizes of basic types
 * so that each element is a single load and store instead of a memcpy call:
 * pack_st*: elements at p, p + stride, ... (a vector); pack_ix*: at base + off[i]
 * (indexed blocks). pk is the packed side. */
#define PACK_KERNELS(SZ)                                                                   \
    static void pack_st##SZ(uintptr_t p, MPI_Aint stride, char *pk, MPI_Count n, int unpack) \
    {                                                                                      \
        if (unpack) {                                                                      \
            _Pragma("GCC unroll 4")                                                        \
            for (; n > 0; n--, p += (uintptr_t)stride, pk += SZ)                           \
                memcpy((void *)p, pk, SZ);                                                 \
        } else {                                                                           \
            _Pragma("GCC unroll 4")                                                        \
            for (; n > 0; n--, p += (uintptr_t)stride, pk += SZ)                           \
                memcpy(pk, (const void *)p, SZ);                                           \
        }                                                                                  \
    }                                                                                      \
    static void pack_ix##SZ(uintptr_t base, const MPI_Aint *off, char *pk, MPI_Count n,    \
                            int unpack)                                                    \
    {                                                                                      \
        if (unpack) {                                                                      \
            _Pragma("GCC unroll 4")                                                        \
            for (MPI_Count i = 0; i < n; i++, pk += SZ)                                    \
                memcpy((void *)(base + (uintptr_t)off[i]), pk, SZ);                        \
        } else {                                                                           \
            _Pragma("GCC unroll 4")                                                        \
            for (MPI_Count i = 0; i < n; i++, pk += SZ)                                    \
                memcpy(pk, (const void *)(base + (uintptr_t)off[i]), SZ);                  \
        }                                                                                  \
    }
PACK_KERNELS(1)
PACK_KERNELS(2)
PACK_KERNELS(4)
PACK_KERNELS(8)
PACK_KERNELS(16)

static void pack_strided(uintptr_t p, MPI_Aint stride, char *pk, size_t sz, MPI_Count n,
                         int unpack)
{
    switch (sz) {
    case 1: pack_st1(p, stride, pk, n, unpack); return;
    case 2: pack_st2(p, stride, pk, n, unpack); return;
    case 4: pack_st4(p, stride, pk, n, unpack); return;
    case 8: pack_st8(p, stride, pk, n, unpack); return;
    case 16: pack_st16(p, stride, pk, n, unpack); return;
    default:
        for (; n > 0; n--, p += (uintptr_t)stride, pk += sz)
            pack_mv(p, pk, sz, unpack);
    }
}

static void pack_gather(uintptr_t base, const MPI_Aint *off, char *pk, size_t sz, MPI_Count n,
                        int unpack)
{
    switch (sz) {
    case 1: pack_ix1(base, off, pk, n, unpack); return;
    case 2: pack_ix2(base, off, pk, n, unpack); return;
    case 4: pack_ix4(base, off, pk, n, unpack); return;
    case 8: pack_ix8(base, off, pk, n, unpack); return;
    case 16: pack_ix16(base, off, pk, n, unpack); return;
    default:
        for (MPI_Count i = 0; i < n; i++, pk += sz)
            pack_mv(base + (uintptr_t)off[i], pk, sz, unpack);
    }
}

/* One block of sz bytes: a single load and store for the sizes of basic types. */
static inline void pack_one(uintptr_t a, char *pk, size_t sz, int unpack)
{
    switch (sz) {
    case 4: pack_mv(a, pk, 4, unpack); return;
    case 8: pack_mv(a, pk, 8, unpack); return;
    case 16: pack_mv(a, pk, 16, unpack); return;
    default: pack_mv(a, pk, sz, unpack);
    }
}

/* Blocks [k, n) of an indexed node whose blocks are all single runs (roff), from
 * byte r of block k; returns the bytes moved. */
static size_t pack_runs(const mpii_dl_t *d, uintptr_t base, MPI_Count k, size_t r, char *pk,
                        size_t avail, int unpack)
{
    const MPI_Aint *roff = d->u.idx.roff;
    const size_t *ps = d->u.idx.psum;
    MPI_Count n = d->u.idx.n;
    size_t moved = 0;
    if (r) { /* the rest of a block begun by the previous call */
        size_t len = pack_min(ps[k + 1] - ps[k] - r, avail);
        pack_mv(base + (uintptr_t)roff[k] + r, pk, len, unpack);
        moved = len;
        k++;
    }
    if (d->u.idx.ulen) {
        size_t u = d->u.idx.ulen;
        MPI_Count whole = (MPI_Count)((avail - moved) / u);
        if (whole > n - k)
            whole = n - k;
        pack_gather(base, roff + k, pk + moved, u, whole, unpack);
        moved += (size_t)whole * u;
        k += whole;
    } else {
        for (; k < n && avail - moved >= ps[k + 1] - ps[k]; k++) {
            size_t len = ps[k + 1] - ps[k];
            pack_one(base + (uintptr_t)roff[k], pk + moved, len, unpack);
            moved += len;
        }
    }
    if (k < n && moved < avail) { /* the start of a block the next call finishes */
        pack_mv(base + (uintptr_t)roff[k], pk + moved, avail - moved, unpack);
        moved = avail;
    }
    return moved;
}

/* Move bytes [skip, skip + avail) of one element of d at base (skip < d->size);
 * returns the bytes moved. */
static size_t pack_walk(const mpii_dl_t *d, uintptr_t base, size_t skip, char *pk, size_t avail,
                        int unpack)
{
    size_t moved = 0;
    switch (d->kind) {
    case MPII_DL_RUN: {
        size_t n = pack_min(d->u.run.len - skip, avail);
        pack_mv(base + (uintptr_t)d->u.run.off + skip, pk, n, unpack);
        return n;
    }
    case MPII_DL_VEC: {
        const mpii_dl_t *c = d->u.vec.child;
        size_t csz = c->size;
        MPI_Count count = d->u.vec.count;
        MPI_Aint stride = d->u.vec.stride;
        if (c->kind == MPII_DL_RUN && d->u.vec.blocklen == 1) {
            /* The common strided case: one run per block, a tight loop. */
            MPI_Count i = (MPI_Count)(skip / csz);
            size_t r = skip % csz;
            uintptr_t p = base + (uintptr_t)c->u.run.off + (uintptr_t)(i * stride);
            if (r) {
                size_t n = pack_min(csz - r, avail);
                pack_mv(p + r, pk, n, unpack);
                moved = n;
                i++;
                p += (uintptr_t)stride;
            }
            MPI_Count whole = (MPI_Count)((avail - moved) / csz);
            if (whole > count - i)
                whole = count - i;
            pack_strided(p, stride, pk + moved, csz, whole, unpack);
            moved += (size_t)whole * csz;
            i += whole;
            p += (uintptr_t)(whole * stride);
            if (i < count && moved < avail) {
                pack_mv(p, pk + moved, avail - moved, unpack);
                moved = avail;
            }
            return moved;
        }
        size_t bsz = (size_t)d->u.vec.blocklen * csz;
        MPI_Count i = (MPI_Count)(skip / bsz);
        size_t r = skip % bsz;
        for (; i < count && moved < avail; i++) {
            uintptr_t b = base + (uintptr_t)(i * stride);
            MPI_Count j = (MPI_Count)(r / csz);
            size_t r2 = r % csz;
            for (; j < d->u.vec.blocklen && moved < avail; j++, r2 = 0)
                moved += pack_walk(c, b + (uintptr_t)(j * c->extent), r2, pk + moved,
                                   avail - moved, unpack);
            r = 0;
        }
        return moved;
    }
    default: { /* MPII_DL_IDX */
        const size_t *ps = d->u.idx.psum;
        MPI_Count lo = mpii_dl_idx_block(d, skip);
        size_t r = skip - ps[lo];
        if (d->u.idx.roff)
            return pack_runs(d, base, lo, r, pk, avail, unpack);
        for (MPI_Count k = lo; k < d->u.idx.n && moved < avail; k++, r = 0) {
            const mpii_dl_t *c = d->u.idx.child[k];
            if (c->size == 0)
                continue;
            uintptr_t b = base + (uintptr_t)d->u.idx.disp[k];
            MPI_Count j = (MPI_Count)(r / c->size);
            size_t r2 = r % c->size;
            for (; j < d->u.idx.blocklen[k] && moved < avail; j++, r2 = 0)
                moved += pack_walk(c, b + (uintptr_t)(j * c->extent), r2, pk + moved,
                                   avail - moved, unpack);
        }
        return moved;
    }
    }
}

static size_t pack_range(const mpii_dtype_t *d, uintptr_t buf, MPI_Count count, size_t offset,
                         char *pk, size_t max, int unpack)
{
    if (d->size == 0 || count <= 0)
        return 0;
    size_t total = (size_t)count * d->size;
    if (offset >= total)
        return 0;
    if (max > total - offset)
        max = total - offset;
    if (d->contig) {
        pack_mv(buf + (uintptr_t)d->true_lb + offset, pk, max, unpack);
        return max;
    }
    MPI_Count e = (MPI_Count)(offset / d->size);
    size_t r = offset % d->size;
    size_t moved = 0;
    for (; e < count && moved < max; e++, r = 0)
        moved += pack_walk(d->dl, buf + (uintptr_t)(e * d->extent), r, pk + moved, max - moved,
                           unpack);
    return moved;
}

size_t mpii_dtype_pack(const mpii_dtype_t *d, const void *buf, MPI_Count count, size_t offset,
                       void *out, size_t max)
{
    return pack_range(d, (uintptr_t)buf, count, offset, out, max, 0);
}

size_t mpii_dtype_unpack(const mpii_dtype_t *d, void *buf, MPI_Count count, size_t offset,
                         const void *in, size_t max)
{
    return pack_range(d, (uintptr_t)buf, count, offset, (char *)(uintptr_t)in, max, 1);
}

static void pack_layout_pack(void *ctx, size_t off, void *dst, size_t len)
{
    const mpii_typed_t *t = ctx;
    pack_range(t->d, (uintptr_t)t->buf, t->count, off, dst, len, 0);
}

static void pack_layout_unpack(void *ctx, size_t off, const void *src, size_t len)
{
    const mpii_typed_t *t = ctx;
    pack_range(t->d, (uintptr_t)t->buf, t->count, off, (char *)(uintptr_t)src, len, 1);
}

void mpii_layout_init(rmp_layout_t *lay, mpii_typed_t *t, const mpii_dtype_t *d, const void *buf,
                      MPI_Count count)
{
    t->d = d;
    t->buf = (void *)(uintptr_t)buf;
    t->count = count;
    lay->pack = pack_layout_pack;
    lay->unpack = pack_layout_unpack;
    lay->ctx = t;
    lay->segments = mpii_dtype_segments;
}

/* Whole basic elements in the first `bytes` bytes of one element of d. */
static MPI_Count pack_count(const mpii_dl_t *d, size_t bytes)
{
    if (bytes >= d->size)
        return d->nbasic;
    switch (d->kind) {
    case MPII_DL_RUN:
        return d->u.run.esize ? (MPI_Count)(bytes / d->u.run.esize) : 0;
    case MPII_DL_VEC: {
        const mpii_dl_t *c = d->u.vec.child;
        size_t bsz = (size_t)d->u.vec.blocklen * c->size;
        MPI_Count n = (MPI_Count)(bytes / bsz) * d->u.vec.blocklen * c->nbasic;
        size_t r = bytes % bsz;
        n += (MPI_Count)(r / c->size) * c->nbasic;
        return n + pack_count(c, r % c->size);
    }
    default: {
        MPI_Count n = 0;
        for (MPI_Count k = 0; k < d->u.idx.n; k++) {
            const mpii_dl_t *c = d->u.idx.child[k];
            size_t bsz = (size_t)d->u.idx.blocklen[k] * c->size;
            if (bytes >= bsz) {
                n += d->u.idx.blocklen[k] * c->nbasic;
                bytes -= bsz;
                continue;
            }
            n += (MPI_Count)(bytes / c->size) * c->nbasic;
            return n + pack_count(c, bytes % c->size);
        }
        return n;
    }
    }
}

MPI_Count mpii_dtype_elements(const mpii_dtype_t *d, size_t bytes)
{
    if (d->size == 0)
        return 0;
    return (MPI_Count)(bytes / d->size) * d->dl->nbasic + pack_count(d->dl, bytes % d->size);
}

/* ---- MPI_Pack / MPI_Unpack / MPI_Pack_size ---- */

static int pack_check(mpii_comm_t *c, const char *fn, MPI_Count count, const mpii_dtype_t *d,
                      MPI_Count outsize, const MPI_Count *pos)
{
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (count < 0)
        return mpii_err_comm(c, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    if (!mpii_dtype_ok(d))
        return mpii_err_comm(c, MPI_ERR_TYPE, fn, d ? "datatype not committed"
                                                    : "invalid datatype");
    if (!pos || *pos < 0 || outsize < 0 || *pos > outsize)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "invalid position %lld (buffer %lld bytes)",
                             pos ? (long long)*pos : -1LL, (long long)outsize);
    return MPI_SUCCESS;
}

static int pack_do(const void *inbuf, MPI_Count incount, MPI_Datatype dt, void *outbuf,
                   MPI_Count outsize, MPI_Count *position, MPI_Comm comm, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    int rc = pack_check(c, fn, incount, d, outsize, position);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t need = (size_t)incount * d->size;
    if (need > (size_t)(outsize - *position))
        return mpii_err_comm(c, MPI_ERR_TRUNCATE, fn,
                             "%zu bytes to pack, %lld left in the buffer", need,
                             (long long)(outsize - *position));
    /* inbuf may be MPI_BOTTOM (NULL) with absolute displacements; the packed side may not. */
    if (need && !outbuf)
        return mpii_err_comm(c, MPI_ERR_BUFFER, fn, "NULL buffer");
    mpii_dtype_pack(d, inbuf, incount, 0, (char *)outbuf + *position, need);
    *position += (MPI_Count)need;
    return MPI_SUCCESS;
}

static int unpack_do(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                     MPI_Count outcount, MPI_Datatype dt, MPI_Comm comm, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    int rc = pack_check(c, fn, outcount, d, insize, position);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t need = (size_t)outcount * d->size;
    if (need > (size_t)(insize - *position))
        return mpii_err_comm(c, MPI_ERR_TRUNCATE, fn,
                             "%zu bytes to unpack, %lld left in the buffer", need,
                             (long long)(insize - *position));
    /* outbuf may be MPI_BOTTOM (NULL) with absolute displacements; the packed side may not. */
    if (need && !inbuf)
        return mpii_err_comm(c, MPI_ERR_BUFFER, fn, "NULL buffer");
    mpii_dtype_unpack(d, outbuf, outcount, 0, (const char *)inbuf + *position, need);
    *position += (MPI_Count)need;
    return MPI_SUCCESS;
}

MPII_TWINS(Pack, pack_do(inbuf, incount, datatype, outbuf, outsize, NARROW(position, (int)), comm,
           FN))

MPII_TWINS(Unpack, unpack_do(inbuf, insize, NARROW(position, (int)), outbuf, outcount, datatype,
           comm, FN))

/* The size as an int (isize, MPI_Pack_size) or a MPI_Count (size, MPI_Pack_size_c). */
static int pack_size(MPI_Count incount, MPI_Datatype dt, MPI_Comm comm, int *isize,
                     MPI_Count *size, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (incount < 0)
        return mpii_err_comm(c, MPI_ERR_COUNT, fn, "negative count %lld", (long long)incount);
    if (!mpii_dtype_ok(d))
        return mpii_err_comm(c, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (!size && !isize)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "size is NULL");
    MPI_Count n = incount * (MPI_Count)d->size;
    if (size)
        *size = n;
    else if (n > INT32_MAX)
        return mpii_err_comm(c, MPI_ERR_VALUE_TOO_LARGE, fn,
                             "%lld bytes do not fit an int (use MPI_Pack_size_c)", (long long)n);
    else
        *isize = (int)n;
    return MPI_SUCCESS;
}

MPII_TWINS(Pack_size, pack_size(incount, datatype, comm, TWIN(size, NULL), TWIN(NULL, size), FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "pack.twins.h"
