/* SPDX-License-Identifier: BSD-3-Clause */
/* What a derived datatype was built from: MPI_Type_get_envelope / get_contents (and _c).
 * Each constructor (dtype_create.c) records its arguments here in the layout of the
 * classic binding (MPI-4.1 table 5.1: integers, then addresses, then datatypes); a type
 * made by a large-count constructor (`_c`) is reported by the _c forms only, with its
 * counts and displacements as large counts. The datatypes handed out are references
 * the caller frees (MPI_Type_free), as in every MPI. */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

struct mpii_dtype_env {
    int large;            /* built by a _c constructor */
    int ni, na, nt;
    MPI_Count *ints;      /* the classic binding's integers */
    MPI_Aint *addrs;
    MPI_Datatype *types;  /* referenced while the type lives */
};

void mpii_dtype_env_free(mpii_dtype_t *d)
{
    mpii_dtype_env_t *e = d->env;
    if (!e)
        return;
    for (int i = 0; i < e->nt; i++) {
        mpii_dtype_t *t = mpii_dtype(e->types[i]);
        if (t)
            mpii_dtype_release(t);
    }
    free(e->ints);
    free(e->addrs);
    free(e->types);
    free(e);
    d->env = NULL;
}

/* An empty record of d with room for ni, na and nt entries; NULL when out of memory
 * (then the type works, and its contents are reported as unknown). */
static mpii_dtype_env_t *env_new(mpii_dtype_t *d, const char *fn, MPI_Count ni, MPI_Count na,
                                 MPI_Count nt)
{
    size_t n = strlen(fn);
    mpii_dtype_env_t *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->large = n > 2 && strcmp(fn + n - 2, "_c") == 0;
    e->ints = malloc((size_t)(ni + 1) * sizeof(*e->ints));
    e->addrs = malloc((size_t)(na + 1) * sizeof(*e->addrs));
    e->types = malloc((size_t)(nt + 1) * sizeof(*e->types));
    if (!e->ints || !e->addrs || !e->types || ni > INT32_MAX || na > INT32_MAX ||
        nt > INT32_MAX) {
        free(e->ints);
        free(e->addrs);
        free(e->types);
        free(e);
        return NULL;
    }
    d->env = e;
    return e;
}

static void env_type(mpii_dtype_env_t *e, MPI_Datatype h)
{
    mpii_dtype_t *t = mpii_dtype(h);
    if (t)
        mpii_dtype_retain(t);
    e->types[e->nt++] = h;
}

void mpii_dtype_env_simple(mpii_dtype_t *d, const char *fn, int ni, const MPI_Count *ints,
                           int na, const MPI_Aint *addrs, MPI_Datatype old)
{
    mpii_dtype_env_t *e = env_new(d, fn, ni, na, 1);
    if (!e)
        return;
    for (int i = 0; i < ni; i++)
        e->ints[e->ni++] = ints[i];
    for (int i = 0; i < na; i++)
        e->addrs[e->na++] = addrs[i];
    env_type(e, old);
}

void mpii_dtype_env_index(mpii_dtype_t *d, const char *fn, MPI_Count count,
                          const MPI_Count *bl, MPI_Count bl1, const MPI_Aint *disp,
                          MPI_Datatype old, const MPI_Datatype *types)
{
    int c = d->combiner, in_addrs = c != MPI_COMBINER_INDEXED &&
                                     c != MPI_COMBINER_INDEXED_BLOCK;
    mpii_dtype_env_t *e = env_new(d, fn, 2 * count + 2, count, types ? count : 1);
    if (!e)
        return;
    e->ints[e->ni++] = count;
    if (c == MPI_COMBINER_INDEXED_BLOCK || c == MPI_COMBINER_HINDEXED_BLOCK)
        e->ints[e->ni++] = bl1;
    else if (bl) /* NULL with count 0 */
        for (MPI_Count k = 0; k < count; k++)
            e->ints[e->ni++] = bl[k];
    for (MPI_Count k = 0; k < count; k++) {
        if (in_addrs)
            e->addrs[e->na++] = disp[k];
        else
            e->ints[e->ni++] = (MPI_Count)disp[k];
    }
    if (types)
        for (MPI_Count k = 0; k < count; k++)
            env_type(e, types[k]);
    else
        env_type(e, old);
}

void mpii_dtype_env_subarray(mpii_dtype_t *d, const char *fn, int ndims, const MPI_Count *sizes,
                             const MPI_Count *subsizes, const MPI_Count *starts, int order,
                             MPI_Datatype old)
{
    mpii_dtype_env_t *e = env_new(d, fn, 3 * (MPI_Count)ndims + 2, 0, 1);
    if (!e)
        return;
    e->ints[e->ni++] = ndims;
    const MPI_Count *arrays[3] = {sizes, subsizes, starts};
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < ndims; i++)
            e->ints[e->ni++] = arrays[a][i];
    e->ints[e->ni++] = order;
    env_type(e, old);
}

void mpii_dtype_env_ints(mpii_dtype_t *d, const char *fn, int ni, const MPI_Count *ints)
{
    mpii_dtype_env_t *e = env_new(d, fn, ni, 0, 0);
    if (!e)
        return;
    for (int i = 0; i < ni; i++)
        e->ints[e->ni++] = ints[i];
}

void mpii_dtype_env_darray(mpii_dtype_t *d, const char *fn, int size, int rank, int ndims,
                           const MPI_Count *gsizes, const int *distribs, const int *dargs,
                           const int *psizes, int order, MPI_Datatype old)
{
    mpii_dtype_env_t *e = env_new(d, fn, 4 * (MPI_Count)ndims + 4, 0, 1);
    if (!e)
        return;
    e->ints[e->ni++] = size;
    e->ints[e->ni++] = rank;
    e->ints[e->ni++] = ndims;
    for (int i = 0; i < ndims; i++)
        e->ints[e->ni++] = gsizes[i];
    const int *arrays[3] = {distribs, dargs, psizes};
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < ndims; i++)
            e->ints[e->ni++] = arrays[a][i];
    e->ints[e->ni++] = order;
    env_type(e, old);
}

/* ---- the queries ---- */

/* The record of a derived type, or NULL with the error reported in *err. */
static const mpii_dtype_env_t *env_of(MPI_Datatype h, const mpii_dtype_t **dp, const char *fn,
                                      int *err)
{
    mpii_check_init(fn);
    const mpii_dtype_t *d = *dp = mpii_dtype(h);
    *err = MPI_SUCCESS;
    if (!d)
        *err = mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype handle %p", (void *)h);
    else if (!d->predefined && !d->env)
        *err = mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn,
                             "the type's arguments were not recorded (out of memory)");
    return d ? d->env : NULL; /* a named type has none, an f90 type its (p, r) */
}

/* How a large-count record splits: whether integer i stays an integer (a subarray's ndims
 * and order; a darray's all but its global sizes) or is reported as a large count, as
 * every address is. */
static int env_int_stays(const mpii_dtype_t *d, const mpii_dtype_env_t *e, int i)
{
    if (d->combiner == MPI_COMBINER_SUBARRAY)
        return i == 0 || i == e->ni - 1;
    if (d->combiner == MPI_COMBINER_DARRAY)
        return !(i >= 3 && i < 3 + (int)e->ints[2]);
    return 0;
}

static int env_large_ints(const mpii_dtype_t *d, const mpii_dtype_env_t *e)
{
    int n = 0;
    for (int i = 0; i < e->ni; i++)
        n += env_int_stays(d, e, i);
    return n;
}

/* The counts of the record (nc NULL: the int form, which refuses a large-count record). */
static int env_envelope(MPI_Datatype datatype, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                        MPI_Count *nd, int *combiner, int large_form, const char *fn)
{
    const mpii_dtype_t *d;
    int err;
    const mpii_dtype_env_t *e = env_of(datatype, &d, fn, &err);
    if (err != MPI_SUCCESS)
        return err;
    if (!ni || !na || (large_form && !nc) || !nd || !combiner)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL output argument");
    if (e && e->large && !large_form)
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn,
                             "the type was built with large counts: MPI_Type_get_envelope_c");
    int keep = !e ? 0 : e->large ? env_large_ints(d, e) : e->ni;
    *ni = keep;
    *na = e && !e->large ? e->na : 0;
    if (nc)
        *nc = e && e->large ? (e->ni - keep) + e->na : 0;
    *nd = e ? e->nt : 0;
    *combiner = e ? d->combiner : MPI_COMBINER_NAMED; /* e NULL: a named type */
    return MPI_SUCCESS;
}

/* The counts fit an int: env_new refuses a record of more. */
MPII_TWINS(Type_get_envelope, env_envelope(datatype, NARROW(num_integers, (int)),
           NARROW(num_addresses, (int)), TWIN(NULL, num_large_counts),
           NARROW(num_datatypes, (int)), combiner, TWIN(0, 1), FN))

/* Copy the record out: integers (as int), large counts, addresses, datatypes. */
static int env_contents(MPI_Datatype datatype, MPI_Count max_i, MPI_Count max_a,
                        MPI_Count max_c, MPI_Count max_d, int ints[], MPI_Aint addrs[],
                        MPI_Count larges[], MPI_Datatype types[], int large_form,
                        const char *fn)
{
    const mpii_dtype_t *d;
    int err;
    const mpii_dtype_env_t *e = env_of(datatype, &d, fn, &err);
    if (err != MPI_SUCCESS)
        return err;
    if (!e)
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "a named datatype has no contents");
    if (e->large && !large_form)
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn,
                             "the type was built with large counts: MPI_Type_get_contents_c");
    int keep = e->large ? env_large_ints(d, e) : e->ni;
    MPI_Count nc = e->large ? (e->ni - keep) + e->na : 0, na = e->large ? 0 : e->na;
    if (max_i < keep || max_a < na || max_c < nc || max_d < e->nt)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn,
                             "arrays too small: need %d integers, %lld addresses, %lld large "
                             "counts, %d datatypes (MPI_Type_get_envelope)",
                             keep, (long long)na, (long long)nc, e->nt);
    if ((keep && !ints) || (na && !addrs) || (nc && !larges) || (e->nt && !types))
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL array argument");
    if (e->large) {
        MPI_Count k = 0;
        int j = 0;
        for (int i = 0; i < e->ni; i++) {
            if (env_int_stays(d, e, i))
                ints[j++] = (int)e->ints[i];
            else
                larges[k++] = e->ints[i];
        }
        for (int i = 0; i < e->na; i++)
            larges[k++] = e->addrs[i];
    } else {
        for (int i = 0; i < e->ni; i++)
            ints[i] = (int)e->ints[i];
        for (int i = 0; i < e->na; i++)
            addrs[i] = e->addrs[i];
    }
    for (int i = 0; i < e->nt; i++) {
        mpii_dtype_t *t = mpii_dtype(e->types[i]);
        if (t)
            mpii_dtype_retain(t);
        types[i] = e->types[i];
    }
    return MPI_SUCCESS;
}

MPII_TWINS(Type_get_contents, env_contents(datatype, max_integers, max_addresses,
           TWIN(0, max_large_counts), max_datatypes, array_of_integers, array_of_addresses,
           TWIN(NULL, array_of_large_counts), array_of_datatypes, TWIN(0, 1), FN))

/* The sized Fortran type of a typeclass and a size in bytes (INTEGERn, REALn, COMPLEXn,
 * LOGICALn, as MPICH and Open MPI answer), or, when the application said its Fortran
 * compiler lacks it (MPI_Abi_set_fortran_info), the C type of that size. */
static MPI_Datatype match_size(int typeclass, int size)
{
    MPI_Datatype f = MPI_DATATYPE_NULL, c = MPI_DATATYPE_NULL;
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
        f = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 : size == 4 ? MPI_INTEGER4
            : size == 8 ? MPI_INTEGER8 : size == 16 ? MPI_INTEGER16 : MPI_DATATYPE_NULL;
        c = size == 1 ? MPI_INT8_T : size == 2 ? MPI_INT16_T : size == 4 ? MPI_INT32_T
            : size == 8 ? MPI_INT64_T : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_REAL:
        f = size == 2 ? MPI_REAL2 : size == 4 ? MPI_REAL4 : size == 8 ? MPI_REAL8
            : size == 16 ? MPI_REAL16 : MPI_DATATYPE_NULL;
        c = size == (int)sizeof(float) ? MPI_FLOAT : size == (int)sizeof(double) ? MPI_DOUBLE
            : size == (int)sizeof(long double) ? MPI_LONG_DOUBLE : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_COMPLEX:
        f = size == 4 ? MPI_COMPLEX4 : size == 8 ? MPI_COMPLEX8 : size == 16 ? MPI_COMPLEX16
            : size == 32 ? MPI_COMPLEX32 : MPI_DATATYPE_NULL;
        c = size == 2 * (int)sizeof(float) ? MPI_C_FLOAT_COMPLEX
            : size == 2 * (int)sizeof(double) ? MPI_C_DOUBLE_COMPLEX
            : size == 2 * (int)sizeof(long double) ? MPI_C_LONG_DOUBLE_COMPLEX
                                                   : MPI_DATATYPE_NULL;
        break;
    case MPIX_TYPECLASS_LOGICAL:
        f = size == 1 ? MPI_LOGICAL1 : size == 2 ? MPI_LOGICAL2 : size == 4 ? MPI_LOGICAL4
            : size == 8 ? MPI_LOGICAL8 : size == 16 ? MPI_LOGICAL16 : MPI_DATATYPE_NULL;
        break;
    default: break;
    }
    return f != MPI_DATATYPE_NULL && mpii_dtype(f) ? f : c;
}

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_match_size";
    mpii_check_init(fn);
    if (!datatype)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "datatype is NULL");
    MPI_Datatype t = match_size(typeclass, size);
    if (t == MPI_DATATYPE_NULL)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "no predefined type of class %d and size %d",
                             typeclass, size);
    *datatype = t;
    return MPI_SUCCESS;
}
MPII_WEAK(Type_match_size)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "dtype_env.twins.h"
