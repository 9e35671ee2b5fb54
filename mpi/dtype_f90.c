/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Type_create_f90_integer / _real / _complex: the sized Fortran type of the kind
 * SELECTED_INT_KIND(r) / SELECTED_REAL_KIND(p, r) would give (IEEE single, double and
 * quad; integers of 1 to 16 bytes), as a predefined-like type that remembers (p, r) for
 * MPI_Type_get_envelope / get_contents (combiner MPI_COMBINER_F90_*, no datatypes).
 * One object per distinct (combiner, p, r), kept for the run: asking twice gives the
 * same handle, and the handle cannot be freed (MPI-4.1 section 19.1.9).
 * MPI_Type_get_value_index: the predefined pair type of a value and an index type. */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

typedef struct f90_type {
    mpii_dtype_t d; /* first: the handle is its address */
    struct f90_type *next;
    int combiner, p, r;
} f90_type_t;

static f90_type_t *f90_list;

/* The sized type of a precision and range (MPI_UNDEFINED: any), or NULL. */
static MPI_Datatype f90_pick(int combiner, int p, int r)
{
    static const struct {
        int p, r; /* what the kind holds: decimal precision, decimal exponent range */
        MPI_Datatype real, cplx;
    } reals[] = {
        {6, 37, MPI_REAL4, MPI_COMPLEX8},
        {15, 307, MPI_REAL8, MPI_COMPLEX16},
        {33, 4931, MPI_REAL16, MPI_COMPLEX32},
    };
    static const struct {
        int r;
        MPI_Datatype t;
    } ints[] = {
        {2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8},
        {38, MPI_INTEGER16},
    };
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
            if (r <= ints[i].r && mpii_dtype(ints[i].t))
                return ints[i].t;
        return MPI_DATATYPE_NULL;
    }
    for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
        MPI_Datatype t = combiner == MPI_COMBINER_F90_REAL ? reals[i].real : reals[i].cplx;
        if ((p == MPI_UNDEFINED || p <= reals[i].p) && (r == MPI_UNDEFINED || r <= reals[i].r) &&
            mpii_dtype(t))
            return t;
    }
    return MPI_DATATYPE_NULL;
}

static int f90_create(int combiner, int p, int r, MPI_Datatype *newtype, const char *fn)
{
    mpii_check_init(fn);
    if (!newtype)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
    int is_int = combiner == MPI_COMBINER_F90_INTEGER;
    if ((is_int && r < 0) || (!is_int && p == MPI_UNDEFINED && r == MPI_UNDEFINED) ||
        (!is_int && ((p < 0 && p != MPI_UNDEFINED) || (r < 0 && r != MPI_UNDEFINED))))
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid precision %d or range %d", p, r);
    MPI_Datatype base = f90_pick(combiner, p, r);
    if (base == MPI_DATATYPE_NULL)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn,
                             "no %s type has precision %d and range %d",
                             is_int ? "integer" : combiner == MPI_COMBINER_F90_REAL ? "real"
                                                                                 : "complex",
                             p, r);
    MPII_LOCK();
    f90_type_t *t = f90_list;
    while (t && !(t->combiner == combiner && t->p == p && t->r == r))
        t = t->next;
    int rc = MPI_SUCCESS;
    if (!t && (t = calloc(1, sizeof(*t)))) {
        const mpii_dtype_t *b = mpii_dtype(base);
        t->d = *b;
        t->d.combiner = combiner;
        t->combiner = combiner;
        t->p = p;
        t->r = r;
        MPI_Count ints[2] = {is_int ? r : p, r};
        mpii_dtype_env_ints(&t->d, fn, is_int ? 1 : 2, ints);
        t->next = f90_list;
        f90_list = t;
    } else if (!t) {
        rc = MPI_ERR_NO_MEM;
    }
    MPII_UNLOCK();
    if (rc != MPI_SUCCESS)
        return mpii_err_comm(NULL, rc, fn, "out of memory");
    *newtype = (MPI_Datatype)&t->d;
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    return f90_create(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, newtype,
                      "MPI_Type_create_f90_integer");
}
MPII_WEAK(Type_create_f90_integer)

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_create(MPI_COMBINER_F90_REAL, p, r, newtype, "MPI_Type_create_f90_real");
}
MPII_WEAK(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_create(MPI_COMBINER_F90_COMPLEX, p, r, newtype, "MPI_Type_create_f90_complex");
}
MPII_WEAK(Type_create_f90_complex)

int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    static const MPI_Datatype pairs[][3] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},
        {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_REAL, MPI_REAL, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
    };
    const char *fn = "MPI_Type_get_value_index";
    mpii_check_init(fn);
    if (!mpii_dtype(value_type) || !mpii_dtype(index_type))
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (!pair_type)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "pair_type is NULL");
    /* No predefined pair of these two: MPI_DATATYPE_NULL, not an error. */
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if (pairs[i][0] == value_type && pairs[i][1] == index_type)
            *pair_type = pairs[i][2];
    return MPI_SUCCESS;
}
MPII_WEAK(Type_get_value_index)
