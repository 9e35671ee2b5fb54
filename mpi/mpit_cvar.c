/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_T control variables: rmp's RMP_* parameters (rmp_param_*), named as in the
 * environment, in rmp_info's order. All are MPI_T_SCOPE_READONLY: rmp parses them
 * once, at rmp_init (a tuning file may fill in the unset ones then), so a write is
 * MPI_T_ERR_CVAR_SET_NEVER. Choice parameters are MPI_INT with an MPI_T_enum. */
#include <stdlib.h>
#include <string.h>

#include "mpii_t.h"

/* One per parameter; a cvar handle and an enum handle point into these arrays
 * (built once, never freed), so validating one is a range check. */
typedef struct mpit_cvar {
    rmp_param_info_t info;
    int nchoices; /* RMP_PARAM_ENUM: how many */
} mpit_cvar_t;
typedef struct mpit_enum {
    int cvar;
} mpit_enum_t;
typedef struct mpit_cvar_handle {
    int cvar;
} mpit_cvar_handle_t;

static mpit_cvar_t *cvars;
static mpit_enum_t *enums;
static mpit_cvar_handle_t *handles;
static int ncvars;

int mpii_t_cvar_setup(void)
{
    if (cvars)
        return MPI_SUCCESS;
    int n = rmp_param_count();
    mpit_cvar_t *c = calloc((size_t)n + 1, sizeof(*c));
    mpit_enum_t *e = calloc((size_t)n + 1, sizeof(*e));
    mpit_cvar_handle_t *h = calloc((size_t)n + 1, sizeof(*h));
    if (!c || !e || !h)
        goto fail;
    for (int i = 0; i < n; i++) {
        if (rmp_param_get_info(i, &c[i].info) != RMP_SUCCESS)
            goto fail;
        e[i].cvar = h[i].cvar = i;
        if (c[i].info.type == RMP_PARAM_ENUM && c[i].info.choices) {
            c[i].nchoices = 1;
            for (const char *s = c[i].info.choices; *s; s++)
                c[i].nchoices += *s == '|';
        }
    }
    cvars = c;
    enums = e;
    handles = h;
    ncvars = n;
    return MPI_SUCCESS;
fail:
    free(c);
    free(e);
    free(h);
    return MPI_T_ERR_MEMORY;
}

int mpii_t_cvar_num(void)
{
    return ncvars;
}

const rmp_param_info_t *mpii_t_cvar(int index)
{
    return index >= 0 && index < ncvars ? &cvars[index].info : NULL;
}

static MPI_Datatype cvar_dtype(const rmp_param_info_t *p)
{
    switch (p->type) {
    case RMP_PARAM_SIZE: return MPI_UNSIGNED_LONG;
    case RMP_PARAM_DOUBLE: return MPI_DOUBLE;
    case RMP_PARAM_STRING: return MPI_CHAR;
    default: return MPI_INT;
    }
}

static int cvar_count(const rmp_param_info_t *p)
{
    return p->type == RMP_PARAM_STRING ? (int)p->size : 1;
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cvar)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    *num_cvar = ncvars;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_cvar_get_num)

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    const rmp_param_info_t *p = mpii_t_cvar(cvar_index);
    if (!p)
        return mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
    mpii_t_str(name, name_len, p->name);
    mpii_t_str(desc, desc_len, p->help);
    if (verbosity) /* the core's are every user's; a transport's or module's, tuning */
        *verbosity = strcmp(p->owner, "core") == 0 ? MPI_T_VERBOSITY_USER_BASIC
                                                   : MPI_T_VERBOSITY_TUNER_BASIC;
    if (datatype)
        *datatype = cvar_dtype(p);
    if (enumtype)
        *enumtype = p->type == RMP_PARAM_ENUM ? (MPI_T_enum)&enums[cvar_index] : MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = MPI_T_SCOPE_READONLY;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cvar_index)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < ncvars; i++) {
        if (strcmp(cvars[i].info.name, name) == 0) {
            *cvar_index = i;
            return mpii_t_leave(MPI_SUCCESS);
        }
    }
    return mpii_t_leave(MPI_T_ERR_INVALID_NAME);
}
MPII_WEAK(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    (void)obj_handle; /* every cvar is bound to no object */
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    const rmp_param_info_t *p = mpii_t_cvar(cvar_index);
    if (!p)
        return mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    *handle = (MPI_T_cvar_handle)&handles[cvar_index];
    *count = cvar_count(p);
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_cvar_handle_alloc)

/* The index of p in the array base[ncvars] of elements of size sz, or -1: a handle from
 * the user is checked against our arrays before it is read. */
static int slot_of(const void *p, const void *base, size_t sz)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)base;
    if (!base || a < lo || a >= lo + (uintptr_t)ncvars * sz || (a - lo) % sz != 0)
        return -1;
    return (int)((a - lo) / sz);
}

/* The cvar of handle h, or -1. */
static int cvar_of(MPI_T_cvar_handle h)
{
    int i = slot_of(h, handles, sizeof(*handles));
    return i < 0 ? -1 : handles[i].cvar;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!handle)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    if (cvar_of(*handle) < 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_HANDLE);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    int i = cvar_of(handle);
    if (i < 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    const rmp_param_info_t *p = &cvars[i].info;
    int r = rmp_param_read(i, buf, p->size);
    return mpii_t_leave(r == RMP_SUCCESS ? MPI_SUCCESS
                        : r == RMP_ERR_NOMEM ? MPI_T_ERR_MEMORY : MPI_T_ERR_INVALID);
}
MPII_WEAK(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cvar_of(handle) < 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    return mpii_t_leave(MPI_T_ERR_CVAR_SET_NEVER);
}
MPII_WEAK(T_cvar_write)

/* The cvar of enum e, or -1. */
static int enum_of(MPI_T_enum e)
{
    int k = slot_of(e, enums, sizeof(*enums));
    if (k < 0)
        return -1;
    int i = enums[k].cvar;
    return cvars[i].info.type == RMP_PARAM_ENUM ? i : -1;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    int i = enum_of(enumtype);
    if (i < 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_HANDLE);
    if (num)
        *num = cvars[i].nchoices;
    mpii_t_str(name, name_len, cvars[i].info.name);
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    int i = enum_of(enumtype);
    if (i < 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_HANDLE);
    if (indx < 0 || indx >= cvars[i].nchoices)
        return mpii_t_leave(MPI_T_ERR_INVALID_ITEM);
    /* The indx-th of the '|'-separated choices; its value is its index. */
    const char *c = cvars[i].info.choices;
    for (int k = 0; k < indx; k++)
        c = strchr(c, '|') + 1;
    const char *bar = strchr(c, '|');
    char item[64];
    size_t n = bar ? (size_t)(bar - c) : strlen(c);
    if (n >= sizeof(item))
        n = sizeof(item) - 1;
    memcpy(item, c, n);
    item[n] = '\0';
    if (value)
        *value = indx;
    mpii_t_str(name, name_len, item);
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_enum_get_item)
