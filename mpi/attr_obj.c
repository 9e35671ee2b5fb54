/* SPDX-License-Identifier: BSD-3-Clause */
/* Attributes on datatypes and windows (communicators: attr.c): keyvals with copy and
 * delete callbacks, copied by MPI_Type_dup, deleted by MPI_Type_free / MPI_Win_free and
 * MPI_*_delete_attr. One keyval table for both kinds; a keyval of one kind is refused on
 * the other (MPI_ERR_KEYVAL). The windows' predefined attributes (MPI_WIN_BASE, ...) are
 * answered by win.c before it asks here. */
#include <stdlib.h>

#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_rma.h"

/* Away from the predefined keyvals and from the communicators' (attr.c: 1000 on). */
#define OBJ_FIRST_KEYVAL 20000

enum { OBJ_TYPE = 1, OBJ_WIN = 2 };

typedef struct obj_keyval {
    int kind;
    int live; /* freed by the user: no new attribute may use it */
    int refs; /* attributes still set with it, plus one while live; 0: gone */
    union {
        MPI_Type_copy_attr_function *type;
        MPI_Win_copy_attr_function *win;
    } copy;
    union {
        MPI_Type_delete_attr_function *type;
        MPI_Win_delete_attr_function *win;
    } del;
    void *extra_state;
} obj_keyval_t;

static obj_keyval_t *obj_keys;
static int obj_nkeys;

static const char *obj_kind_name(int kind)
{
    return kind == OBJ_TYPE ? "datatype" : "window";
}

/* any_state: also a keyval freed by the user but still set somewhere. */
static obj_keyval_t *obj_key(int keyval, int kind, int any_state)
{
    int i = keyval - OBJ_FIRST_KEYVAL;
    return i >= 0 && i < obj_nkeys && obj_keys[i].kind == kind &&
                   (any_state ? obj_keys[i].refs > 0 : obj_keys[i].live)
               ? &obj_keys[i]
               : NULL;
}

static int obj_err(int kind, void *h, int cls, const char *fn, const char *what, int keyval)
{
    if (kind == OBJ_WIN) {
        mpii_win_t *w = h;
        return MPII_WIN_ERR(w, cls, fn, "%s (keyval %d)", what, keyval);
    }
    return mpii_err_comm(NULL, cls, fn, "%s (keyval %d)", what, keyval);
}

static int obj_create_keyval(int kind, obj_keyval_t k, int *keyval, const char *fn)
{
    mpii_check_init(fn);
    if (!keyval)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "keyval is NULL");
    MPII_LOCK();
    obj_keyval_t *n = realloc(obj_keys, (size_t)(obj_nkeys + 1) * sizeof(*n));
    if (n) {
        obj_keys = n;
        k.kind = kind;
        k.live = 1;
        k.refs = 1;
        obj_keys[obj_nkeys] = k;
        *keyval = OBJ_FIRST_KEYVAL + obj_nkeys++;
    }
    MPII_UNLOCK();
    return n ? MPI_SUCCESS : mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
}

static int obj_free_keyval(int kind, int *keyval, const char *fn)
{
    mpii_check_init(fn);
    obj_keyval_t *k = keyval ? obj_key(*keyval, kind, 1) : NULL;
    if (!k)
        return mpii_err_comm(NULL, MPI_ERR_KEYVAL, fn, "invalid %s keyval %d",
                             obj_kind_name(kind), keyval ? *keyval : 0);
    /* Attributes already set keep their callbacks until deleted; freeing it again while
     * they do is accepted (attr.c). */
    if (k->live) {
        k->live = 0;
        k->refs--;
    }
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static mpii_attr_t **obj_find(mpii_attr_t **head, int keyval)
{
    while (*head && (*head)->keyval != keyval)
        head = &(*head)->next;
    return head;
}

/* Unlink *p (of object h of kind, list head) and run its delete callback. Unlinked first:
 * the callback may delete other attributes of h, p's node among them. A failing callback
 * leaves the attribute set (back at the head of the list). */
static int obj_delete_one(int kind, void *h, mpii_attr_t **head, mpii_attr_t **p,
                          const char *fn)
{
    mpii_attr_t *a = *p;
    obj_keyval_t *k = obj_key(a->keyval, kind, 1);
    int rc = MPI_SUCCESS;
    *p = a->next;
    if (k && kind == OBJ_TYPE && k->del.type)
        rc = k->del.type(mpii_dtype_handle(h), a->keyval, a->value, k->extra_state);
    else if (k && kind == OBJ_WIN && k->del.win)
        rc = k->del.win(mpii_win_handle(h), a->keyval, a->value, k->extra_state);
    if (rc != MPI_SUCCESS) {
        a->next = *head;
        *head = a;
        return obj_err(kind, h, rc, fn, "the delete callback failed", a->keyval);
    }
    if (k)
        k->refs--;
    free(a);
    return MPI_SUCCESS;
}

static int obj_set(int kind, void *h, mpii_attr_t **head, int keyval, void *val, const char *fn)
{
    if (!obj_key(keyval, kind, 0))
        return obj_err(kind, h, MPI_ERR_KEYVAL, fn, "invalid keyval", keyval);
    mpii_attr_t **p = obj_find(head, keyval);
    if (*p) {
        int err = obj_delete_one(kind, h, head, p, fn);
        if (err != MPI_SUCCESS)
            return err;
    }
    mpii_attr_t *a = malloc(sizeof(*a));
    if (!a)
        return obj_err(kind, h, MPI_ERR_NO_MEM, fn, "out of memory", keyval);
    *a = (mpii_attr_t){*head, keyval, val};
    *head = a;
    obj_key(keyval, kind, 0)->refs++;
    return MPI_SUCCESS;
}

static int obj_get(int kind, void *h, mpii_attr_t *head, int keyval, void *val, int *flag,
                   const char *fn)
{
    if (!val || !flag)
        return obj_err(kind, h, MPI_ERR_ARG, fn, "NULL output argument", keyval);
    if (!obj_key(keyval, kind, 1))
        return obj_err(kind, h, MPI_ERR_KEYVAL, fn, "invalid keyval", keyval);
    mpii_attr_t *a = *obj_find(&head, keyval);
    *flag = a != NULL;
    if (a)
        *(void **)val = a->value;
    return MPI_SUCCESS;
}

static int obj_delete(int kind, void *h, mpii_attr_t **head, int keyval, const char *fn)
{
    mpii_attr_t **p = obj_find(head, keyval);
    if (!*p)
        return obj_err(kind, h, MPI_ERR_KEYVAL, fn, "not set on this object", keyval);
    return obj_delete_one(kind, h, head, p, fn);
}

/* ---- datatypes ---- */

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    obj_keyval_t k = {0};
    k.copy.type = copy_fn;
    k.del.type = delete_fn;
    k.extra_state = extra_state;
    return obj_create_keyval(OBJ_TYPE, k, keyval, "MPI_Type_create_keyval");
}
MPII_WEAK(Type_create_keyval)

int PMPI_Type_free_keyval(int *keyval)
{
    return obj_free_keyval(OBJ_TYPE, keyval, "MPI_Type_free_keyval");
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
    return d ? obj_set(OBJ_TYPE, d, &d->attrs, keyval, attribute_val, "MPI_Type_set_attr")
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
    return obj_get(OBJ_TYPE, d, d->attrs, keyval, attribute_val, flag, fn);
}
MPII_WEAK(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
    int err;
    mpii_dtype_t *d = obj_dtype(type, "MPI_Type_delete_attr", &err);
    return d ? obj_delete(OBJ_TYPE, d, &d->attrs, keyval, "MPI_Type_delete_attr") : err;
}
MPII_WEAK(Type_delete_attr)

int mpii_type_attr_copy_all(mpii_dtype_t *old, mpii_dtype_t *d, const char *fn)
{
    for (mpii_attr_t *a = old->attrs; a; a = a->next) {
        obj_keyval_t *k = obj_key(a->keyval, OBJ_TYPE, 1);
        void *out = NULL;
        int flag = 0;
        if (k && k->copy.type == MPI_TYPE_DUP_FN) {
            out = a->value;
            flag = 1;
        } else if (k && k->copy.type != MPI_TYPE_NULL_COPY_FN) {
            int rc = k->copy.type(mpii_dtype_handle(old), a->keyval, k->extra_state, a->value, &out,
                                  &flag);
            if (rc != MPI_SUCCESS)
                return mpii_err_comm(NULL, rc, fn, "the copy callback of keyval %d failed",
                                     a->keyval);
        }
        if (!flag)
            continue;
        mpii_attr_t *n = malloc(sizeof(*n));
        if (!n)
            return mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        *n = (mpii_attr_t){d->attrs, a->keyval, out};
        d->attrs = n;
        k->refs++;
    }
    return MPI_SUCCESS;
}

int mpii_type_attr_delete_all(mpii_dtype_t *d, const char *fn)
{
    while (d->attrs) {
        int err = obj_delete_one(OBJ_TYPE, d, &d->attrs, &d->attrs, fn);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

/* ---- windows ---- */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn, int *keyval,
                           void *extra_state)
{
    obj_keyval_t k = {0};
    k.copy.win = copy_fn;
    k.del.win = delete_fn;
    k.extra_state = extra_state;
    return obj_create_keyval(OBJ_WIN, k, keyval, "MPI_Win_create_keyval");
}
MPII_WEAK(Win_create_keyval)

int PMPI_Win_free_keyval(int *keyval)
{
    return obj_free_keyval(OBJ_WIN, keyval, "MPI_Win_free_keyval");
}
MPII_WEAK(Win_free_keyval)

int PMPI_Win_set_attr(MPI_Win win, int keyval, void *attribute_val)
{
    const char *fn = "MPI_Win_set_attr";
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    return obj_set(OBJ_WIN, w, &w->attrs, keyval, attribute_val, fn);
}
MPII_WEAK(Win_set_attr)

int mpii_win_attr_get(mpii_win_t *w, int keyval, void *attribute_val, int *flag)
{
    return obj_get(OBJ_WIN, w, w->attrs, keyval, attribute_val, flag, "MPI_Win_get_attr");
}

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    const char *fn = "MPI_Win_delete_attr";
    mpii_check_init(fn);
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    return obj_delete(OBJ_WIN, w, &w->attrs, keyval, fn);
}
MPII_WEAK(Win_delete_attr)

int mpii_win_attr_delete_all(mpii_win_t *w, const char *fn)
{
    while (w->attrs) {
        int err = obj_delete_one(OBJ_WIN, w, &w->attrs, &w->attrs, fn);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}
