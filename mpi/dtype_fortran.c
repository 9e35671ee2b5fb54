/* SPDX-License-Identifier: BSD-3-Clause */
/* The Fortran datatypes of the standard ABI, usable from C. No Fortran compiler is
 * involved in building rmp, so the sizes of the default kinds (INTEGER, REAL, DOUBLE
 * PRECISION, LOGICAL) and which optional types exist come from the application through
 * MPI_Abi_set_fortran_info (MPI-5.0 ABI chapter), and the values of .TRUE. and .FALSE.
 * through MPI_Abi_set_fortran_booleans; the defaults are gfortran's (4, 4, 8, 4 bytes,
 * every optional type, .TRUE. = 1). The objects are rebuilt when the sizes change: types
 * derived from a Fortran type before that keep the sizes they were built with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

/* What a Fortran type is: its class and, for the optional types, its fixed size. */
enum { F_INT, F_REAL, F_CPLX, F_LOG, F_CHAR, F_PAIR };
enum { F_DFLT_INT = -1, F_DFLT_REAL = -2, F_DFLT_DP = -3, F_DFLT_LOG = -4 };

typedef struct fort_spec {
    MPI_Datatype h;
    const char *name;
    int cls;
    int size;     /* bytes of one value (complex: both parts); < 0: a default kind */
    int twice;    /* complex of a default real kind: 2 values */
    int optional; /* reported by mpi_<name>_supported */
} fort_spec_t;

static const fort_spec_t fort_specs[] = {
    {MPI_INTEGER, "MPI_INTEGER", F_INT, F_DFLT_INT, 0, 0},
    {MPI_REAL, "MPI_REAL", F_REAL, F_DFLT_REAL, 0, 0},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", F_REAL, F_DFLT_DP, 0, 0},
    {MPI_COMPLEX, "MPI_COMPLEX", F_CPLX, F_DFLT_REAL, 1, 0},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", F_CPLX, F_DFLT_DP, 1, 0},
    {MPI_LOGICAL, "MPI_LOGICAL", F_LOG, F_DFLT_LOG, 0, 0},
    {MPI_CHARACTER, "MPI_CHARACTER", F_CHAR, 1, 0, 0},
    {MPI_2INTEGER, "MPI_2INTEGER", F_PAIR, F_DFLT_INT, 0, 0},
    {MPI_2REAL, "MPI_2REAL", F_PAIR, F_DFLT_REAL, 0, 0},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", F_PAIR, F_DFLT_DP, 0, 0},
    {MPI_INTEGER1, "MPI_INTEGER1", F_INT, 1, 0, 1},
    {MPI_INTEGER2, "MPI_INTEGER2", F_INT, 2, 0, 1},
    {MPI_INTEGER4, "MPI_INTEGER4", F_INT, 4, 0, 1},
    {MPI_INTEGER8, "MPI_INTEGER8", F_INT, 8, 0, 1},
    {MPI_INTEGER16, "MPI_INTEGER16", F_INT, 16, 0, 1},
    {MPI_REAL2, "MPI_REAL2", F_REAL, 2, 0, 1},
    {MPI_REAL4, "MPI_REAL4", F_REAL, 4, 0, 1},
    {MPI_REAL8, "MPI_REAL8", F_REAL, 8, 0, 1},
    {MPI_REAL16, "MPI_REAL16", F_REAL, 16, 0, 1},
    {MPI_COMPLEX4, "MPI_COMPLEX4", F_CPLX, 4, 0, 1},
    {MPI_COMPLEX8, "MPI_COMPLEX8", F_CPLX, 8, 0, 1},
    {MPI_COMPLEX16, "MPI_COMPLEX16", F_CPLX, 16, 0, 1},
    {MPI_COMPLEX32, "MPI_COMPLEX32", F_CPLX, 32, 0, 1},
    {MPI_LOGICAL1, "MPI_LOGICAL1", F_LOG, 1, 0, 1},
    {MPI_LOGICAL2, "MPI_LOGICAL2", F_LOG, 2, 0, 1},
    {MPI_LOGICAL4, "MPI_LOGICAL4", F_LOG, 4, 0, 1},
    {MPI_LOGICAL8, "MPI_LOGICAL8", F_LOG, 8, 0, 1},
    {MPI_LOGICAL16, "MPI_LOGICAL16", F_LOG, 16, 0, 1},
};
#define NFORT (sizeof(fort_specs) / sizeof(fort_specs[0]))

/* The configuration (MPI_Abi_set_fortran_info). */
static int fort_int = 4, fort_real = 4, fort_dp = 8, fort_log = 4;
static int fort_absent[NFORT]; /* an optional type the application said it lacks */
static int fort_built;

static mpii_dtype_t fort_objs[NFORT];
static mpii_dl_t fort_dls[NFORT];

/* .TRUE. and .FALSE. per LOGICAL size 1, 2, 4, 8, 16 (index log2). */
static unsigned char fort_true[5][16] = {{1}, {1}, {1}, {1}, {1}};
static unsigned char fort_false[5][16];
static int fort_bool_set[5];

static int fort_log2(size_t size)
{
    switch (size) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    default: return -1;
    }
}

void mpii_fortran_booleans(size_t size, const unsigned char **t, const unsigned char **f)
{
    int i = fort_log2(size);
    *t = fort_true[i < 0 ? 0 : i];
    *f = fort_false[i < 0 ? 0 : i];
}

static int fort_value_size(const fort_spec_t *s)
{
    switch (s->size) {
    case F_DFLT_INT: return fort_int;
    case F_DFLT_REAL: return fort_real;
    case F_DFLT_DP: return fort_dp;
    case F_DFLT_LOG: return fort_log;
    default: return s->size;
    }
}

/* The basic kind of a class and value size; MPII_B_NONE when no kind has that size (the
 * type still moves as bytes; reductions on it are refused). */
static int fort_basic(int cls, int size, int pair_of)
{
    static const int ints[5] = {MPII_B_INT8, MPII_B_INT16, MPII_B_INT32, MPII_B_INT64,
                                MPII_B_INT128};
    static const int reals[5] = {MPII_B_NONE, MPII_B_FLOAT16, MPII_B_FLOAT, MPII_B_DOUBLE,
                                 MPII_B_FLOAT128};
    static const int logs[5] = {MPII_B_FLOG1, MPII_B_FLOG2, MPII_B_FLOG4, MPII_B_FLOG8,
                                MPII_B_FLOG16};
    int i = fort_log2((size_t)size);
    switch (cls) {
    case F_INT: return i < 0 ? MPII_B_NONE : ints[i];
    case F_REAL: return i < 0 ? MPII_B_NONE : reals[i];
    case F_LOG: return i < 0 ? MPII_B_NONE : logs[i];
    case F_CHAR: return MPII_B_CHAR;
    case F_CPLX:
        return size == 4 ? MPII_B_COMPLEX_HALF : size == 8 ? MPII_B_FLOAT_COMPLEX
               : size == 16 ? MPII_B_DOUBLE_COMPLEX : size == 32 ? MPII_B_COMPLEX128
                                                     : MPII_B_NONE;
    default: /* pairs: 2INTEGER of 4-byte integers is the C struct of MPI_2INT */
        if (pair_of == F_INT)
            return size == 4 ? MPII_B_2INT : size == 8 ? MPII_B_2INT64 : MPII_B_NONE;
        return size == 4 ? MPII_B_2FLOAT : size == 8 ? MPII_B_2DOUBLE : MPII_B_NONE;
    }
}

static int fort_rmp(int basic)
{
    switch (basic) {
    case MPII_B_INT8: return RMP_INT8;
    case MPII_B_INT16: return RMP_INT16;
    case MPII_B_INT32: return RMP_INT32;
    case MPII_B_INT64: return RMP_INT64;
    case MPII_B_FLOAT16: return RMP_FLOAT16;
    case MPII_B_FLOAT: return RMP_FLOAT;
    case MPII_B_DOUBLE: return RMP_DOUBLE;
    default: return -1;
    }
}

void mpii_dtype_fortran_init(void)
{
    for (size_t i = 0; i < NFORT; i++) {
        const fort_spec_t *s = &fort_specs[i];
        int vs = fort_value_size(s);
        int size = s->cls == F_PAIR ? 2 * vs : s->twice ? 2 * vs : vs;
        int pair_of = s->h == MPI_2INTEGER ? F_INT : F_REAL;
        int basic = fort_basic(s->cls, s->cls == F_CPLX ? size : vs, pair_of);
        /* A complex is one element for MPI_Get_elements, a pair two. */
        size_t esize = s->cls == F_PAIR ? (size_t)vs : (size_t)size;
        mpii_dtype_run(&fort_dls[i], 0, (size_t)size, esize, size);
        fort_dls[i].u.run.xconv = s->cls == F_CPLX ? MPII_X_CPLX : MPII_X_SWAP;
        /* Aligned as one part (a complex's half, a pair's member), as the compiler would. */
        int part = s->cls == F_CPLX && !s->twice ? size / 2 : vs;
        mpii_dtype_predef_obj(&fort_objs[i], s->h, s->name, (size_t)size, size,
                              part > 16 ? 16 : part, basic, fort_rmp(basic), &fort_dls[i]);
        if (fort_absent[i])
            mpii_dtype_predef[(uintptr_t)s->h - MPII_DTYPE_BASE] = NULL;
    }
    fort_built = 1;
}

/* ---- MPI_Abi_get_fortran_info / MPI_Abi_set_fortran_info ---- */

/* "mpi_integer16_supported" for MPI_INTEGER16. */
static void fort_key(const fort_spec_t *s, char *key, size_t n)
{
    snprintf(key, n, "mpi_%s_supported", s->name + 4);
    for (char *p = key; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
}

static const struct {
    const char *key;
    int *val;
} fort_size_keys[] = {
    {"mpi_integer_size", &fort_int},
    {"mpi_real_size", &fort_real},
    {"mpi_double_precision_size", &fort_dp},
    {"mpi_logical_size", &fort_log},
};
#define NSIZEKEYS (sizeof(fort_size_keys) / sizeof(fort_size_keys[0]))

int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
    const char *fn = "MPI_Abi_get_fortran_info";
    if (!info)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "info is NULL");
    int rc = PMPI_Info_create(info);
    if (rc != MPI_SUCCESS)
        return rc;
    char key[64], val[16];
    for (size_t k = 0; k < NSIZEKEYS && rc == MPI_SUCCESS; k++) {
        snprintf(val, sizeof(val), "%d", *fort_size_keys[k].val);
        rc = PMPI_Info_set(*info, fort_size_keys[k].key, val);
    }
    for (size_t i = 0; i < NFORT && rc == MPI_SUCCESS; i++) {
        if (!fort_specs[i].optional)
            continue;
        fort_key(&fort_specs[i], key, sizeof(key));
        rc = PMPI_Info_set(*info, key, fort_absent[i] ? "false" : "true");
    }
    if (rc != MPI_SUCCESS)
        PMPI_Info_free(info);
    return rc;
}
MPII_WEAK(Abi_get_fortran_info)

/* The value of key in info: 1 found (in val), 0 absent. */
static int fort_get(MPI_Info info, const char *key, char *val, int len)
{
    int flag = 0;
    return PMPI_Info_get_string(info, key, &len, val, &flag) == MPI_SUCCESS && flag;
}

int PMPI_Abi_set_fortran_info(MPI_Info info)
{
    const char *fn = "MPI_Abi_set_fortran_info";
    if (info == MPI_INFO_NULL || !mpii_info(info))
        return mpii_err_comm(NULL, MPI_ERR_INFO, fn, "invalid info");
    int sizes[NSIZEKEYS], absent[NFORT];
    char val[MPI_MAX_INFO_VAL + 1], key[64];
    /* Check every key before changing anything. */
    for (size_t k = 0; k < NSIZEKEYS; k++) {
        sizes[k] = *fort_size_keys[k].val;
        if (!fort_get(info, fort_size_keys[k].key, val, (int)sizeof(val)))
            continue;
        char *end;
        long v = strtol(val, &end, 10);
        int ok = *end == '\0' && (v == 1 || v == 2 || v == 4 || v == 8 || v == 16);
        if (ok && k != 0 && k != 3 && v == 1)
            ok = 0; /* no 1-byte reals */
        if (!ok)
            return mpii_err_comm(NULL, MPI_ERR_ARG, fn,
                                 "%s=\"%s\": not a size rmp has a type of (1, 2, 4, 8, 16)",
                                 fort_size_keys[k].key, val);
        sizes[k] = (int)v;
    }
    for (size_t i = 0; i < NFORT; i++) {
        absent[i] = fort_absent[i];
        if (!fort_specs[i].optional)
            continue;
        fort_key(&fort_specs[i], key, sizeof(key));
        if (!fort_get(info, key, val, (int)sizeof(val)))
            continue;
        if (!strcasecmp(val, "true"))
            absent[i] = 0;
        else if (!strcasecmp(val, "false"))
            absent[i] = 1;
        else
            return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "%s=\"%s\": not true or false", key,
                                 val);
    }
    MPII_LOCK();
    for (size_t k = 0; k < NSIZEKEYS; k++)
        *fort_size_keys[k].val = sizes[k];
    memcpy(fort_absent, absent, sizeof(absent));
    if (fort_built)
        mpii_dtype_fortran_init();
    MPII_UNLOCK();
    return MPI_SUCCESS;
}
MPII_WEAK(Abi_set_fortran_info)

/* ---- MPI_Abi_get_fortran_booleans / MPI_Abi_set_fortran_booleans ---- */

int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                  int *is_set)
{
    const char *fn = "MPI_Abi_get_fortran_booleans";
    int i = logical_size > 0 ? fort_log2((size_t)logical_size) : -1;
    if (i < 0)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn,
                             "logical_size %d: not 1, 2, 4, 8 or 16", logical_size);
    if (!logical_true || !logical_false || !is_set)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL argument");
    memcpy(logical_true, fort_true[i], (size_t)logical_size);
    memcpy(logical_false, fort_false[i], (size_t)logical_size);
    *is_set = fort_bool_set[i];
    return MPI_SUCCESS;
}
MPII_WEAK(Abi_get_fortran_booleans)

int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    const char *fn = "MPI_Abi_set_fortran_booleans";
    int i = logical_size > 0 ? fort_log2((size_t)logical_size) : -1;
    if (i < 0)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn,
                             "logical_size %d: not 1, 2, 4, 8 or 16", logical_size);
    if (!logical_true || !logical_false)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL argument");
    if (!memcmp(logical_true, logical_false, (size_t)logical_size))
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, ".TRUE. and .FALSE. are the same value");
    MPII_LOCK();
    memcpy(fort_true[i], logical_true, (size_t)logical_size);
    memcpy(fort_false[i], logical_false, (size_t)logical_size);
    fort_bool_set[i] = 1;
    MPII_UNLOCK();
    return MPI_SUCCESS;
}
MPII_WEAK(Abi_set_fortran_booleans)
