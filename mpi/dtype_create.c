/* SPDX-License-Identifier: BSD-3-Clause */
/* Datatype constructors. Every derived type reduces to two builders: a
 * vector (count blocks at a byte stride) and an indexed list (blocks at byte
 * displacements, one or several child types). Both fold dense children into
 * single runs and merge adjacent runs, so a contiguous result packs with one
 * memcpy and a strided one with one loop. */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

static MPI_Aint dc_min(MPI_Aint a, MPI_Aint b)
{
    return a < b ? a : b;
}

static MPI_Aint dc_max(MPI_Aint a, MPI_Aint b)
{
    return a > b ? a : b;
}

/* A node whose repetition is gap-free: its data is one run as long as its extent. */
static int dc_dense(const mpii_dl_t *dl)
{
    return dl->kind == MPII_DL_RUN && dl->extent == (MPI_Aint)dl->size;
}

static mpii_dtype_t *dc_new(int combiner, int ntypes)
{
    mpii_dtype_t *d = mpii_obj_new(&mpii_dtype_pool, MPII_MAGIC_DTYPE);
    if (!d)
        return NULL;
    d->types = calloc((size_t)(ntypes > 0 ? ntypes : 1), sizeof(*d->types));
    if (!d->types) {
        mpii_obj_free(&mpii_dtype_pool, d);
        return NULL;
    }
    d->refs = 1;
    d->basic = MPII_B_NONE;
    d->rmp = -1;
    d->align = 1;
    d->combiner = combiner;
    return d;
}

static void dc_ref(mpii_dtype_t *d, mpii_dtype_t *child)
{
    if (!child->predefined)
        child->refs++;
    d->types[d->ntypes++] = child;
}

/* Free a type whose construction failed half-way. */
static void dc_abort(mpii_dtype_t *d)
{
    d->refs = 1;
    mpii_dtype_release(d);
}

static void dc_run(mpii_dl_t *r, MPI_Aint off, size_t len, size_t esize, MPI_Aint extent)
{
    r->kind = MPII_DL_RUN;
    r->size = len;
    r->extent = extent;
    r->nbasic = esize ? (MPI_Count)(len / esize) : 0;
    r->u.run.off = off;
    r->u.run.len = len;
    r->u.run.esize = esize;
}

static void dc_finish(mpii_dtype_t *d)
{
    d->contig = d->dl->kind == MPII_DL_RUN && (MPI_Aint)d->size == d->extent;
    if (d->size == 0)
        d->contig = 1;
}

/* count blocks of blocklen elements of old, block i at i * stride bytes. */
static int dc_vector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride, mpii_dtype_t *old,
                     int combiner, mpii_dtype_t **out)
{
    mpii_dtype_t *d = dc_new(combiner, 1);
    if (!d)
        return MPI_ERR_NO_MEM;
    dc_ref(d, old);
    d->own = calloc(2, sizeof(mpii_dl_t));
    if (!d->own) {
        dc_abort(d);
        return MPI_ERR_NO_MEM;
    }
    d->size = (size_t)(count * blocklen) * old->size;
    d->basic = old->basic;
    d->align = old->align;
    if (count > 0 && blocklen > 0) {
        MPI_Aint last = (MPI_Aint)(count - 1) * stride, inner = (MPI_Aint)(blocklen - 1) * old->extent;
        MPI_Aint lo = dc_min(0, last) + dc_min(0, inner), hi = dc_max(0, last) + dc_max(0, inner);
        d->lb = lo + old->lb;
        d->extent = hi + old->lb + old->extent - d->lb;
        d->true_lb = lo + old->true_lb;
        d->true_extent = hi + old->true_lb + old->true_extent - d->true_lb;
    }
    mpii_dl_t *top = &d->own[0];
    const mpii_dl_t *od = old->dl;
    if (d->size == 0) {
        dc_run(top, 0, 0, 0, d->extent);
    } else if (dc_dense(od)) {
        size_t blen = (size_t)blocklen * od->size;
        if (count == 1 || stride == (MPI_Aint)blen) {
            dc_run(top, od->u.run.off, (size_t)count * blen, od->u.run.esize, d->extent);
            top->u.run.xconv = od->u.run.xconv;
        } else {
            dc_run(&d->own[1], od->u.run.off, blen, od->u.run.esize, (MPI_Aint)blen);
            d->own[1].u.run.xconv = od->u.run.xconv;
            top->kind = MPII_DL_VEC;
            top->u.vec.count = count;
            top->u.vec.blocklen = 1;
            top->u.vec.stride = stride;
            top->u.vec.child = &d->own[1];
        }
    } else {
        top->kind = MPII_DL_VEC;
        top->u.vec.count = count;
        top->u.vec.blocklen = blocklen;
        top->u.vec.stride = stride;
        top->u.vec.child = od;
    }
    top->size = d->size;
    top->extent = d->extent;
    top->nbasic = count * blocklen * od->nbasic;
    d->dl = top;
    dc_finish(d);
    *out = d;
    return MPI_SUCCESS;
}

/* n blocks: bl[k] elements of types[k] (or types[0] when one type) at disp[k] bytes. */
static int dc_indexed(MPI_Count n, const MPI_Count *bl, const MPI_Aint *disp,
                      mpii_dtype_t *const *types, int one_type, int combiner,
                      mpii_dtype_t **out)
{
    int nt = one_type ? 1 : (int)n;
    mpii_dtype_t *d = dc_new(combiner, nt);
    if (!d)
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < nt; k++)
        dc_ref(d, types[k]);
    d->own = calloc((size_t)n + 1, sizeof(mpii_dl_t));
    void *arrays = malloc((size_t)(n ? n : 1) * (sizeof(MPI_Count) + 2 * sizeof(MPI_Aint) +
                                                  sizeof(mpii_dl_t *) + sizeof(size_t)) +
                          sizeof(size_t));
    if (!d->own || !arrays) {
        free(arrays);
        dc_abort(d);
        return MPI_ERR_NO_MEM;
    }
    MPI_Count *ibl = arrays;
    MPI_Aint *idisp = (MPI_Aint *)(ibl + (n ? n : 1));
    const mpii_dl_t **ichild = (const mpii_dl_t **)(idisp + (n ? n : 1));
    size_t *psum = (size_t *)(ichild + (n ? n : 1));
    MPI_Aint *roff = (MPI_Aint *)(psum + (n ? n : 1) + 1);

    int first = 1, basic = MPII_B_NONE, mixed = 0;
    MPI_Aint lb = 0, ub = 0, tlb = 0, tub = 0;
    MPI_Count m = 0, nbasic = 0;
    for (MPI_Count k = 0; k < n; k++) {
        mpii_dtype_t *t = types[one_type ? 0 : k];
        if (bl[k] == 0)
            continue;
        MPI_Aint inner = (MPI_Aint)(bl[k] - 1) * t->extent;
        MPI_Aint lo = disp[k] + dc_min(0, inner), hi = disp[k] + dc_max(0, inner);
        MPI_Aint klb = lo + t->lb, kub = hi + t->lb + t->extent;
        MPI_Aint ktlb = lo + t->true_lb, ktub = hi + t->true_lb + t->true_extent;
        lb = first ? klb : dc_min(lb, klb);
        ub = first ? kub : dc_max(ub, kub);
        tlb = first ? ktlb : dc_min(tlb, ktlb);
        tub = first ? ktub : dc_max(tub, ktub);
        if (first)
            basic = t->basic;
        else if (t->basic != basic)
            mixed = 1;
        first = 0;
        d->size += (size_t)bl[k] * t->size;
        if (t->align > d->align)
            d->align = t->align;
        nbasic += bl[k] * t->dl->nbasic;
        if (t->size == 0)
            continue;
        /* The layout: dense children become one run per block; adjacent runs merge. */
        const mpii_dl_t *td = t->dl;
        if (dc_dense(td)) {
            MPI_Aint off = disp[k] + td->u.run.off;
            size_t len = (size_t)bl[k] * td->size;
            mpii_dl_t *prev = m > 0 ? &d->own[m] : NULL;
            if (prev && ibl[m - 1] == 1 && prev->kind == MPII_DL_RUN &&
                idisp[m - 1] + prev->u.run.off + (MPI_Aint)prev->u.run.len == off &&
                prev->u.run.esize == td->u.run.esize &&
                prev->u.run.xconv == td->u.run.xconv) {
                dc_run(prev, prev->u.run.off, prev->u.run.len + len, td->u.run.esize,
                       (MPI_Aint)(prev->u.run.len + len));
                continue;
            }
            dc_run(&d->own[m + 1], td->u.run.off, len, td->u.run.esize, (MPI_Aint)len);
            d->own[m + 1].u.run.xconv = td->u.run.xconv;
            ibl[m] = 1;
            idisp[m] = disp[k];
            ichild[m] = &d->own[m + 1];
        } else {
            ibl[m] = bl[k];
            idisp[m] = disp[k];
            ichild[m] = td;
        }
        m++;
    }
    d->basic = mixed ? MPII_B_NONE : basic;
    d->lb = lb;
    d->extent = ub - lb;
    d->true_lb = tlb;
    d->true_extent = tub - tlb;
    if (combiner == MPI_COMBINER_STRUCT && d->align > 1 && d->extent % d->align)
        d->extent += d->align - d->extent % d->align; /* as a C compiler pads the struct */

    mpii_dl_t *top = &d->own[0];
    if (m == 0) {
        dc_run(top, 0, 0, 0, d->extent);
        free(arrays);
    } else if (m == 1 && ibl[0] == 1 && ichild[0]->kind == MPII_DL_RUN) {
        const mpii_dl_t *r = ichild[0];
        uint8_t xconv = r->u.run.xconv;
        dc_run(top, idisp[0] + r->u.run.off, r->u.run.len, r->u.run.esize, d->extent);
        top->u.run.xconv = xconv;
        free(arrays);
    } else {
        psum[0] = 0;
        for (MPI_Count k = 0; k < m; k++)
            psum[k + 1] = psum[k] + (size_t)ibl[k] * ichild[k]->size;
        top->kind = MPII_DL_IDX;
        top->u.idx.n = m;
        top->u.idx.blocklen = ibl;
        top->u.idx.disp = idisp;
        top->u.idx.child = ichild;
        top->u.idx.psum = psum;
        if (mpii_dtype_idx_compile(top, roff)) /* became a vector: the arrays are unused */
            free(arrays);
        else
            d->own_arrays = arrays;
    }
    top->size = d->size;
    top->extent = d->extent;
    top->nbasic = nbasic;
    d->dl = top;
    dc_finish(d);
    *out = d;
    return MPI_SUCCESS;
}

/* old with its lower bound and extent replaced (also Type_dup: the same ones). */
static int dc_resized(mpii_dtype_t *old, MPI_Aint lb, MPI_Aint extent, int combiner,
                      mpii_dtype_t **out)
{
    mpii_dtype_t *d = dc_new(combiner, 1);
    if (!d)
        return MPI_ERR_NO_MEM;
    dc_ref(d, old);
    d->own = calloc(1, sizeof(mpii_dl_t));
    if (!d->own) {
        dc_abort(d);
        return MPI_ERR_NO_MEM;
    }
    /* A shallow copy: the arrays stay old's, which lives as long as d. */
    d->own[0] = *old->dl;
    d->own[0].extent = extent;
    d->dl = &d->own[0];
    d->size = old->size;
    d->basic = old->basic;
    d->align = old->align;
    d->lb = lb;
    d->extent = extent;
    d->true_lb = old->true_lb;
    d->true_extent = old->true_extent;
    dc_finish(d);
    *out = d;
    return MPI_SUCCESS;
}

/* ---- argument checks and the MPI entry points ---- */

static int dc_err(int rc, const char *fn)
{
    if (rc == MPI_ERR_NO_MEM)
        return mpii_err_comm(NULL, rc, fn, "out of memory");
    return rc;
}

static int dc_check(const char *fn, MPI_Count count, MPI_Datatype oldtype, mpii_dtype_t **old,
                    MPI_Datatype *newtype)
{
    if (count < 0)
        return mpii_err_comm(NULL, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    if (!newtype)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
    if (old && !(*old = mpii_dtype(oldtype)))
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype handle %p",
                             (void *)oldtype);
    return MPI_SUCCESS;
}

static int dc_out(int rc, mpii_dtype_t *d, MPI_Datatype *newtype, const char *fn)
{
    if (rc != MPI_SUCCESS)
        return dc_err(rc, fn);
    *newtype = (MPI_Datatype)d;
    return MPI_SUCCESS;
}

static int dc_contiguous(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype,
                         const char *fn)
{
    mpii_dtype_t *old, *d = NULL;
    int rc = dc_check(fn, count, oldtype, &old, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = dc_vector(count, 1, old->extent, old, MPI_COMBINER_CONTIGUOUS, &d);
    if (rc == MPI_SUCCESS)
        mpii_dtype_env_simple(d, fn, 1, &count, 0, NULL, oldtype);
    return dc_out(rc, d, newtype, fn);
}

MPII_TWINS(Type_contiguous, dc_contiguous(count, oldtype, newtype, FN))

static int dc_hvector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride, int in_elems,
                      MPI_Datatype oldtype, MPI_Datatype *newtype, const char *fn)
{
    mpii_dtype_t *old, *d = NULL;
    int rc = dc_check(fn, count, oldtype, &old, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    if (blocklen < 0)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "negative blocklength %lld",
                             (long long)blocklen);
    rc = dc_vector(count, blocklen, in_elems ? stride * old->extent : stride, old,
                   in_elems ? MPI_COMBINER_VECTOR : MPI_COMBINER_HVECTOR, &d);
    MPI_Count args[3] = {count, blocklen, stride};
    if (rc == MPI_SUCCESS)
        mpii_dtype_env_simple(d, fn, in_elems ? 3 : 2, args, in_elems ? 0 : 1, &stride, oldtype);
    return dc_out(rc, d, newtype, fn);
}

MPII_TWINS(Type_vector, dc_hvector(count, blocklength, stride, 1, oldtype, newtype, FN))

MPII_TWINS(Type_create_hvector, dc_hvector(count, blocklength, stride, 0, oldtype, newtype, FN))

/* The general indexed constructor over already widened arrays. bl == NULL:
 * every block has blocklen `bl1`. disp in elements of the old type when
 * in_elems. types == NULL: every block has oldtype. */
static int dc_index_gen(MPI_Count count, const MPI_Count *bl, MPI_Count bl1,
                        const MPI_Aint *disp, int in_elems, MPI_Datatype oldtype,
                        const MPI_Datatype *types, int combiner, MPI_Datatype *newtype,
                        const char *fn)
{
    mpii_dtype_t *old = NULL, *d = NULL;
    int rc = dc_check(fn, count, oldtype, types ? NULL : &old, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count > 0 && ((!bl && bl1 < 0) || !disp))
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, bl1 < 0 ? "negative blocklength"
                                                            : "NULL array argument");
    size_t n = (size_t)(count ? count : 1);
    MPI_Count *b = malloc(n * sizeof(*b));
    MPI_Aint *ds = malloc(n * sizeof(*ds));
    mpii_dtype_t **ts = malloc((types ? n : 1) * sizeof(*ts));
    if (!b || !ds || !ts) {
        rc = dc_err(MPI_ERR_NO_MEM, fn);
        goto out;
    }
    if (!types)
        ts[0] = old;
    for (MPI_Count k = 0; k < count; k++) {
        b[k] = bl ? bl[k] : bl1;
        if (b[k] < 0) {
            rc = mpii_err_comm(NULL, MPI_ERR_ARG, fn, "negative blocklength %lld in block %lld",
                               (long long)b[k], (long long)k);
            goto out;
        }
        if (types && !(ts[k] = mpii_dtype(types[k]))) {
            rc = mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype in block %lld",
                               (long long)k);
            goto out;
        }
        ds[k] = in_elems ? disp[k] * old->extent : disp[k];
    }
    rc = dc_indexed(count, b, ds, ts, types == NULL, combiner, &d);
    if (rc == MPI_SUCCESS)
        mpii_dtype_env_index(d, fn, count, bl, bl1, disp, oldtype, types);
    rc = dc_out(rc, d, newtype, fn);
out:
    free(b);
    free(ds);
    free(ts);
    return rc;
}

/* The int arrays of the classic bindings, widened. */
static int dc_index_int(int count, const int *bl, int bl1, const int *idisp,
                        const MPI_Aint *adisp, MPI_Datatype oldtype,
                        const MPI_Datatype *types, int combiner, MPI_Datatype *newtype,
                        const char *fn)
{
    if (count > 0 && ((!bl && bl1 < 0) || (!idisp && !adisp)))
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL array argument");
    if (count > 0 && bl == NULL && bl1 < 0)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "negative blocklength");
    MPI_Count *wb = NULL, *wd = NULL;
    int rc;
    if (!mpii_widen(bl, count, &wb) || !mpii_widen(idisp, count, &wd))
        rc = dc_err(MPI_ERR_NO_MEM, fn);
    else
        rc = dc_index_gen(count, wb, bl1, idisp ? (const MPI_Aint *)wd : adisp, idisp != NULL,
                          oldtype, types, combiner, newtype, fn);
    free(wb);
    free(wd);
    return rc;
}

/* The constructors with a blocklength per block: a NULL array of them is refused (given
 * to dc_index_gen, NULL would mean blocks of bl1 = 0 elements). */
static int dc_no_blocklengths(const char *fn)
{
    return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "array_of_blocklengths is NULL");
}

MPII_TWINS(Type_indexed, count > 0 && !array_of_blocklengths ? dc_no_blocklengths(FN)
           : TWIN(dc_index_int, dc_index_gen)(count, array_of_blocklengths, 0,
           TWIN(array_of_displacements, (const MPI_Aint *)array_of_displacements), TWIN(NULL, 1),
           oldtype, NULL, MPI_COMBINER_INDEXED, newtype, FN))

MPII_TWINS(Type_create_hindexed, count > 0 && !array_of_blocklengths ? dc_no_blocklengths(FN)
           : TWIN(dc_index_int, dc_index_gen)(count, array_of_blocklengths,
           0, TWIN(NULL, (const MPI_Aint *)array_of_displacements),
           TWIN(array_of_displacements, 0), oldtype, NULL, MPI_COMBINER_HINDEXED, newtype, FN))

MPII_TWINS(Type_create_indexed_block, TWIN(dc_index_int, dc_index_gen)(count, NULL, blocklength,
           TWIN(array_of_displacements, (const MPI_Aint *)array_of_displacements), TWIN(NULL, 1),
           oldtype, NULL, MPI_COMBINER_INDEXED_BLOCK, newtype, FN))

MPII_TWINS(Type_create_hindexed_block, TWIN(dc_index_int, dc_index_gen)(count, NULL, blocklength,
           TWIN(NULL, (const MPI_Aint *)array_of_displacements), TWIN(array_of_displacements, 0),
           oldtype, NULL, MPI_COMBINER_HINDEXED_BLOCK, newtype, FN))

/* A struct of no blocks may come with NULL arrays: an empty type list still says "struct"
 * to dc_index_gen (NULL would mean one oldtype, checked as MPI_DATATYPE_NULL). */
static const MPI_Datatype dc_no_types[1] = {MPI_DATATYPE_NULL};

/* count > 0 with NULL blocklengths or types: the int form says which (the _c form never
 * has). */
static int dc_struct_null(const MPI_Datatype *types, int large, const char *fn)
{
    if (large)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL array argument");
    return types ? dc_no_blocklengths(fn) : mpii_err_comm(NULL, MPI_ERR_ARG, fn, "types is NULL");
}

MPII_TWINS(Type_create_struct, count > 0 && (!array_of_blocklengths || !array_of_types)
           ? dc_struct_null(array_of_types, TWIN(0, 1), FN)
           : TWIN(dc_index_int, dc_index_gen)(count, array_of_blocklengths, 0,
           TWIN(NULL, (const MPI_Aint *)array_of_displacements), TWIN(array_of_displacements, 0),
           MPI_DATATYPE_NULL, count == 0 ? dc_no_types : array_of_types, MPI_COMBINER_STRUCT,
           newtype, FN))

static int dc_resize(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype,
                     const char *fn)
{
    mpii_dtype_t *old, *d = NULL;
    int rc = dc_check(fn, 0, oldtype, &old, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = dc_resized(old, lb, extent, MPI_COMBINER_RESIZED, &d);
    MPI_Aint args[2] = {lb, extent};
    if (rc == MPI_SUCCESS)
        mpii_dtype_env_simple(d, fn, 0, NULL, 2, args, oldtype);
    return dc_out(rc, d, newtype, fn);
}

MPII_TWINS(Type_create_resized, dc_resize(oldtype, lb, extent, newtype, FN))

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mpii_dtype_t *old, *d = NULL;
    int rc = dc_check("MPI_Type_dup", 0, oldtype, &old, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = dc_resized(old, old->lb, old->extent, MPI_COMBINER_DUP, &d);
    if (rc == MPI_SUCCESS) {
        d->committed = old->committed;
        d->rmp = old->rmp;
        mpii_dtype_env_simple(d, "MPI_Type_dup", 0, NULL, 0, NULL, oldtype);
        int err = old->predefined ? MPI_SUCCESS : mpii_type_attr_copy_all(old, d, "MPI_Type_dup");
        if (err != MPI_SUCCESS) {
            dc_abort(d);
            return err; /* reported by the copy */
        }
    }
    return dc_out(rc, d, newtype, "MPI_Type_dup");
}
MPII_WEAK(Type_dup)

static int dc_bad_dims(int ndims, const char *fn)
{
    return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid ndims %d or NULL array", ndims);
}

/* A subarray is nested vectors of the old type, placed at the start corner and
 * resized to the whole array. */
static int dc_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                       const MPI_Count *starts, int order, MPI_Datatype oldtype,
                       MPI_Datatype *newtype, const char *fn)
{
    mpii_dtype_t *old, *t = NULL, *u = NULL;
    int rc = dc_check(fn, ndims, oldtype, &old, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    if (ndims <= 0 || !sizes || !subsizes || !starts)
        return dc_bad_dims(ndims, fn);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid order %d", order);
    for (int i = 0; i < ndims; i++)
        if (sizes[i] <= 0 || subsizes[i] <= 0 || subsizes[i] > sizes[i] || starts[i] < 0 ||
            starts[i] > sizes[i] - subsizes[i])
            return mpii_err_comm(NULL, MPI_ERR_ARG, fn,
                                 "dimension %d: size %lld, subsize %lld, start %lld", i,
                                 (long long)sizes[i], (long long)subsizes[i],
                                 (long long)starts[i]);
    /* Dimensions from the fastest varying one. */
    MPI_Aint stride = old->extent, disp = 0;
    for (int k = 0; k < ndims; k++) {
        int i = order == MPI_ORDER_C ? ndims - 1 - k : k;
        mpii_dtype_t *in = t ? t : old;
        rc = k == 0 ? dc_vector(subsizes[i], 1, old->extent, old, MPI_COMBINER_CONTIGUOUS, &u)
                    : dc_vector(subsizes[i], 1, stride, in, MPI_COMBINER_HVECTOR, &u);
        if (t)
            mpii_dtype_release(t);
        if (rc != MPI_SUCCESS)
            return dc_err(rc, fn);
        t = u;
        disp += (MPI_Aint)starts[i] * stride;
        stride *= (MPI_Aint)sizes[i];
    }
    MPI_Count one = 1;
    rc = dc_indexed(1, &one, &disp, &t, 1, MPI_COMBINER_HINDEXED, &u);
    mpii_dtype_release(t);
    if (rc != MPI_SUCCESS)
        return dc_err(rc, fn);
    t = u;
    rc = dc_resized(t, 0, stride, MPI_COMBINER_SUBARRAY, &u);
    mpii_dtype_release(t);
    if (rc == MPI_SUCCESS)
        mpii_dtype_env_subarray(u, fn, ndims, sizes, subsizes, starts, order, oldtype);
    return dc_out(rc, u, newtype, fn);
}

/* The int form checks ndims and the arrays before the types and newtype (the _c form
 * after them, in dc_subarray). */
MPII_TWINS(Type_create_subarray, TWIN(ndims <= 0 || !array_of_sizes || !array_of_subsizes ||
           !array_of_starts, 0) ? dc_bad_dims(ndims, FN)
           : dc_subarray(ndims, WIDEN(array_of_sizes, ndims, dc_err),
           WIDEN(array_of_subsizes, ndims, dc_err), WIDEN(array_of_starts, ndims, dc_err), order,
           oldtype, newtype, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "dtype_create.twins.h"
