/* SPDX-License-Identifier: BSD-3-Clause */
/* Attributes on datatypes and windows (the engine: attr.c; communicators: attr_comm.c):
 * the MPI_Type_* and MPI_Win_* keyval and attribute bindings, the copy run by
 * MPI_Type_dup and the deletes of MPI_Type_free / MPI_Win_free. The windows' predefined
 * attributes (MPI_WIN_BASE, ...) are answered by win.c before it asks here. */
#include <stdlib.h>

#include "mpii_attr.h"
#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_rma.h"

/* ---- datatypes ---- */

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    mpii_keyval_fns_t f = {.copy.type = copy_fn, .del.type = delete_fn, .extra_state = extra_state};
    return mpii_attr_create_keyval(MPII_ATTR_TYPE, f, keyval, "MPI_Type_create_keyval");
}
MPII_WEAK(Type_create_keyval)

int PMPI_Type_free_keyval(int *keyval)
{
    return mpii_attr_free_keyval(MPII_ATTR_TYPE, keyval, "MPI_Type_free_keyval");
}
MPII_WEAK(Type_free_keyval)

/* A datatype, predefined ones included (their objects are this process's own). */
static mpii_dtype_t *obj_dtype(MPI_Datatype h, const char *fn, int *err)
{
    mpii_check_init(fn);
    mpii_dtype_t *d = mpii_dtype(h);
    *err = !d ? mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype handle %p", (void *)h)
              : MPI_SUCCESS;
    return d;
}

int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void *attribute_val)
{
    int err;
    mpii_dtype_t *d = obj_dtype(type, "MPI_Type_set_attr", &err);
    return d ? mpii_attr_set(MPII_ATTR_TYPE, d, &d->attrs, keyval, attribute_val, "MPI_Type_set_attr")
             : err;
}
MPII_WEAK(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void *attribute_val, int *flag)
{
    const char *fn = "MPI_Type_get_attr";
    mpii_check_init(fn);
    mpii_dtype_t *d = mpii_dtype(type);
    if (!d)
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype handle %p", (void *)type);
    return mpii_attr_get(MPII_ATTR_TYPE, d, d->attrs, keyval, attribute_val, flag, fn);
}
MPII_WEAK(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
    int err;
    mpii_dtype_t *d = obj_dtype(type, "MPI_Type_delete_attr", &err);
    return d ? mpii_attr_delete(MPII_ATTR_TYPE, d, &d->attrs, keyval, "MPI_Type_delete_attr") : err;
}
MPII_WEAK(Type_delete_attr)

int mpii_type_attr_copy_all(mpii_dtype_t *old, mpii_dtype_t *d, const char *fn)
{
    int keyval = 0;
    int rc = mpii_attr_copy_list(MPII_ATTR_TYPE, old, old->attrs, &d->attrs, &keyval);
    if (rc == MPI_SUCCESS)
        return rc;
    return mpii_err_comm(NULL, rc, fn, "copying the attribute of keyval %d failed", keyval);
}

int mpii_type_attr_delete_all(mpii_dtype_t *d, const char *fn)
{
    return mpii_attr_delete_list(MPII_ATTR_TYPE, d, &d->attrs, fn);
}

/* ---- windows ---- */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn, int *keyval,
                           void *extra_state)
{
    mpii_keyval_fns_t f = {.copy.win = copy_fn, .del.win = delete_fn, .extra_state = extra_state};
    return mpii_attr_create_keyval(MPII_ATTR_WIN, f, keyval, "MPI_Win_create_keyval");
}
MPII_WEAK(Win_create_keyval)

int PMPI_Win_free_keyval(int *keyval)
{
    return mpii_attr_free_keyval(MPII_ATTR_WIN, keyval, "MPI_Win_free_keyval");
}
MPII_WEAK(Win_free_keyval)

int PMPI_Win_set_attr(MPI_Win win, int keyval, void *attribute_val)
{
    const char *fn = "MPI_Win_set_attr";
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    return mpii_attr_set(MPII_ATTR_WIN, w, &w->attrs, keyval, attribute_val, fn);
}
MPII_WEAK(Win_set_attr)

int mpii_win_attr_get(mpii_win_t *w, int keyval, void *attribute_val, int *flag)
{
    return mpii_attr_get(MPII_ATTR_WIN, w, w->attrs, keyval, attribute_val, flag, "MPI_Win_get_attr");
}

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    const char *fn = "MPI_Win_delete_attr";
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    return mpii_attr_delete(MPII_ATTR_WIN, w, &w->attrs, keyval, fn);
}
MPII_WEAK(Win_delete_attr)

int mpii_win_attr_delete_all(mpii_win_t *w, const char *fn)
{
    return mpii_attr_delete_list(MPII_ATTR_WIN, w, &w->attrs, fn);
}
