/* SPDX-License-Identifier: BSD-3-Clause */
/* The attribute engine (attr.c): one keyval table and one attribute list per object,
 * for every kind of object that carries attributes. The bindings (attr_comm.c for
 * communicators, attr_obj.c for datatypes and windows) convert the handle and call here;
 * a keyval of one kind is refused on another (MPI_ERR_KEYVAL). Errors go through the
 * object's handler (a datatype's: MPI_COMM_WORLD's, as for every datatype error). */
#ifndef MPII_ATTR_H
#define MPII_ATTR_H

#include "mpii_base.h"

typedef enum { MPII_ATTR_COMM = 1, MPII_ATTR_TYPE, MPII_ATTR_WIN } mpii_attr_kind_t;

/* A keyval's callbacks, of its kind's signature (copy: NULL_COPY_FN is 0, DUP_FN 1 for
 * every kind; windows are never copied). */
typedef struct mpii_keyval_fns {
    union {
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
        MPI_Win_copy_attr_function *win;
    } copy;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
        MPI_Win_delete_attr_function *win;
    } del;
    void *extra_state;
} mpii_keyval_fns_t;

/* The MPI_*_create_keyval / _free_keyval of kind. */
int mpii_attr_create_keyval(mpii_attr_kind_t kind, mpii_keyval_fns_t f, int *keyval,
                            const char *fn);
int mpii_attr_free_keyval(mpii_attr_kind_t kind, int *keyval, const char *fn);
/* On object h of kind whose list is *head: MPI_*_set_attr, _get_attr, _delete_attr. */
int mpii_attr_set(mpii_attr_kind_t kind, void *h, mpii_attr_t **head, int keyval, void *val,
                  const char *fn);
int mpii_attr_get(mpii_attr_kind_t kind, void *h, mpii_attr_t *head, int keyval, void *val,
                  int *flag, const char *fn);
int mpii_attr_delete(mpii_attr_kind_t kind, void *h, mpii_attr_t **head, int keyval,
                     const char *fn);
/* Run the copy callbacks of old's attributes (in the order they were set) into *head of
 * the new object: MPI_SUCCESS, or the error code (not reported: the caller does) and in
 * *keyval the attribute's keyval. */
int mpii_attr_copy_list(mpii_attr_kind_t kind, void *old, mpii_attr_t *from, mpii_attr_t **head,
                        int *keyval);
/* Delete every attribute of h (its delete callbacks run); the first failure, reported. */
int mpii_attr_delete_list(mpii_attr_kind_t kind, void *h, mpii_attr_t **head, const char *fn);

#endif
