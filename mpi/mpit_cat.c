/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_T categories: "rmp_OWNER" for the parameters of each owner (the core,
 * each transport, each module: rmp_info's groups), in cvar order, then
 * "rmp_p2p_stats" holding every performance variable. No subcategories, no
 * events; the set never changes (MPI_T_category_changed: always 0). */
#include <stdio.h>
#include <string.h>

#include "mpii_t.h"

#define MPIT_CAT_MAX 64

/* Owners in order of their first cvar (cvars of an owner are contiguous). */
static int cat_owners(const char *owners[MPIT_CAT_MAX], int first[MPIT_CAT_MAX + 1])
{
    int n = 0, ncv = mpii_t_cvar_num();
    for (int i = 0; i < ncv && n < MPIT_CAT_MAX; i++) {
        const char *o = mpii_t_cvar(i)->owner;
        if (n == 0 || strcmp(owners[n - 1], o) != 0) {
            owners[n] = o;
            first[n++] = i;
        }
    }
    first[n] = ncv;
    return n;
}

typedef struct mpit_cat {
    char name[96], desc[160];
    int lo, hi;   /* its cvars [lo, hi) */
    int plo, phi; /* its pvars */
} mpit_cat_t;

/* How many categories there are; and category cat (if valid, else -1) into c. */
static int cat_get(int cat, mpit_cat_t *c)
{
    const char *owners[MPIT_CAT_MAX];
    int first[MPIT_CAT_MAX + 1];
    int n = cat_owners(owners, first);
    if (cat < 0 || cat > n)
        return cat == -1 ? n + 1 : -1;
    if (cat < n) {
        snprintf(c->name, sizeof(c->name), "rmp_%s", owners[cat]);
        snprintf(c->desc, sizeof(c->desc), "RMP_* parameters of rmp's %s%s", owners[cat],
                 strcmp(owners[cat], "core") == 0 ? "" : " component");
        c->lo = first[cat];
        c->hi = first[cat + 1];
        c->plo = c->phi = 0;
    } else {
        snprintf(c->name, sizeof(c->name), "rmp_p2p_stats");
        snprintf(c->desc, sizeof(c->desc),
                 "point-to-point message counters and queue lengths of this rank");
        c->lo = c->hi = 0;
        c->plo = 0;
        c->phi = mpii_t_pvar_num();
    }
    return n + 1;
}

static int cat_count(void)
{
    mpit_cat_t c;
    return cat_get(-1, &c);
}

int PMPI_T_category_get_num(int *num_cat)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cat)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    *num_cat = cat_count();
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_category_get_num)

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    mpit_cat_t c;
    if (cat_index < 0 || cat_get(cat_index, &c) < 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
    mpii_t_str(name, name_len, c.name);
    mpii_t_str(desc, desc_len, c.desc);
    if (num_cvars)
        *num_cvars = c.hi - c.lo;
    if (num_pvars)
        *num_pvars = c.phi - c.plo;
    if (num_categories)
        *num_categories = 0;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cat_index)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    int ncat = cat_count();
    for (int i = 0; i < ncat; i++) {
        mpit_cat_t c;
        cat_get(i, &c);
        if (strcmp(c.name, name) == 0) {
            *cat_index = i;
            return mpii_t_leave(MPI_SUCCESS);
        }
    }
    return mpii_t_leave(MPI_T_ERR_INVALID_NAME);
}
MPII_WEAK(T_category_get_index)

enum { CAT_CVARS, CAT_PVARS, CAT_SUBCATS, CAT_EVENTS };

/* The first len members of one kind of category cat_index into indices. */
static int cat_members(int cat_index, int kind, int len, int indices[])
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    mpit_cat_t c;
    if (cat_index < 0 || cat_get(cat_index, &c) < 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && !indices))
        return mpii_t_leave(MPI_T_ERR_INVALID);
    int lo = c.lo, hi = c.hi;
    if (kind == CAT_PVARS) {
        lo = c.plo;
        hi = c.phi;
    } else if (kind != CAT_CVARS) {
        lo = hi = 0;
    }
    for (int i = 0; i < len && lo + i < hi; i++)
        indices[i] = lo + i;
    return mpii_t_leave(MPI_SUCCESS);
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return cat_members(cat_index, CAT_CVARS, len, indices);
}
MPII_WEAK(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return cat_members(cat_index, CAT_PVARS, len, indices);
}
MPII_WEAK(T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return cat_members(cat_index, CAT_SUBCATS, len, indices);
}
MPII_WEAK(T_category_get_categories)

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    return cat_members(cat_index, CAT_EVENTS, len, indices);
}
MPII_WEAK(T_category_get_events)

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    mpit_cat_t c;
    if (cat_index < 0 || cat_get(cat_index, &c) < 0)
        return mpii_t_leave(MPI_T_ERR_INVALID_INDEX);
    if (!num_events)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_category_get_num_events)

int PMPI_T_category_changed(int *update_number)
{
    int rc = mpii_t_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!update_number)
        return mpii_t_leave(MPI_T_ERR_INVALID);
    *update_number = 0;
    return mpii_t_leave(MPI_SUCCESS);
}
MPII_WEAK(T_category_changed)
