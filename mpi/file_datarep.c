/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO user data representations (MPI_Register_datarep): a process-wide table of
 * names and their conversion functions. A view in such a representation converts
 * whole accesses through a bounce buffer; the file layout is the native one, so a
 * representation is usable with types whose file extent (dtype_file_extent_fn) is
 * their native size. "external32" is one of them, built in: its view is laid out again
 * in external32 sizes (file_ext32.c). */
#include <stdlib.h>
#include <string.h>

#include "mpii.h"
#include "mpii_file.h"

struct mpii_datarep {
    struct mpii_datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *rd, *wr;
    MPI_Datarep_conversion_function_c *rd_c, *wr_c;
    MPI_Datarep_extent_function *extent;
    void *extra;
};

static mpii_datarep_t *drep_list;

/* "external32": a representation whose conversions are Pack_external's (file_ext32.c). */
static mpii_datarep_t drep_ext32 = {NULL, "external32", NULL, NULL, NULL, NULL, NULL, NULL};

mpii_datarep_t *mpii_file_datarep(const char *name)
{
    if (strcmp(name, "external32") == 0)
        return &drep_ext32;
    for (mpii_datarep_t *r = drep_list; r; r = r->next)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

static int drep_register(const char *name, MPI_Datarep_conversion_function *rd,
                         MPI_Datarep_conversion_function *wr,
                         MPI_Datarep_conversion_function_c *rd_c,
                         MPI_Datarep_conversion_function_c *wr_c,
                         MPI_Datarep_extent_function *extent, void *extra, const char *fn)
{
    mpii_check_init(fn);
    if (!name || !extent)
        return mpii_file_err(NULL, MPI_ERR_ARG, fn, "%s is NULL",
                             name ? "dtype_file_extent_fn" : "datarep");
    if (strlen(name) >= MPI_MAX_DATAREP_STRING)
        return mpii_file_err(NULL, MPI_ERR_ARG, fn, "datarep name longer than %d",
                             MPI_MAX_DATAREP_STRING - 1);
    if (strcmp(name, "native") == 0 || strcmp(name, "internal") == 0 ||
        strcmp(name, "external32") == 0 || mpii_file_datarep(name))
        return mpii_file_err(NULL, MPI_ERR_DUP_DATAREP, fn, "datarep %s already defined",
                             name);
    mpii_datarep_t *r = calloc(1, sizeof(*r));
    if (!r)
        return mpii_file_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    strcpy(r->name, name);
    r->rd = rd;
    r->wr = wr;
    r->rd_c = rd_c;
    r->wr_c = wr_c;
    r->extent = extent;
    r->extra = extra;
    MPII_LOCK();
    r->next = drep_list;
    drep_list = r;
    MPII_UNLOCK();
    return MPI_SUCCESS;
}

MPII_TWINS(Register_datarep, drep_register(datarep, TWIN(read_conversion_fn, NULL),
           TWIN(write_conversion_fn, NULL), TWIN(NULL, read_conversion_fn),
           TWIN(NULL, write_conversion_fn), dtype_file_extent_fn, extra_state, FN))

int mpii_file_datarep_extent(const mpii_datarep_t *r, mpii_dtype_t *d, MPI_Aint *extent)
{
    if (r == &drep_ext32)
        return mpii_file_x32_extent(d, extent);
    return r->extent(mpii_dtype_handle(d), extent, r->extra);
}

/* Usable for d: every basic element's file extent is its native size. Checked on the
 * predefined types d is made of, through the user's extent function. */
int mpii_file_datarep_ok(const mpii_datarep_t *r, mpii_dtype_t *d)
{
    if (r == &drep_ext32) { /* any type whose constructors have a file layout */
        MPI_Aint e = 0;
        return mpii_file_x32_extent(d, &e) == MPI_SUCCESS;
    }
    if (d->predefined) {
        MPI_Aint e = 0;
        return mpii_file_datarep_extent(r, d, &e) == MPI_SUCCESS && (size_t)e == d->size;
    }
    for (int i = 0; i < d->ntypes; i++)
        if (!mpii_file_datarep_ok(r, d->types[i]))
            return 0;
    return 1;
}

int mpii_file_is_x32(const mpii_file_t *f)
{
    return f->drep == &drep_ext32;
}

/* One access in the representation: convert count elements at buf to or from the
 * file form in a bounce buffer, which moves through the view as packed bytes. */
int mpii_file_datarep_io(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                         mpii_dtype_t *d, int write, size_t *done)
{
    const mpii_datarep_t *r = f->drep;
    if (r == &drep_ext32)
        return mpii_file_x32_io(f, pos, buf, count, d, write, done);
    MPI_Datatype h = mpii_dtype_handle(d);
    size_t total = (size_t)count * d->size;
    int has = write ? (r->wr || r->wr_c) : (r->rd || r->rd_c);
    if (!has) { /* no conversion: the native bytes */
        char *tmp = malloc(total ? total : 1);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        if (write)
            mpii_dtype_pack(d, buf, count, 0, tmp, total);
        int rc = mpii_file_view_io(f, pos, tmp, total, write, done);
        if (!write)
            mpii_dtype_unpack(d, buf, count, 0, tmp, *done);
        free(tmp);
        return rc;
    }
    if (count > INT32_MAX && (write ? !r->wr_c : !r->rd_c))
        return MPI_ERR_COUNT;
    char *tmp = malloc(total ? total : 1);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    if (write) {
        rc = r->wr_c ? r->wr_c(buf, h, count, tmp, 0, r->extra)
                     : r->wr(buf, h, (int)count, tmp, 0, r->extra);
        if (rc == MPI_SUCCESS)
            rc = mpii_file_view_io(f, pos, tmp, total, 1, done);
    } else {
        rc = mpii_file_view_io(f, pos, tmp, total, 0, done);
        MPI_Count n = d->size ? (MPI_Count)(*done / d->size) : 0;
        if (rc == MPI_SUCCESS && n)
            rc = r->rd_c ? r->rd_c(buf, h, n, tmp, 0, r->extra)
                         : r->rd(buf, h, (int)n, tmp, 0, r->extra);
    }
    free(tmp);
    return rc;
}

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "file_datarep.twins.h"
