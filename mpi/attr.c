/* SPDX-License-Identifier: BSD-3-Clause */
/* The attribute engine (mpii_attr.h): keyvals with copy and delete callbacks, one table
 * for communicators, datatypes and windows, and the per-object lists. */
#include <stdint.h>
#include <stdlib.h>

#include "mpii_attr.h"
#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_rma.h"

/* User keyvals are numbered from here, away from the predefined 501..605. */
#define ATTR_FIRST_KEYVAL 1000

typedef struct attr_keyval {
    mpii_attr_kind_t kind;
    int live; /* freed by the user: no new attribute may use it */
    int refs; /* attributes still set with it, plus one while live; 0: gone */
    mpii_keyval_fns_t f;
} attr_keyval_t;

static attr_keyval_t *attr_keys;
static int attr_nkeys;

static const char *attr_kind_name(mpii_attr_kind_t kind)
{
    return kind == MPII_ATTR_COMM ? "communicator" : kind == MPII_ATTR_TYPE ? "datatype" : "window";
}

/* The slot of keyval if it is of kind; NULL otherwise. */
static attr_keyval_t *attr_slot(int keyval, mpii_attr_kind_t kind)
{
    int i = keyval - ATTR_FIRST_KEYVAL;
    return i >= 0 && i < attr_nkeys && attr_keys[i].kind == kind ? &attr_keys[i] : NULL;
}

/* any_state: also a keyval freed by the user but still set somewhere. */
static attr_keyval_t *attr_key(int keyval, mpii_attr_kind_t kind, int any_state)
{
    attr_keyval_t *k = attr_slot(keyval, kind);
    return k && (any_state ? k->refs > 0 : k->live) ? k : NULL;
}

static int attr_err(mpii_attr_kind_t kind, void *h, int cls, const char *fn, const char *what,
                    int keyval)
{
    if (kind == MPII_ATTR_WIN) {
        mpii_win_t *w = h;
        return MPII_WIN_ERR(w, cls, fn, "%s (keyval %d)", what, keyval);
    }
    return mpii_err_comm(kind == MPII_ATTR_COMM ? h : NULL, cls, fn, "%s (keyval %d)", what,
                         keyval);
}

int mpii_attr_create_keyval(mpii_attr_kind_t kind, mpii_keyval_fns_t f, int *keyval,
                            const char *fn)
{
    mpii_check_init(fn);
    if (!keyval)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "keyval is NULL");
    MPII_LOCK();
    attr_keyval_t *n = realloc(attr_keys, (size_t)(attr_nkeys + 1) * sizeof(*n));
    if (n) {
        attr_keys = n;
        attr_keys[attr_nkeys] = (attr_keyval_t){kind, 1, 1, f};
        *keyval = ATTR_FIRST_KEYVAL + attr_nkeys++;
    }
    MPII_UNLOCK();
    return n ? MPI_SUCCESS : mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
}

int mpii_attr_free_keyval(mpii_attr_kind_t kind, int *keyval, const char *fn)
{
    mpii_check_init(fn);
    attr_keyval_t *k = keyval ? attr_key(*keyval, kind, 1) : NULL;
    if (!k)
        return mpii_err_comm(NULL, MPI_ERR_KEYVAL, fn, "invalid or predefined %s keyval %d",
                             attr_kind_name(kind), keyval ? *keyval : 0);
    /* Attributes already set keep their callbacks until deleted. Freeing it again while
     * they do (from their delete callbacks, or through a copy of the handle) is accepted,
     * as MPICH does: the keyval still exists. */
    if (k->live) {
        k->live = 0;
        k->refs--;
    }
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static mpii_attr_t **attr_find(mpii_attr_t **head, int keyval)
{
    while (*head && (*head)->keyval != keyval)
        head = &(*head)->next;
    return head;
}

static int attr_call_delete(mpii_attr_kind_t kind, void *h, const attr_keyval_t *k,
                            const mpii_attr_t *a)
{
    if (kind == MPII_ATTR_COMM && k->f.del.comm)
        return k->f.del.comm(mpii_comm_handle(h), a->keyval, a->value, k->f.extra_state);
    if (kind == MPII_ATTR_TYPE && k->f.del.type)
        return k->f.del.type(mpii_dtype_handle(h), a->keyval, a->value, k->f.extra_state);
    if (kind == MPII_ATTR_WIN && k->f.del.win)
        return k->f.del.win(mpii_win_handle(h), a->keyval, a->value, k->f.extra_state);
    return MPI_SUCCESS;
}

/* Unlink *p (of object h, list head) and run its delete callback. Unlinked first: the
 * callback may delete other attributes of h, p's node among them. A failing callback
 * leaves the attribute set (back at the head of the list). */
static int attr_delete_one(mpii_attr_kind_t kind, void *h, mpii_attr_t **head, mpii_attr_t **p,
                           const char *fn)
{
    mpii_attr_t *a = *p;
    attr_keyval_t *k = attr_key(a->keyval, kind, 1);
    *p = a->next;
    int rc = k ? attr_call_delete(kind, h, k, a) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        a->next = *head;
        *head = a;
        return attr_err(kind, h, rc, fn, "the delete callback failed", a->keyval);
    }
    if (k)
        k->refs--;
    free(a);
    return MPI_SUCCESS;
}

int mpii_attr_set(mpii_attr_kind_t kind, void *h, mpii_attr_t **head, int keyval, void *val,
                  const char *fn)
{
    if (!attr_key(keyval, kind, 0))
        return attr_err(kind, h, MPI_ERR_KEYVAL, fn, "invalid or predefined keyval", keyval);
    mpii_attr_t **p = attr_find(head, keyval);
    if (*p) {
        int err = attr_delete_one(kind, h, head, p, fn);
        if (err != MPI_SUCCESS)
            return err;
    }
    mpii_attr_t *a = malloc(sizeof(*a));
    if (!a)
        return attr_err(kind, h, MPI_ERR_NO_MEM, fn, "out of memory", keyval);
    *a = (mpii_attr_t){*head, keyval, val};
    *head = a;
    /* looked up again: a delete callback above may have created keyvals (realloc) */
    attr_key(keyval, kind, 0)->refs++;
    return MPI_SUCCESS;
}

int mpii_attr_get(mpii_attr_kind_t kind, void *h, mpii_attr_t *head, int keyval, void *val,
                  int *flag, const char *fn)
{
    if (!val || !flag)
        return attr_err(kind, h, MPI_ERR_ARG, fn, "NULL output argument", keyval);
    /* A communicator keyval freed and no longer set anywhere still reads as unset. */
    if (kind == MPII_ATTR_COMM ? !attr_slot(keyval, kind) : !attr_key(keyval, kind, 1))
        return attr_err(kind, h, MPI_ERR_KEYVAL, fn, "invalid keyval", keyval);
    mpii_attr_t *a = *attr_find(&head, keyval);
    *flag = a != NULL;
    if (a)
        *(void **)val = a->value;
    return MPI_SUCCESS;
}

int mpii_attr_delete(mpii_attr_kind_t kind, void *h, mpii_attr_t **head, int keyval,
                     const char *fn)
{
    mpii_attr_t **p = attr_find(head, keyval);
    if (!*p)
        return attr_err(kind, h, MPI_ERR_KEYVAL, fn, "not set on this object", keyval);
    return attr_delete_one(kind, h, head, p, fn);
}

int mpii_attr_copy_list(mpii_attr_kind_t kind, void *old, mpii_attr_t *from, mpii_attr_t **head,
                        int *keyval)
{
    for (mpii_attr_t *a = from; a; a = a->next) {
        attr_keyval_t *k = attr_key(a->keyval, kind, 1);
        /* NULL_COPY_FN is 0 and DUP_FN 1 for every kind (mpi.h) */
        uintptr_t how = k && kind != MPII_ATTR_WIN ? (uintptr_t)k->f.copy.comm : 0;
        void *out = NULL;
        int flag = 0;
        *keyval = a->keyval;
        if (how == 1) {
            out = a->value;
            flag = 1;
        } else if (how != 0) {
            int rc = kind == MPII_ATTR_COMM
                         ? k->f.copy.comm(mpii_comm_handle(old), a->keyval, k->f.extra_state,
                                          a->value, &out, &flag)
                         : k->f.copy.type(mpii_dtype_handle(old), a->keyval, k->f.extra_state,
                                          a->value, &out, &flag);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        if (!flag)
            continue;
        mpii_attr_t *n = malloc(sizeof(*n));
        if (!n)
            return MPI_ERR_NO_MEM;
        *n = (mpii_attr_t){*head, a->keyval, out};
        *head = n;
        attr_key(a->keyval, kind, 1)->refs++; /* the callback may have grown the table */
    }
    return MPI_SUCCESS;
}

int mpii_attr_delete_list(mpii_attr_kind_t kind, void *h, mpii_attr_t **head, const char *fn)
{
    while (*head) {
        int err = attr_delete_one(kind, h, head, head, fn);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}
