/* SPDX-License-Identifier: BSD-3-Clause */
/* Attributes on communicators (the engine: attr.c): the predefined attributes
 * (MPI_TAG_UB, MPI_UNIVERSE_SIZE, ...) and the MPI_Comm_*_attr / _keyval bindings. */
#include <stdlib.h>

#include "mpii_attr.h"
#include "mpii_base.h"

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
    mpii_keyval_fns_t f = {.copy.comm = copy_fn, .del.comm = delete_fn, .extra_state = extra_state};
    return mpii_attr_create_keyval(MPII_ATTR_COMM, f, comm_keyval, "MPI_Comm_create_keyval");
}
MPII_WEAK(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return mpii_attr_free_keyval(MPII_ATTR_COMM, comm_keyval, "MPI_Comm_free_keyval");
}
MPII_WEAK(Comm_free_keyval)

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    mpii_check_init("MPI_Comm_set_attr");
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_set_attr", "invalid communicator");
    return mpii_attr_set(MPII_ATTR_COMM, c, &c->attrs, comm_keyval, attribute_val,
                         "MPI_Comm_set_attr");
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
    return mpii_attr_get(MPII_ATTR_COMM, c, c->attrs, comm_keyval, attribute_val, flag,
                         "MPI_Comm_get_attr");
}
MPII_WEAK(Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    mpii_check_init("MPI_Comm_delete_attr");
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_delete_attr", "invalid communicator");
    return mpii_attr_delete(MPII_ATTR_COMM, c, &c->attrs, comm_keyval, "MPI_Comm_delete_attr");
}
MPII_WEAK(Comm_delete_attr)

/* Errors are returned, not reported: the caller (comm.c) reports them as its call. */
int mpii_attr_copy_all(mpii_comm_t *old, mpii_comm_t *newc, const char *fn)
{
    int keyval;
    (void)fn;
    return mpii_attr_copy_list(MPII_ATTR_COMM, old, old->attrs, &newc->attrs, &keyval);
}

int mpii_attr_delete_all(mpii_comm_t *c, const char *fn)
{
    return mpii_attr_delete_list(MPII_ATTR_COMM, c, &c->attrs, fn);
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
