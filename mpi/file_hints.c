/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO hints of the fast paths (file_sieve.c, file_direct.c): their defaults, how
 * an info sets them and how MPI_File_get_info shows the values in force. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpii.h"
#include "mpii_file.h"

void mpii_file_fast_defaults(mpii_file_t *f)
{
    f->ds_read = f->ds_write = 2;
    f->ds_rd_size = (MPI_Offset)512 << 10;
    f->ds_wr_size = (MPI_Offset)512 << 10;
    f->direct_req = 0;
    f->dfd = -1;
    f->dalign = 4096;
}

static int fh_get(MPI_Info info, const char *key, char *v, int len)
{
    int flag = 0;
    return PMPI_Info_get_string(info, key, &len, v, &flag) == MPI_SUCCESS && flag;
}

/* "enable"/"true" 1, "disable"/"false" 0, "automatic" 2, else dflt */
static int fh_tri(MPI_Info info, const char *key, int dflt)
{
    char v[32];
    if (!fh_get(info, key, v, sizeof(v)))
        return dflt;
    if (!strcmp(v, "enable") || !strcmp(v, "true"))
        return 1;
    if (!strcmp(v, "disable") || !strcmp(v, "false"))
        return 0;
    return !strcmp(v, "automatic") ? 2 : dflt;
}

static MPI_Offset fh_size(MPI_Info info, const char *key, MPI_Offset dflt)
{
    char v[64], *end;
    if (!fh_get(info, key, v, sizeof(v)))
        return dflt;
    long long x = strtoll(v, &end, 10);
    /* a window holds at least two pages; a bound keeps a typo from allocating it all */
    return end != v && x >= 8192 && x <= ((long long)1 << 34) ? (MPI_Offset)x : dflt;
}

void mpii_file_fast_hints(mpii_file_t *f, MPI_Info info)
{
    f->ds_read = fh_tri(info, "romio_ds_read", f->ds_read);
    f->ds_write = fh_tri(info, "romio_ds_write", f->ds_write);
    f->ds_rd_size = fh_size(info, "ind_rd_buffer_size", f->ds_rd_size);
    f->ds_wr_size = fh_size(info, "ind_wr_buffer_size", f->ds_wr_size);
    /* O_DIRECT is chosen at open only: the descriptor is opened there */
    if (f->fd < 0)
        f->direct_req = fh_tri(info, "direct_io", 0) == 1 || fh_tri(info, "direct_read", 0) == 1 ||
                        fh_tri(info, "direct_write", 0) == 1;
}

void mpii_file_fast_info(mpii_file_t *f, MPI_Info in)
{
    static const char *const tri[] = {"disable", "enable", "automatic"};
    char v[32];
    PMPI_Info_set(in, "romio_ds_read", tri[f->ds_read]);
    PMPI_Info_set(in, "romio_ds_write", tri[f->ds_write]);
    snprintf(v, sizeof(v), "%lld", (long long)f->ds_rd_size);
    PMPI_Info_set(in, "ind_rd_buffer_size", v);
    snprintf(v, sizeof(v), "%lld", (long long)f->ds_wr_size);
    PMPI_Info_set(in, "ind_wr_buffer_size", v);
    PMPI_Info_set(in, "direct_io", f->dfd >= 0 ? "true" : "false");
}
