/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: the "external32"
 * data representation (MPI-4.1 section 14.5.2): big-endian IEEE, a fixed size per type
 * (long and unsigned long 4 bytes, wchar_t 2, long double 16 as IEEE quad, ...). The
 * native packed stream (pack.c) is converted element by element to or from the external
 * one, walking the type's layout in packing order: each run knows the conversion of its
 * elements (MPII_X_*, set on the predefined types and kept by every constructor). */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

static int px_datarep(const char *datarep, const char *fn)
{
    if (!datarep)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "datarep is NULL");
    if (strcmp(datarep, "external32") != 0)
        return mpii_err_comm(NULL, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                             "data representation \"%s\": only \"external32\" is supported",
                             datarep);
    return MPI_SUCCESS;
}

/* External bytes of one run element of esize native bytes. */
static size_t px_xsize(size_t esize, int xconv)
{
    return xconv == MPII_X_LONG || xconv == MPII_X_ULONG ? 4 : xconv == MPII_X_WCHAR ? 2 : esize;
}

/* n bytes reversed from src to dst (distinct buffers). */
static void px_rev(unsigned char *dst, const unsigned char *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

/* One 16-byte long double, native <-> IEEE quad big-endian. */
static void px_ldbl(unsigned char *nat, unsigned char *ext, int to_ext)
{
#if LDBL_MANT_DIG == 64 && defined(__SIZEOF_FLOAT128__)
    long double v;
    __float128 q;
    unsigned char b[16];
    if (to_ext) {
        memcpy(&v, nat, sizeof(v));
        q = (__float128)v;
        memcpy(b, &q, 16);
        px_rev(ext, b, 16);
    } else {
        px_rev(b, ext, 16);
        memcpy(&q, b, 16);
        v = (long double)q;
        memset(nat, 0, 16); /* the padding of the x87 format */
        memcpy(nat, &v, sizeof(v) < 16 ? sizeof(v) : 16);
    }
#else /* long double is IEEE quad already */
    if (to_ext)
        px_rev(ext, nat, 16);
    else
        px_rev(nat, ext, 16);
#endif
}

/* An integer of esize native bytes <-> xs big-endian bytes: truncated to external32's
 * size, sign- (signed) or zero-extended back. */
static void px_int(unsigned char *nat, unsigned char *ext, size_t esize, size_t xs, int sign,
                   int to_ext)
{
    uint64_t v = 0;
    if (to_ext) {
        memcpy(&v, nat, esize < 8 ? esize : 8); /* little-endian: the low bytes */
        for (size_t i = 0; i < xs; i++)
            ext[xs - 1 - i] = (unsigned char)(v >> (8 * i));
        return;
    }
    for (size_t i = 0; i < xs; i++)
        v |= (uint64_t)ext[xs - 1 - i] << (8 * i);
    if (sign && xs < 8 && (v >> (8 * xs - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * xs);
    memcpy(nat, &v, esize < 8 ? esize : 8);
}

/* n elements of a run: native at *nat, external at *ext; both advance. */
static void px_run(unsigned char **nat, unsigned char **ext, size_t len, size_t esize,
                   int xconv, int to_ext)
{
    if (esize == 0) { /* no element structure: bytes */
        memcpy(to_ext ? *ext : *nat, to_ext ? *nat : *ext, len);
        *nat += len;
        *ext += len;
        return;
    }
    size_t xs = px_xsize(esize, xconv), n = len / esize;
    unsigned char *a = *nat, *b = *ext;
    for (size_t k = 0; k < n; k++, a += esize, b += xs) {
        switch (xconv) {
        case MPII_X_LDBL:
            for (size_t o = 0; o + 16 <= esize; o += 16)
                px_ldbl(a + o, b + o, to_ext);
            break;
        case MPII_X_LONG: case MPII_X_ULONG: case MPII_X_WCHAR:
            px_int(a, b, esize, xs, xconv == MPII_X_LONG, to_ext);
            break;
        case MPII_X_CPLX: {
            size_t h = esize / 2;
            if (to_ext) {
                px_rev(b, a, h);
                px_rev(b + h, a + h, h);
            } else {
                px_rev(a, b, h);
                px_rev(a + h, b + h, h);
            }
            break;
        }
        default:
            if (to_ext)
                px_rev(b, a, esize);
            else
                px_rev(a, b, esize);
        }
    }
    *nat = a;
    *ext = b;
}

/* One element of dl in packing order. */
static void px_walk(const mpii_dl_t *dl, unsigned char **nat, unsigned char **ext, int to_ext)
{
    switch (dl->kind) {
    case MPII_DL_RUN:
        px_run(nat, ext, dl->u.run.len, dl->u.run.esize, dl->u.run.xconv, to_ext);
        return;
    case MPII_DL_VEC: {
        const mpii_dl_t *c = dl->u.vec.child;
        MPI_Count n = dl->u.vec.count * dl->u.vec.blocklen;
        if (c->kind == MPII_DL_RUN) { /* the blocks' runs are adjacent once packed */
            px_run(nat, ext, (size_t)n * c->u.run.len, c->u.run.esize, c->u.run.xconv, to_ext);
            return;
        }
        for (MPI_Count i = 0; i < n; i++)
            px_walk(c, nat, ext, to_ext);
        return;
    }
    default:
        for (MPI_Count k = 0; k < dl->u.idx.n; k++)
            for (MPI_Count j = 0; j < dl->u.idx.blocklen[k]; j++)
                px_walk(dl->u.idx.child[k], nat, ext, to_ext);
    }
}

/* External bytes of one element of dl. */
static size_t px_ext_size(const mpii_dl_t *dl)
{
    switch (dl->kind) {
    case MPII_DL_RUN:
        return dl->u.run.esize ? dl->u.run.len / dl->u.run.esize *
                                     px_xsize(dl->u.run.esize, dl->u.run.xconv)
                               : dl->u.run.len;
    case MPII_DL_VEC:
        return (size_t)(dl->u.vec.count * dl->u.vec.blocklen) * px_ext_size(dl->u.vec.child);
    default: {
        size_t s = 0;
        for (MPI_Count k = 0; k < dl->u.idx.n; k++)
            s += (size_t)dl->u.idx.blocklen[k] * px_ext_size(dl->u.idx.child[k]);
        return s;
    }
    }
}

static void px_convert(const mpii_dtype_t *d, MPI_Count count, unsigned char *nat,
                       unsigned char *ext, int to_ext)
{
    if (d->size == 0)
        return;
    if (d->dl->kind == MPII_DL_RUN) {
        px_run(&nat, &ext, (size_t)count * d->size, d->dl->u.run.esize, d->dl->u.run.xconv,
               to_ext);
        return;
    }
    for (MPI_Count e = 0; e < count; e++)
        px_walk(d->dl, &nat, &ext, to_ext);
}

static int px_type(MPI_Datatype dt, MPI_Count count, const char *fn, mpii_dtype_t **d)
{
    mpii_check_init(fn);
    *d = mpii_dtype(dt);
    if (count < 0)
        return mpii_err_comm(NULL, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    if (!mpii_dtype_ok(*d))
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn,
                             *d ? "datatype not committed" : "invalid datatype");
    return MPI_SUCCESS;
}

static int px_pack(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype dt,
                   void *outbuf, MPI_Count outsize, MPI_Count *position, const char *fn)
{
    mpii_dtype_t *d;
    int rc = px_datarep(datarep, fn);
    if (rc == MPI_SUCCESS)
        rc = px_type(dt, incount, fn, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!position || *position < 0 || outsize < 0 || *position > outsize)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid position %lld (buffer %lld bytes)",
                             position ? (long long)*position : -1LL, (long long)outsize);
    size_t need = (size_t)incount * px_ext_size(d->dl), nat = (size_t)incount * d->size;
    if (need > (size_t)(outsize - *position))
        return mpii_err_comm(NULL, MPI_ERR_TRUNCATE, fn,
                             "%zu bytes to pack, %lld left in the buffer", need,
                             (long long)(outsize - *position));
    if (!need)
        return MPI_SUCCESS;
    if (!outbuf)
        return mpii_err_comm(NULL, MPI_ERR_BUFFER, fn, "outbuf is NULL");
    /* The native packed stream first, then converted into the output. */
    unsigned char *tmp = malloc(nat);
    if (!tmp)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory (%zu bytes)", nat);
    mpii_dtype_pack(d, inbuf, incount, 0, tmp, nat);
    px_convert(d, incount, tmp, (unsigned char *)outbuf + *position, 1);
    free(tmp);
    *position += (MPI_Count)need;
    return MPI_SUCCESS;
}

static int px_unpack(const char *datarep, const void *inbuf, MPI_Count insize,
                     MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype dt,
                     const char *fn)
{
    mpii_dtype_t *d;
    int rc = px_datarep(datarep, fn);
    if (rc == MPI_SUCCESS)
        rc = px_type(dt, outcount, fn, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!position || *position < 0 || insize < 0 || *position > insize)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid position %lld (buffer %lld bytes)",
                             position ? (long long)*position : -1LL, (long long)insize);
    size_t need = (size_t)outcount * px_ext_size(d->dl), nat = (size_t)outcount * d->size;
    if (need > (size_t)(insize - *position))
        return mpii_err_comm(NULL, MPI_ERR_TRUNCATE, fn,
                             "%zu bytes to unpack, %lld left in the buffer", need,
                             (long long)(insize - *position));
    if (!need)
        return MPI_SUCCESS;
    if (!inbuf)
        return mpii_err_comm(NULL, MPI_ERR_BUFFER, fn, "inbuf is NULL");
    /* Converted to the native packed stream, then unpacked. */
    unsigned char *tmp = malloc(nat);
    if (!tmp)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory (%zu bytes)", nat);
    px_convert(d, outcount, tmp, (unsigned char *)(uintptr_t)inbuf + *position, 0);
    mpii_dtype_unpack(d, outbuf, outcount, 0, tmp, nat);
    free(tmp);
    *position += (MPI_Count)need;
    return MPI_SUCCESS;
}

MPII_TWINS(Pack_external, px_pack(datarep, inbuf, incount, datatype, outbuf, outsize,
           TWIN((MPI_Count *)position, position), FN))

MPII_TWINS(Unpack_external, px_unpack(datarep, inbuf, insize,
           TWIN((MPI_Count *)position, position), outbuf, outcount, datatype, FN))

static int px_size(const char *datarep, MPI_Count incount, MPI_Datatype dt, MPI_Count *size,
                   const char *fn)
{
    mpii_dtype_t *d;
    int rc = px_datarep(datarep, fn);
    if (rc == MPI_SUCCESS)
        rc = px_type(dt, incount, fn, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!size)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "size is NULL");
    *size = incount * (MPI_Count)px_ext_size(d->dl);
    return MPI_SUCCESS;
}

MPII_TWINS(Pack_external_size, px_size(datarep, incount, datatype,
           TWIN((MPI_Count *)size, size), FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "pack_external.twins.h"
