/* SPDX-License-Identifier: BSD-3-Clause */
/* Attributes on communicators: keyvals with copy/delete callbacks, and the
 * predefined attributes (MPI_TAG_UB, MPI_UNIVERSE_SIZE, ...). */
#include <stdlib.h>

#include "mpii_base.h"

/* User keyvals are numbered from here, away from the predefined 501..605. */
#define ATTR_FIRST_KEYVAL 1000

typedef struct attr_keyval {
    int live; /* freed by the user: no new attribute may use it */
    int refs; /* attributes still set with it, plus one while live */
    MPI_Comm_copy_attr_function *copy_fn;
    MPI_Comm_delete_attr_function *delete_fn;
    void *extra_state;
} attr_keyval_t;

static attr_keyval_t *attr_keys;
static int attr_nkeys;

/* Values of the predefined attributes: the standard hands out pointers to them. */
static int attr_tag_ub = RMP_TAG_UB;
static int attr_universe_size, attr_appnum, attr_wtime_global, attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE, attr_lastused;
int mpii_err_lastused(void);

int mpii_attr_init(void)
{
    attr_universe_size = mpii_comm_world.size;
    const char *appnum = getenv("PMIX_APPNUM");
    attr_appnum = appnum ? atoi(appnum) : 0;
    attr_wtime_global = 0; /* each rank reads its own clock */
    return MPI_SUCCESS;
}

static attr_keyval_t *attr_key(int keyval)
{
    int i = keyval - ATTR_FIRST_KEYVAL;
    return i >= 0 && i < attr_nkeys && attr_keys[i].live ? &attr_keys[i] : NULL;
}

/* A keyval that still exists: live, or freed by the user but still set somewhere. */
static attr_keyval_t *attr_key_any(int keyval)
{
    int i = keyval - ATTR_FIRST_KEYVAL;
    return i >= 0 && i < attr_nkeys && attr_keys[i].refs > 0 ? &attr_keys[i] : NULL;
}

static void attr_key_release(int keyval)
{
    attr_keys[keyval - ATTR_FIRST_KEYVAL].refs--;
}

static int attr_predefined(int keyval, void **val)
{
    switch (keyval) {
    case MPI_TAG_UB: *val = &attr_tag_ub; return 1;
    case MPI_UNIVERSE_SIZE: *val = &attr_universe_size; return 1;
    case MPI_APPNUM: *val = &attr_appnum; return 1;
    case MPI_WTIME_IS_GLOBAL: *val = &attr_wtime_global; return 1;
    case MPI_HOST: *val = &attr_host; return 1;
    case MPI_IO: *val = &attr_io; return 1;
    case MPI_LASTUSEDCODE:
        attr_lastused = mpii_err_lastused();
        *val = &attr_lastused;
        return 1;
    default: return 0;
    }
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *comm_keyval,
                            void *extra_state)
{
    mpii_check_init("MPI_Comm_create_keyval");
    if (!comm_keyval)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Comm_create_keyval", "keyval is NULL");
    attr_keyval_t *n = realloc(attr_keys, (size_t)(attr_nkeys + 1) * sizeof(*n));
    if (!n)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, "MPI_Comm_create_keyval", "out of memory");
    attr_keys = n;
    attr_keys[attr_nkeys] = (attr_keyval_t){1, 1, copy_fn, delete_fn, extra_state};
    *comm_keyval = ATTR_FIRST_KEYVAL + attr_nkeys++;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    mpii_check_init("MPI_Comm_free_keyval");
    attr_keyval_t *k = comm_keyval ? attr_key_any(*comm_keyval) : NULL;
    if (!k)
        return mpii_err_comm(NULL, MPI_ERR_KEYVAL, "MPI_Comm_free_keyval",
                             "invalid or predefined keyval %d", comm_keyval ? *comm_keyval : 0);
    /* Attributes already set keep their callbacks until deleted. Freeing it again while
     * they do (from their delete callbacks, or through a copy of the handle) is accepted,
     * as MPICH does: the keyval still exists. */
    if (k->live) {
        k->live = 0;
        k->refs--;
    }
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_free_keyval)

static mpii_attr_t **attr_find(mpii_comm_t *c, int keyval)
{
    mpii_attr_t **p = &c->attrs;
    while (*p && (*p)->keyval != keyval)
        p = &(*p)->next;
    return p;
}

/* Unlink one attribute and run its delete callback. Unlinked first: the callback may
 * delete other attributes of the same communicator, p's node among them. A failing
 * callback leaves the attribute set (back at the head of the list). */
static int attr_delete_one(mpii_comm_t *c, mpii_attr_t **p, const char *fn)
{
    mpii_attr_t *a = *p;
    attr_keyval_t *k = &attr_keys[a->keyval - ATTR_FIRST_KEYVAL];
    *p = a->next;
    if (k->delete_fn) {
        int rc = k->delete_fn(mpii_comm_handle(c), a->keyval, a->value, k->extra_state);
        if (rc != MPI_SUCCESS) {
            a->next = c->attrs;
            c->attrs = a;
            return mpii_err_comm(c, rc, fn, "the delete callback of keyval %d returned %d",
                                 a->keyval, rc);
        }
    }
    attr_key_release(a->keyval);
    free(a);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    mpii_check_init("MPI_Comm_set_attr");
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_set_attr", "invalid communicator");
    attr_keyval_t *k = attr_key(comm_keyval);
    if (!k)
        return mpii_err_comm(c, MPI_ERR_KEYVAL, "MPI_Comm_set_attr",
                             "invalid or predefined keyval %d", comm_keyval);
    mpii_attr_t **p = attr_find(c, comm_keyval);
    if (*p) {
        int err = attr_delete_one(c, p, "MPI_Comm_set_attr");
        if (err != MPI_SUCCESS)
            return err;
    }
    mpii_attr_t *a = malloc(sizeof(*a));
    if (!a)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, "MPI_Comm_set_attr", "out of memory");
    *a = (mpii_attr_t){c->attrs, comm_keyval, attribute_val};
    c->attrs = a;
    k->refs++;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_set_attr)

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    mpii_check_init("MPI_Comm_get_attr");
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_get_attr", "invalid communicator");
    if (!attribute_val || !flag)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_get_attr", "NULL output argument");
    void *v;
    if (attr_predefined(comm_keyval, &v)) {
        *(void **)attribute_val = v;
        *flag = 1;
        return MPI_SUCCESS;
    }
    int i = comm_keyval - ATTR_FIRST_KEYVAL;
    if (i < 0 || i >= attr_nkeys)
        return mpii_err_comm(c, MPI_ERR_KEYVAL, "MPI_Comm_get_attr", "invalid keyval %d",
                             comm_keyval);
    mpii_attr_t *a = *attr_find(c, comm_keyval);
    *flag = a != NULL;
    if (a)
        *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    mpii_check_init("MPI_Comm_delete_attr");
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_delete_attr", "invalid communicator");
    mpii_attr_t **p = attr_find(c, comm_keyval);
    if (!*p)
        return mpii_err_comm(c, MPI_ERR_KEYVAL, "MPI_Comm_delete_attr",
                             "keyval %d is not set on this communicator", comm_keyval);
    return attr_delete_one(c, p, "MPI_Comm_delete_attr");
}
MPII_WEAK(Comm_delete_attr)

int mpii_attr_copy_all(mpii_comm_t *old, mpii_comm_t *newc, const char *fn)
{
    /* Walk in set order (the list is newest first): copy into a list of the new comm. */
    for (mpii_attr_t *a = old->attrs; a; a = a->next) {
        attr_keyval_t *k = &attr_keys[a->keyval - ATTR_FIRST_KEYVAL];
        void *out = NULL;
        int flag = 0;
        if (k->copy_fn == MPI_COMM_DUP_FN) {
            out = a->value;
            flag = 1;
        } else if (k->copy_fn != MPI_COMM_NULL_COPY_FN) {
            int rc = k->copy_fn(mpii_comm_handle(old), a->keyval, k->extra_state, a->value,
                                &out, &flag);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        if (!flag)
            continue;
        mpii_attr_t *n = malloc(sizeof(*n));
        if (!n)
            return MPI_ERR_NO_MEM;
        *n = (mpii_attr_t){newc->attrs, a->keyval, out};
        newc->attrs = n;
        k->refs++;
    }
    (void)fn;
    return MPI_SUCCESS;
}

int mpii_attr_delete_all(mpii_comm_t *c, const char *fn)
{
    while (c->attrs) {
        int err = attr_delete_one(c, &c->attrs, fn);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

/* ---- The MPI-1 names of the same functions ---- */

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}
MPII_WEAK(Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
    return PMPI_Comm_free_keyval(keyval);
}
MPII_WEAK(Keyval_free)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}
MPII_WEAK(Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
MPII_WEAK(Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return PMPI_Comm_delete_attr(comm, keyval);
}
MPII_WEAK(Attr_delete)
