/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Type_create_darray (+ _c): the part of a global array a process owns under a
 * block / cyclic(k) / no distribution per dimension over a process grid numbered in
 * row-major order (MPI-4.1 section 5.1.4). Built from the fastest varying dimension
 * outwards: each dimension's type is a vector of the previous one (whose extent is
 * resized to the span of the dimensions inside it, so a block of k elements steps by a
 * whole row), the owned start corner is one displacement, and the result is resized to
 * lb 0 and the extent of the whole array. */
#include <stdlib.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

/* The type of dimension i from in (extent: span bytes of the inner dimensions); its
 * start index in *start. */
static int da_dim(MPI_Count gsize, int distrib, int darg, int np, int coord, MPI_Aint span,
                  MPI_Datatype in, MPI_Datatype *out, MPI_Count *start)
{
    MPI_Datatype t, parts[2] = {MPI_DATATYPE_NULL, in};
    int rc;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        distrib = MPI_DISTRIBUTE_BLOCK;
        darg = MPI_DISTRIBUTE_DFLT_DARG; /* one block of the whole dimension (np is 1) */
    }
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        MPI_Count blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + np - 1) / np : darg;
        MPI_Count mine = gsize - blk * coord;
        mine = mine < 0 ? 0 : mine > blk ? blk : mine;
        *start = mine ? blk * coord : 0;
        rc = PMPI_Type_contiguous_c(mine, in, &t);
    } else { /* cyclic(blk): blocks coord, coord + np, ... of blk elements */
        MPI_Count blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg, first = coord * blk;
        MPI_Count mine = 0;
        if (first < gsize) {
            mine = (gsize - first) / (np * blk) * blk;
            MPI_Count rem = (gsize - first) % (np * blk);
            mine += rem < blk ? rem : blk;
        }
        *start = mine ? first : 0;
        MPI_Count nblk = mine / blk, rem = mine % blk;
        MPI_Aint stride = (MPI_Aint)np * (MPI_Aint)blk * span;
        rc = PMPI_Type_create_hvector_c(nblk, blk, stride, in, &t);
        if (rc == MPI_SUCCESS && rem) { /* a last, shorter block */
            MPI_Count bl[2] = {1, rem}, disp[2] = {0, nblk * stride};
            parts[0] = t;
            rc = PMPI_Type_create_struct_c(2, bl, disp, parts, &t);
            PMPI_Type_free(&parts[0]);
        }
    }
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Type_create_resized(t, 0, span * (MPI_Aint)gsize, out);
    PMPI_Type_free(&t);
    return rc;
}

static int da_check(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                    const int *dargs, const int *psizes, int order, const char *fn)
{
    if (ndims <= 0 || !gsizes || !distribs || !dargs || !psizes)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid ndims %d or NULL array", ndims);
    if (size <= 0 || rank < 0 || rank >= size)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid rank %d of size %d", rank, size);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid order %d", order);
    long long procs = 1;
    for (int i = 0; i < ndims; i++) {
        int d = distribs[i], a = dargs[i], p = psizes[i];
        if (gsizes[i] <= 0 || p <= 0)
            return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "dimension %d: gsize %lld, psize %d",
                                 i, (long long)gsizes[i], p);
        if (d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC &&
            d != MPI_DISTRIBUTE_NONE)
            return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "dimension %d: distribution %d", i, d);
        if (a != MPI_DISTRIBUTE_DFLT_DARG && a <= 0)
            return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "dimension %d: darg %d", i, a);
        if (d == MPI_DISTRIBUTE_NONE && p != 1)
            return mpii_err_comm(NULL, MPI_ERR_ARG, fn,
                                 "dimension %d: MPI_DISTRIBUTE_NONE over %d processes", i, p);
        if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG &&
            (long long)a * p < gsizes[i])
            return mpii_err_comm(NULL, MPI_ERR_ARG, fn,
                                 "dimension %d: %d blocks of %d cannot hold %lld elements", i,
                                 p, a, (long long)gsizes[i]);
        procs *= p;
        if (procs > size)
            break;
    }
    if (procs != size)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn,
                             "the process grid does not have size %d processes", size);
    return MPI_SUCCESS;
}

/* An allocation failure (rc MPI_ERR_NO_MEM) of fn, reported (also WIDEN's helper). */
static int da_err(int rc, const char *fn)
{
    return mpii_err_comm(NULL, rc, fn, "out of memory");
}

static int da_create(int size, int rank, int ndims, const MPI_Count *gsizes,
                     const int *distribs, const int *dargs, const int *psizes, int order,
                     MPI_Datatype oldtype, MPI_Datatype *newtype, const char *fn)
{
    mpii_check_init(fn);
    int rc = da_check(size, rank, ndims, gsizes, distribs, dargs, psizes, order, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    mpii_dtype_t *old = mpii_dtype(oldtype);
    if (!old)
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype handle %p",
                             (void *)oldtype);
    if (!newtype)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
    int *coords = malloc((size_t)ndims * sizeof(int));
    if (!coords)
        return da_err(MPI_ERR_NO_MEM, fn);
    /* Grid coordinates, row-major whatever the array order. */
    for (int i = 0, r = rank, procs = size; i < ndims; i++) {
        procs /= psizes[i];
        coords[i] = r / procs;
        r %= procs;
    }
    MPI_Datatype t = oldtype, u;
    MPI_Aint span = old->extent, disp = 0;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int i = order == MPI_ORDER_C ? ndims - 1 - k : k;
        MPI_Count start;
        rc = da_dim(gsizes[i], distribs[i], dargs[i], psizes[i], coords[i], span, t, &u,
                    &start);
        if (t != oldtype)
            PMPI_Type_free(&t);
        t = u;
        disp += (MPI_Aint)start * span;
        span *= (MPI_Aint)gsizes[i];
    }
    free(coords);
    if (rc == MPI_SUCCESS) {
        MPI_Count one = 1, d1 = disp;
        rc = PMPI_Type_create_hindexed_c(1, &one, &d1, t, &u);
        PMPI_Type_free(&t);
        if (rc == MPI_SUCCESS) {
            rc = PMPI_Type_create_resized(u, 0, span, &t);
            PMPI_Type_free(&u);
        }
    }
    if (rc != MPI_SUCCESS)
        return rc; /* reported by the constructor that failed */
    mpii_dtype_t *d = mpii_dtype(t);
    d->combiner = MPI_COMBINER_DARRAY;
    mpii_dtype_env_free(d);
    mpii_dtype_env_darray(d, fn, size, rank, ndims, gsizes, distribs, dargs, psizes, order,
                          oldtype);
    *newtype = t;
    return MPI_SUCCESS;
}

MPII_TWINS(Type_create_darray, da_create(size, rank, ndims, WIDEN(array_of_gsizes, ndims, da_err),
           array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "dtype_darray.twins.h"
