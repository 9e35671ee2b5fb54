/* SPDX-License-Identifier: BSD-3-Clause */
/* Datatype objects: the predefined types, handle lookup, lifetime (commit,
 * dup, free) and the queries (size, extent, name). Constructors are in
 * dtype_create.c, packing in pack.c. */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

mpii_dtype_t *mpii_dtype_predef[MPII_DTYPE_SLOTS];
mpii_pool_t mpii_dtype_pool = MPII_POOL_INIT(mpii_dtype_t);

typedef struct dtype_spec {
    MPI_Datatype h;
    const char *name;
    size_t size;
    int align;
    int basic;
    int rmp;
} dtype_spec_t;

#define B(h, type, basic, rmp) {h, #h, sizeof(type), _Alignof(type), basic, rmp}
/* A handle with a synonym is named by the standard's first name (MPICH and Open MPI too). */
#define BN(h, name, type, basic, rmp) {h, name, sizeof(type), _Alignof(type), basic, rmp}

static const dtype_spec_t dtype_basic_specs[] = {
    B(MPI_CHAR, char, MPII_B_CHAR, -1),
    B(MPI_SIGNED_CHAR, signed char, MPII_B_INT8, RMP_INT8),
    B(MPI_UNSIGNED_CHAR, unsigned char, MPII_B_UINT8, RMP_UINT8),
    B(MPI_BYTE, unsigned char, MPII_B_BYTE, -1),
    B(MPI_PACKED, unsigned char, MPII_B_PACKED, -1),
    B(MPI_WCHAR, wchar_t, MPII_B_NONE, -1),
    B(MPI_SHORT, short, MPII_B_INT16, RMP_INT16),
    B(MPI_UNSIGNED_SHORT, unsigned short, MPII_B_UINT16, RMP_UINT16),
    B(MPI_INT, int, MPII_B_INT32, RMP_INT32),
    B(MPI_UNSIGNED, unsigned, MPII_B_UINT32, RMP_UINT32),
    B(MPI_LONG, long, MPII_B_INT64, RMP_INT64),
    B(MPI_UNSIGNED_LONG, unsigned long, MPII_B_UINT64, RMP_UINT64),
    BN(MPI_LONG_LONG, "MPI_LONG_LONG_INT", long long, MPII_B_INT64, RMP_INT64),
    B(MPI_UNSIGNED_LONG_LONG, unsigned long long, MPII_B_UINT64, RMP_UINT64),
    B(MPI_FLOAT, float, MPII_B_FLOAT, RMP_FLOAT),
    B(MPI_DOUBLE, double, MPII_B_DOUBLE, RMP_DOUBLE),
    B(MPI_LONG_DOUBLE, long double, MPII_B_LONG_DOUBLE, -1),
    B(MPI_INT8_T, int8_t, MPII_B_INT8, RMP_INT8),
    B(MPI_UINT8_T, uint8_t, MPII_B_UINT8, RMP_UINT8),
    B(MPI_INT16_T, int16_t, MPII_B_INT16, RMP_INT16),
    B(MPI_UINT16_T, uint16_t, MPII_B_UINT16, RMP_UINT16),
    B(MPI_INT32_T, int32_t, MPII_B_INT32, RMP_INT32),
    B(MPI_UINT32_T, uint32_t, MPII_B_UINT32, RMP_UINT32),
    B(MPI_INT64_T, int64_t, MPII_B_INT64, RMP_INT64),
    B(MPI_UINT64_T, uint64_t, MPII_B_UINT64, RMP_UINT64),
    B(MPI_AINT, MPI_Aint, MPII_B_INT64, RMP_INT64),
    B(MPI_COUNT, MPI_Count, MPII_B_INT64, RMP_INT64),
    B(MPI_OFFSET, MPI_Offset, MPII_B_INT64, RMP_INT64),
    B(MPI_C_BOOL, _Bool, MPII_B_BOOL, -1),
    B(MPI_CXX_BOOL, _Bool, MPII_B_BOOL, -1),
    BN(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", float _Complex, MPII_B_FLOAT_COMPLEX, -1),
    B(MPI_CXX_FLOAT_COMPLEX, float _Complex, MPII_B_FLOAT_COMPLEX, -1),
    B(MPI_C_DOUBLE_COMPLEX, double _Complex, MPII_B_DOUBLE_COMPLEX, -1),
    B(MPI_CXX_DOUBLE_COMPLEX, double _Complex, MPII_B_DOUBLE_COMPLEX, -1),
    B(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, MPII_B_LONG_DOUBLE_COMPLEX, -1),
    B(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, MPII_B_LONG_DOUBLE_COMPLEX, -1),
};
#undef B
#undef BN

/* The pair types are the C structs {value; int}; 2INT has no gap. The Fortran
 * types are in dtype_fortran.c (their sizes are the Fortran compiler's). */
struct pair_float_int { float v; int i; };
struct pair_double_int { double v; int i; };
struct pair_long_int { long v; int i; };
struct pair_short_int { short v; int i; };
struct pair_ldouble_int { long double v; int i; };

typedef struct dtype_pair_spec {
    MPI_Datatype h;
    const char *name;
    size_t vsize;  /* value */
    size_t ioff;   /* offset of the index */
    size_t isize;  /* index */
    size_t extent; /* sizeof the struct */
    int align;
    int basic;
} dtype_pair_spec_t;

#define P(h, st, vt, it, basic)                                                           \
    {h, #h, sizeof(vt), offsetof(st, i), sizeof(it), sizeof(st), _Alignof(st), basic}

struct pair_int_int { int v; int i; };

static const dtype_pair_spec_t dtype_pair_specs[] = {
    P(MPI_FLOAT_INT, struct pair_float_int, float, int, MPII_B_FLOAT_INT),
    P(MPI_DOUBLE_INT, struct pair_double_int, double, int, MPII_B_DOUBLE_INT),
    P(MPI_LONG_INT, struct pair_long_int, long, int, MPII_B_LONG_INT),
    P(MPI_2INT, struct pair_int_int, int, int, MPII_B_2INT),
    P(MPI_SHORT_INT, struct pair_short_int, short, int, MPII_B_SHORT_INT),
    P(MPI_LONG_DOUBLE_INT, struct pair_ldouble_int, long double, int, MPII_B_LONG_DOUBLE_INT),
};
#undef P

#define NBASIC (sizeof(dtype_basic_specs) / sizeof(dtype_basic_specs[0]))
#define NPAIR (sizeof(dtype_pair_specs) / sizeof(dtype_pair_specs[0]))

static mpii_dtype_t dtype_objs[NBASIC + NPAIR];
static mpii_dl_t dtype_dls[NBASIC + NPAIR];
/* Pairs: the two runs, as an indexed node of 2 blocks of 1. */
static mpii_dl_t pair_runs[NPAIR][2];
static const mpii_dl_t *pair_child[NPAIR][2];
static MPI_Count pair_bl[NPAIR][2];
static MPI_Aint pair_disp[NPAIR][2];
static size_t pair_psum[NPAIR][3];

void mpii_dtype_run(mpii_dl_t *r, MPI_Aint off, size_t len, size_t esize, MPI_Aint extent)
{
    r->kind = MPII_DL_RUN;
    r->size = len;
    r->extent = extent;
    r->nbasic = esize ? (MPI_Count)(len / esize) : 1;
    r->u.run.off = off;
    r->u.run.len = len;
    r->u.run.esize = esize;
}

void mpii_dtype_predef_obj(mpii_dtype_t *d, MPI_Datatype h, const char *name, size_t size,
                             MPI_Aint extent, int align, int basic, int rmp, const mpii_dl_t *dl)
{
    memset(d, 0, sizeof(*d));
    d->magic = MPII_MAGIC_DTYPE;
    d->refs = 1;
    d->committed = 1;
    d->predefined = 1;
    d->contig = (MPI_Aint)size == extent && dl->kind == MPII_DL_RUN;
    d->basic = basic;
    d->rmp = rmp;
    d->align = align;
    d->size = size;
    d->lb = 0;
    d->extent = extent;
    d->true_lb = 0;
    d->true_extent = extent;
    d->dl = dl;
    d->combiner = MPI_COMBINER_NAMED;
    snprintf(d->name, sizeof(d->name), "%s", name);
    uintptr_t v = (uintptr_t)h;
    if (v >= MPII_DTYPE_BASE && v < MPII_DTYPE_BASE + MPII_DTYPE_SLOTS)
        mpii_dtype_predef[v - MPII_DTYPE_BASE] = d;
}

void mpii_dtype_init(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    size_t k = 0;
    for (size_t i = 0; i < NBASIC; i++, k++) {
        const dtype_spec_t *s = &dtype_basic_specs[i];
        mpii_dtype_run(&dtype_dls[k], 0, s->size, s->size, (MPI_Aint)s->size);
        dtype_dls[k].u.run.xconv = s->h == MPI_LONG            ? MPII_X_LONG
                                   : s->h == MPI_UNSIGNED_LONG ? MPII_X_ULONG
                                   : s->h == MPI_WCHAR         ? MPII_X_WCHAR
                                                               : mpii_dtype_xconv(s->basic);
        mpii_dtype_predef_obj(&dtype_objs[k], s->h, s->name, s->size, (MPI_Aint)s->size, s->align,
                         s->basic, s->rmp, &dtype_dls[k]);
    }
    for (size_t i = 0; i < NPAIR; i++, k++) {
        const dtype_pair_spec_t *s = &dtype_pair_specs[i];
        mpii_dl_t *dl = &dtype_dls[k];
        size_t size = s->vsize + s->isize;
        if (s->ioff == s->vsize && s->vsize == s->isize) {
            /* No gap, one element size: a plain run. */
            mpii_dtype_run(dl, 0, size, s->vsize, (MPI_Aint)s->extent);
            dl->nbasic = 2;
        } else {
            mpii_dtype_run(&pair_runs[i][0], 0, s->vsize, s->vsize, (MPI_Aint)s->vsize);
            pair_runs[i][0].u.run.xconv = s->basic == MPII_B_LONG_DOUBLE_INT ? MPII_X_LDBL
                                          : s->basic == MPII_B_LONG_INT      ? MPII_X_LONG
                                                                             : MPII_X_SWAP;
            mpii_dtype_run(&pair_runs[i][1], 0, s->isize, s->isize, (MPI_Aint)s->isize);
            pair_child[i][0] = &pair_runs[i][0];
            pair_child[i][1] = &pair_runs[i][1];
            pair_bl[i][0] = pair_bl[i][1] = 1;
            pair_disp[i][0] = 0;
            pair_disp[i][1] = (MPI_Aint)s->ioff;
            pair_psum[i][0] = 0;
            pair_psum[i][1] = s->vsize;
            pair_psum[i][2] = size;
            dl->kind = MPII_DL_IDX;
            dl->size = size;
            dl->extent = (MPI_Aint)s->extent;
            dl->nbasic = 2;
            dl->u.idx.n = 2;
            dl->u.idx.blocklen = pair_bl[i];
            dl->u.idx.disp = pair_disp[i];
            dl->u.idx.child = pair_child[i];
            dl->u.idx.psum = pair_psum[i];
        }
        mpii_dtype_predef_obj(&dtype_objs[k], s->h, s->name, size, (MPI_Aint)s->extent, s->align,
                         s->basic, -1, dl);
        dtype_objs[k].true_extent = (MPI_Aint)(s->ioff + s->isize);
    }
    mpii_dtype_fortran_init();
}

int mpii_dtype_xconv(int basic)
{
    switch (basic) {
    case MPII_B_FLOAT_COMPLEX: case MPII_B_DOUBLE_COMPLEX: case MPII_B_COMPLEX_HALF:
    case MPII_B_COMPLEX128:
        return MPII_X_CPLX;
    case MPII_B_LONG_DOUBLE: case MPII_B_LONG_DOUBLE_COMPLEX:
        return MPII_X_LDBL;
    default:
        return MPII_X_SWAP;
    }
}

size_t mpii_basic_size(int basic)
{
    switch (basic) {
    case MPII_B_INT8: case MPII_B_UINT8: case MPII_B_BOOL: case MPII_B_CHAR: case MPII_B_BYTE:
    case MPII_B_PACKED:
        return 1;
    case MPII_B_INT16: case MPII_B_UINT16: case MPII_B_FLOAT16: case MPII_B_FLOG2:
        return 2;
    case MPII_B_FLOG1:
        return 1;
    case MPII_B_COMPLEX_HALF: case MPII_B_FLOG4:
        return 4;
    case MPII_B_FLOG8: case MPII_B_2FLOAT:
        return 8;
    case MPII_B_INT128: case MPII_B_FLOAT128: case MPII_B_FLOG16: case MPII_B_2DOUBLE:
    case MPII_B_2INT64:
        return 16;
    case MPII_B_COMPLEX128:
        return 32;
    case MPII_B_INT32: case MPII_B_UINT32: case MPII_B_FLOAT:
        return 4;
    case MPII_B_INT64: case MPII_B_UINT64: case MPII_B_DOUBLE: case MPII_B_FLOAT_COMPLEX:
        return 8;
    case MPII_B_LONG_DOUBLE:
        return sizeof(long double);
    case MPII_B_DOUBLE_COMPLEX:
        return sizeof(double _Complex);
    case MPII_B_LONG_DOUBLE_COMPLEX:
        return sizeof(long double _Complex);
    case MPII_B_FLOAT_INT:
        return sizeof(struct pair_float_int);
    case MPII_B_DOUBLE_INT:
        return sizeof(struct pair_double_int);
    case MPII_B_LONG_INT:
        return sizeof(struct pair_long_int);
    case MPII_B_2INT:
        return sizeof(struct pair_int_int);
    case MPII_B_SHORT_INT:
        return sizeof(struct pair_short_int);
    case MPII_B_LONG_DOUBLE_INT:
        return sizeof(struct pair_ldouble_int);
    default:
        return 0;
    }
}

MPI_Datatype mpii_dtype_handle(const mpii_dtype_t *d)
{
    if (d->predefined)
        for (size_t i = 0; i < MPII_DTYPE_SLOTS; i++)
            if (mpii_dtype_predef[i] == d)
                return (MPI_Datatype)(uintptr_t)(MPII_DTYPE_BASE + i);
    return (MPI_Datatype)(uintptr_t)d;
}

static void dtype_destroy(mpii_dtype_t *d)
{
    (void)mpii_type_attr_delete_all(d, "MPI_Type_free"); /* a failing callback: reported */
    mpii_dtype_env_free(d);
    for (int i = 0; i < d->ntypes; i++)
        mpii_dtype_release(d->types[i]);
    free(d->own_arrays);
    free(d->own);
    free(d->types);
    mpii_obj_free(&mpii_dtype_pool, d);
}

void mpii_dtype_retain(mpii_dtype_t *d)
{
    if (d->predefined)
        return;
    MPII_LOCK();
    d->refs++;
    MPII_UNLOCK();
}

void mpii_dtype_release(mpii_dtype_t *d)
{
    if (d->predefined)
        return;
    MPII_LOCK();
    int last = --d->refs == 0;
    MPII_UNLOCK();
    if (last)
        dtype_destroy(d);
}

/* ---- lifetime ---- */

static mpii_dtype_t *dtype_arg(MPI_Datatype h, const char *fn, int *rc)
{
    mpii_dtype_t *d = mpii_dtype(h);
    *rc = d ? MPI_SUCCESS
            : mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype handle %p", (void *)h);
    return d;
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    int rc;
    mpii_dtype_t *d = dtype_arg(datatype ? *datatype : MPI_DATATYPE_NULL, "MPI_Type_commit", &rc);
    if (d)
        d->committed = 1;
    return rc;
}
MPII_WEAK(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    int rc;
    mpii_dtype_t *d = dtype_arg(datatype ? *datatype : MPI_DATATYPE_NULL, "MPI_Type_free", &rc);
    if (!d)
        return rc;
    if (d->predefined)
        return mpii_err_comm(NULL, MPI_ERR_TYPE, "MPI_Type_free",
                             "%s is predefined and cannot be freed", d->name);
    mpii_dtype_release(d);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Type_free)

/* ---- queries ---- */

static int dtype_size(MPI_Datatype datatype, MPI_Count *size, const char *fn)
{
    int rc;
    mpii_dtype_t *d = dtype_arg(datatype, fn, &rc);
    if (!d)
        return rc;
    if (!size)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "size is NULL");
    *size = (MPI_Count)d->size;
    return MPI_SUCCESS;
}

MPII_TWINS(Type_size, dtype_size(datatype, NARROW(size, mpii_int_or_undefined), FN))

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return dtype_size(datatype, size, "MPI_Type_size_x");
}
MPII_WEAK(Type_size_x)

static int dtype_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent, int truex,
                        const char *fn)
{
    int rc;
    mpii_dtype_t *d = dtype_arg(datatype, fn, &rc);
    if (!d)
        return rc;
    if (!lb || !extent)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL output argument");
    *lb = truex ? d->true_lb : d->lb;
    *extent = truex ? d->true_extent : d->extent;
    return MPI_SUCCESS;
}

MPII_TWINS(Type_get_extent, dtype_extent(datatype, TWIN(lb, (MPI_Aint *)lb), TWIN(extent,
           (MPI_Aint *)extent), 0, FN))

MPII_TWINS(Type_get_true_extent, dtype_extent(datatype, TWIN(true_lb, (MPI_Aint *)true_lb),
           TWIN(true_extent, (MPI_Aint *)true_extent), 1, FN))

/* MPI_Aint and MPI_Count are both 64-bit here. */
_Static_assert(sizeof(MPI_Aint) == sizeof(MPI_Count), "MPI_Aint and MPI_Count differ");

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return PMPI_Type_get_extent_c(datatype, lb, extent);
}
MPII_WEAK(Type_get_extent_x)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return PMPI_Type_get_true_extent_c(datatype, lb, extent);
}
MPII_WEAK(Type_get_true_extent_x)

int PMPI_Type_set_name(MPI_Datatype datatype, const char *name)
{
    int rc;
    mpii_dtype_t *d = dtype_arg(datatype, "MPI_Type_set_name", &rc);
    if (!d)
        return rc;
    if (!name)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Type_set_name", "name is NULL");
    snprintf(d->name, sizeof(d->name), "%s", name);
    return MPI_SUCCESS;
}
MPII_WEAK(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char *name, int *resultlen)
{
    int rc;
    mpii_dtype_t *d = dtype_arg(datatype, "MPI_Type_get_name", &rc);
    if (!d)
        return rc;
    if (!name || !resultlen)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Type_get_name", "NULL output argument");
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", d->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
MPII_WEAK(Type_get_name)

/* ---- addresses ---- */

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Get_address", "address is NULL");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
MPII_WEAK(Get_address)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "dtype.twins.h"
