/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO "external32" views whose layout in the file differs from the native one
 * (types whose external32 size is not their native size: MPI_LONG 4 bytes, MPI_WCHAR
 * 2, ...). MPI-4.1 section 14.5: displacements given in bytes (hvector, hindexed,
 * struct, resized) are taken as they are; those counted in elements (contiguous,
 * vector, indexed, subarray) are scaled by the element's extent in the file. The
 * filetype is laid out again from its constructor (MPI_Type_get_contents) with
 * external32 sizes; an access then moves the Pack_external stream through that
 * layout, its stream position counted in external32 etypes. */
#include <stdlib.h>
#include <string.h>

#include "mpii.h"
#include "mpii_file.h"

typedef struct {
    mpii_fseg_t *seg;
    int n, cap, err;
} x32_t;

static void x32_add(x32_t *x, MPI_Offset off, MPI_Offset len)
{
    if (len <= 0 || x->err)
        return;
    if (x->n && x->seg[x->n - 1].off + x->seg[x->n - 1].len == off) {
        x->seg[x->n - 1].len += len;
        return;
    }
    if (x->n == x->cap) {
        int cap = x->cap ? 2 * x->cap : 16;
        mpii_fseg_t *s = realloc(x->seg, (size_t)cap * sizeof(*s));
        if (!s) {
            x->err = MPI_ERR_NO_MEM;
            return;
        }
        x->seg = s;
        x->cap = cap;
    }
    x->seg[x->n].off = off;
    x->seg[x->n].len = len;
    x->n++;
}

/* A type's constructor: its arguments (malloc'ed), freed by x32_done. */
typedef struct {
    int comb, ni, na, nd;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
} x32_env_t;

static void x32_done(x32_env_t *e)
{
    for (int i = 0; i < e->nd; i++) {
        int ni, na, nd, c = MPI_COMBINER_NAMED;
        PMPI_Type_get_envelope(e->types[i], &ni, &na, &nd, &c);
        if (c != MPI_COMBINER_NAMED)
            PMPI_Type_free(&e->types[i]);
    }
    free(e->ints);
    free(e->aints);
    free(e->types);
}

static int x32_env(MPI_Datatype t, x32_env_t *e)
{
    memset(e, 0, sizeof(*e));
    int rc = PMPI_Type_get_envelope(t, &e->ni, &e->na, &e->nd, &e->comb);
    if (rc || e->comb == MPI_COMBINER_NAMED)
        return rc;
    e->ints = malloc(sizeof(int) * (size_t)(e->ni + 1));
    e->aints = malloc(sizeof(MPI_Aint) * (size_t)(e->na + 1));
    e->types = malloc(sizeof(MPI_Datatype) * (size_t)(e->nd + 1));
    if (!e->ints || !e->aints || !e->types) {
        e->nd = 0;
        x32_done(e);
        return MPI_ERR_NO_MEM;
    }
    rc = PMPI_Type_get_contents(t, e->ni, e->na, e->nd, e->ints, e->aints, e->types);
    if (rc)
        e->nd = 0;
    return rc;
}

/* Element offsets of a subarray (in elements), in typemap order, and their number. */
static MPI_Offset x32_sub_elem(const int *sizes, const int *subs, const int *starts, int nd,
                               int order, MPI_Offset k)
{
    MPI_Offset off = 0, stride = 1;
    for (int q = 0; q < nd; q++) {
        int d = order == MPI_ORDER_C ? nd - 1 - q : q; /* the fastest dimension first */
        MPI_Offset i = k % subs[d];
        k /= subs[d];
        off += (starts[d] + i) * stride;
        stride *= sizes[d];
    }
    return off;
}

static int x32_walk(x32_t *x, MPI_Datatype t, MPI_Offset base, MPI_Offset *lb,
                    MPI_Offset *ext);

/* The file lb and extent of t (nothing added). */
static int x32_extent(MPI_Datatype t, MPI_Offset *lb, MPI_Offset *ext)
{
    x32_t none = {NULL, 0, 0, 0};
    none.err = -1; /* x32_add ignores everything */
    return x32_walk(&none, t, 0, lb, ext);
}

/* Span [lo, hi) widened by a copy of a type (lb l, extent e) placed at off. */
static void x32_span(MPI_Offset *lo, MPI_Offset *hi, int *any, MPI_Offset off, MPI_Offset l,
                     MPI_Offset e)
{
    if (!*any || off + l < *lo)
        *lo = off + l;
    if (!*any || off + l + e > *hi)
        *hi = off + l + e;
    *any = 1;
}

/* Add t's pieces at base (in typemap order); its file lb and extent. */
static int x32_walk(x32_t *x, MPI_Datatype t, MPI_Offset base, MPI_Offset *lb, MPI_Offset *ext)
{
    x32_env_t e;
    int rc = x32_env(t, &e);
    if (rc)
        return rc;
    MPI_Offset lo = 0, hi = 0, ol = 0, oe = 0;
    int any = 0;
    if (e.comb == MPI_COMBINER_NAMED) {
        MPI_Aint xs = 0;
        rc = PMPI_Pack_external_size("external32", 1, t, &xs);
        x32_add(x, base, xs);
        *lb = 0;
        *ext = xs;
        return rc;
    }
    if (e.comb != MPI_COMBINER_STRUCT && e.nd == 1)
        rc = x32_extent(e.types[0], &ol, &oe);
    int *I = e.ints;
    MPI_Aint *A = e.aints;
    switch (rc ? -1 : e.comb) {
    case -1:
        break;
    case MPI_COMBINER_DUP:
        rc = x32_walk(x, e.types[0], base, &lo, &hi);
        hi += lo;
        any = 1;
        break;
    case MPI_COMBINER_CONTIGUOUS:
        for (MPI_Offset i = 0; i < I[0] && !rc; i++) {
            rc = x32_walk(x, e.types[0], base + i * oe, &ol, &oe);
            x32_span(&lo, &hi, &any, i * oe, ol, oe);
        }
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        for (MPI_Offset i = 0; i < I[0] && !rc; i++)
            for (MPI_Offset j = 0; j < I[1] && !rc; j++) {
                MPI_Offset o = (e.comb == MPI_COMBINER_VECTOR ? i * I[2] * oe : i * A[0]) +
                               j * oe;
                rc = x32_walk(x, e.types[0], base + o, &ol, &oe);
                x32_span(&lo, &hi, &any, o, ol, oe);
            }
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
        int blk = e.comb == MPI_COMBINER_INDEXED_BLOCK || e.comb == MPI_COMBINER_HINDEXED_BLOCK;
        int bytes = e.comb == MPI_COMBINER_HINDEXED || e.comb == MPI_COMBINER_HINDEXED_BLOCK;
        for (int i = 0; i < I[0] && !rc; i++) {
            int bl = blk ? I[1] : I[1 + i];
            MPI_Offset d = bytes ? A[i] : (MPI_Offset)(blk ? I[2 + i] : I[1 + I[0] + i]) * oe;
            for (MPI_Offset j = 0; j < bl && !rc; j++) {
                rc = x32_walk(x, e.types[0], base + d + j * oe, &ol, &oe);
                x32_span(&lo, &hi, &any, d + j * oe, ol, oe);
            }
        }
        break;
    }
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < I[0] && !rc; i++) {
            rc = x32_extent(e.types[i], &ol, &oe);
            for (MPI_Offset j = 0; j < I[1 + i] && !rc; j++) {
                rc = x32_walk(x, e.types[i], base + A[i] + j * oe, &ol, &oe);
                x32_span(&lo, &hi, &any, A[i] + j * oe, ol, oe);
            }
        }
        break;
    case MPI_COMBINER_SUBARRAY: {
        int nd = I[0], *sizes = I + 1, *subs = I + 1 + nd, *starts = I + 1 + 2 * nd;
        MPI_Offset n = 1, all = 1;
        for (int q = 0; q < nd; q++) {
            n *= subs[q];
            all *= sizes[q];
        }
        for (MPI_Offset k = 0; k < n && !rc; k++) {
            MPI_Offset o = x32_sub_elem(sizes, subs, starts, nd, I[1 + 3 * nd], k) * oe;
            rc = x32_walk(x, e.types[0], base + o, &ol, &oe);
        }
        lo = 0; /* the whole array, as the standard's resized type */
        hi = all * oe;
        any = 1;
        break;
    }
    case MPI_COMBINER_RESIZED:
        rc = x32_walk(x, e.types[0], base, &ol, &oe);
        lo = A[0];
        hi = A[0] + A[1];
        any = 1;
        break;
    default:
        rc = MPI_ERR_UNSUPPORTED_DATAREP; /* darray, Fortran parameterized, ... */
    }
    x32_done(&e);
    *lb = any ? lo : 0;
    *ext = any ? hi - lo : 0;
    return rc ? rc : x->err > 0 ? x->err : MPI_SUCCESS;
}

int mpii_file_x32_extent(mpii_dtype_t *d, MPI_Aint *extent)
{
    MPI_Offset lb = 0, ext = 0;
    int rc = x32_extent(mpii_dtype_handle(d), &lb, &ext);
    *extent = (MPI_Aint)ext;
    return rc;
}

/* f's view laid out in external32 sizes: v, a copy of *f whose segments, sizes and
 * etype size are the file's (for the view functions); free x->seg and *sum after. */
static int x32_view(const mpii_file_t *f, mpii_file_t *v, x32_t *x, MPI_Offset **sum)
{
    MPI_Aint es = 0;
    MPI_Offset lb = 0, ext = 0;
    int rc = PMPI_Pack_external_size("external32", 1, mpii_dtype_handle(f->etype), &es);
    if (!rc)
        rc = x32_walk(x, mpii_dtype_handle(f->ftype), 0, &lb, &ext);
    if (!rc && (x->n == 0 || es == 0))
        rc = MPI_ERR_UNSUPPORTED_DATAREP;
    if (!rc && !(*sum = malloc(((size_t)x->n + 1) * sizeof(**sum))))
        rc = MPI_ERR_NO_MEM;
    if (rc)
        return rc;
    *v = *f;
    v->seg = x->seg;
    v->nseg = x->n;
    v->segsum = *sum;
    (*sum)[0] = 0;
    for (int i = 0; i < x->n; i++)
        (*sum)[i + 1] = (*sum)[i] + x->seg[i].len;
    v->ftsize = (*sum)[x->n];
    v->ftext = ext;
    v->esize = (size_t)es;
    return MPI_SUCCESS;
}

/* One access: f's view laid out in external32, pos a native stream position. */
int mpii_file_x32_io(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                     mpii_dtype_t *d, int write, size_t *done)
{
    MPI_Datatype h = mpii_dtype_handle(d);
    MPI_Aint one = 0, total = 0, p = 0;
    x32_t x = {NULL, 0, 0, 0};
    char *tmp = NULL;
    MPI_Offset *sum = NULL;
    mpii_file_t v; /* the view in file sizes */
    *done = 0;
    int rc = PMPI_Pack_external_size("external32", 1, h, &one);
    if (!rc)
        rc = x32_view(f, &v, &x, &sum);
    total = one * (MPI_Aint)count;
    if (!rc && one == 0)
        rc = MPI_ERR_UNSUPPORTED_DATAREP;
    if (!rc && !(tmp = malloc((size_t)total)))
        rc = MPI_ERR_NO_MEM;
    if (rc)
        goto out;
    MPI_Offset xpos = pos / (MPI_Offset)f->esize * (MPI_Offset)v.esize;
    if (write)
        rc = PMPI_Pack_external("external32", buf, count, h, tmp, total, &p);
    size_t got = 0;
    if (!rc)
        rc = mpii_file_view_io(&v, xpos, tmp, (size_t)total, write, &got);
    MPI_Count n = (MPI_Count)(got / (size_t)one);
    if (!rc && !write && n)
        rc = PMPI_Unpack_external("external32", tmp, total, &p, buf, n, h);
    *done = (size_t)n * d->size;
out:
    free(x.seg);
    free(sum);
    free(tmp);
    return rc;
}

/* An offset of f's external32 view: the byte offset of etype offset v (to_byte), or the
 * etype offset of byte offset v. */
static int x32_map(const mpii_file_t *f, MPI_Offset v, int to_byte, MPI_Offset *out)
{
    x32_t x = {NULL, 0, 0, 0};
    MPI_Offset *sum = NULL;
    mpii_file_t xv;
    int rc = x32_view(f, &xv, &x, &sum);
    if (!rc)
        *out = to_byte ? mpii_file_byte_of(&xv, v * (MPI_Offset)xv.esize)
                       : mpii_file_pos_of(&xv, v) / (MPI_Offset)xv.esize;
    free(x.seg);
    free(sum);
    return rc;
}

int mpii_file_x32_byte_of(const mpii_file_t *f, MPI_Offset eoff, MPI_Offset *byte)
{
    return x32_map(f, eoff, 1, byte);
}

int mpii_file_x32_end_of(const mpii_file_t *f, MPI_Offset size, MPI_Offset *eoff)
{
    return x32_map(f, size, 0, eoff);
}
