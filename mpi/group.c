/* SPDX-License-Identifier: BSD-3-Clause */
/* Groups: ordered sets of world ranks, local objects (no communication). */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"

mpii_group_t mpii_group_empty = {MPII_MAGIC_GROUP, 1, 0, MPI_UNDEFINED, NULL, NULL};
static mpii_pool_t group_pool = MPII_POOL_INIT(mpii_group_t);

mpii_group_t *mpii_group(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY)
        return &mpii_group_empty;
    return mpii_obj_valid(h, MPII_MAGIC_GROUP) ? (mpii_group_t *)h : NULL;
}

MPI_Group mpii_group_handle(mpii_group_t *g)
{
    return g == &mpii_group_empty ? MPI_GROUP_EMPTY : (MPI_Group)g;
}

mpii_group_t *mpii_group_new(int n, const int *world)
{
    if (n == 0)
        return &mpii_group_empty;
    mpii_group_t *g = mpii_obj_new(&group_pool, MPII_MAGIC_GROUP);
    if (!g)
        return NULL;
    g->world = malloc((size_t)n * sizeof(int));
    if (!g->world) {
        mpii_obj_free(&group_pool, g);
        return NULL;
    }
    memcpy(g->world, world, (size_t)n * sizeof(int));
    g->refs = 1;
    g->size = n;
    g->rank = MPI_UNDEFINED;
    int me = mpii_comm_world.rank;
    for (int i = 0; i < n; i++)
        if (world[i] == me)
            g->rank = i;
    return g;
}

void mpii_group_release(mpii_group_t *g)
{
    if (!g || g == &mpii_group_empty || --g->refs > 0)
        return;
    free(g->world);
    mpii_obj_free(&group_pool, g);
}

/* Index of world rank w in g, or -1. */
static int group_find(const mpii_group_t *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w)
            return i;
    return -1;
}

static int group_out(mpii_group_t *g, MPI_Group *out, const char *fn)
{
    if (!g)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *out = mpii_group_handle(g);
    return MPI_SUCCESS;
}

#define GROUP_GET(h, g, fn)                                                                \
    mpii_check_init(fn);                                                                   \
    mpii_group_t *g = mpii_group(h);                                                       \
    if (MPII_UNLIKELY(!g))                                                                 \
        return mpii_err_comm(NULL, MPI_ERR_GROUP, fn, "invalid group %p", (void *)(h));

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    mpii_check_init("MPI_Comm_group");
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, "MPI_Comm_group", "invalid communicator");
    if (!group)
        return mpii_err_comm(c, MPI_ERR_ARG, "MPI_Comm_group", "group is NULL");
    if (!c->group) {
        int *w = malloc((size_t)c->size * sizeof(int));
        if (!w)
            return mpii_err_comm(c, MPI_ERR_NO_MEM, "MPI_Comm_group", "out of memory");
        for (int i = 0; i < c->size; i++)
            w[i] = mpii_comm_world_rank(c, i);
        c->group = mpii_group_new(c->size, w);
        free(w);
        if (!c->group)
            return mpii_err_comm(c, MPI_ERR_NO_MEM, "MPI_Comm_group", "out of memory");
    }
    c->group->refs++;
    *group = mpii_group_handle(c->group);
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_group)

int PMPI_Group_size(MPI_Group group, int *size)
{
    GROUP_GET(group, g, "MPI_Group_size");
    if (!size)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Group_size", "size is NULL");
    *size = g->size;
    return MPI_SUCCESS;
}
MPII_WEAK(Group_size)

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    GROUP_GET(group, g, "MPI_Group_rank");
    if (!rank)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Group_rank", "rank is NULL");
    *rank = g->rank;
    return MPI_SUCCESS;
}
MPII_WEAK(Group_rank)

int PMPI_Group_free(MPI_Group *group)
{
    mpii_check_init("MPI_Group_free");
    mpii_group_t *g = group ? mpii_group(*group) : NULL;
    if (!g)
        return mpii_err_comm(NULL, MPI_ERR_GROUP, "MPI_Group_free", "invalid group");
    mpii_group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Group_free)

/* Check n distinct ranks of g; fills mark[] (size g->size) with 1 for each. */
static int group_check_ranks(const mpii_group_t *g, int n, const int ranks[], char *mark,
                             const char *fn)
{
    if (n < 0 || n > g->size || (n > 0 && !ranks))
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid count %d (group size %d)", n,
                             g->size);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return mpii_err_comm(NULL, MPI_ERR_RANK, fn, "invalid rank %d (group size %d)",
                                 ranks[i], g->size);
        if (mark[ranks[i]])
            return mpii_err_comm(NULL, MPI_ERR_RANK, fn, "rank %d given twice", ranks[i]);
        mark[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

static int group_incl_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup,
                           int incl, const char *fn)
{
    GROUP_GET(group, g, fn);
    if (!newgroup)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "newgroup is NULL");
    char *mark = calloc((size_t)g->size + 1, 1);
    int *w = malloc(((size_t)g->size + 1) * sizeof(int));
    int err = !mark || !w ? mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory")
                          : group_check_ranks(g, n, ranks, mark, fn);
    if (err == MPI_SUCCESS) {
        int m = 0;
        if (incl)
            for (int i = 0; i < n; i++)
                w[m++] = g->world[ranks[i]];
        else
            for (int i = 0; i < g->size; i++)
                if (!mark[i])
                    w[m++] = g->world[i];
        err = group_out(mpii_group_new(m, w), newgroup, fn);
    }
    free(mark);
    free(w);
    return err;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return group_incl_excl(group, n, ranks, newgroup, 1, "MPI_Group_incl");
}
MPII_WEAK(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return group_incl_excl(group, n, ranks, newgroup, 0, "MPI_Group_excl");
}
MPII_WEAK(Group_excl)

/* Expand (first, last, stride) triplets into a rank list. */
static int group_ranges(const mpii_group_t *g, int n, int ranges[][3], int **out, int *count,
                        const char *fn)
{
    if (n < 0 || (n > 0 && !ranges))
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "invalid number of ranges %d", n);
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0 || first < 0 || first >= g->size || last < 0 || last >= g->size ||
            (stride > 0 && first > last) || (stride < 0 && first < last))
            return mpii_err_comm(NULL, MPI_ERR_RANK, fn,
                                 "invalid range (%d, %d, %d) for group size %d", first, last,
                                 stride, g->size);
        total += (last - first) / stride + 1;
        if (total > g->size)
            return mpii_err_comm(NULL, MPI_ERR_RANK, fn, "ranges name a rank twice");
    }
    int *r = malloc(((size_t)total + 1) * sizeof(int));
    if (!r)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    int m = 0;
    for (int i = 0; i < n; i++)
        for (int x = ranges[i][0];
             ranges[i][2] > 0 ? x <= ranges[i][1] : x >= ranges[i][1]; x += ranges[i][2])
            r[m++] = x;
    *out = r;
    *count = m;
    return MPI_SUCCESS;
}

static int group_range(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup, int incl,
                       const char *fn)
{
    GROUP_GET(group, g, fn);
    /* before the ranges: a NULL result is the argument error whatever they hold */
    if (!newgroup)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "newgroup is NULL");
    int *r = NULL, m = 0;
    int err = group_ranges(g, n, ranges, &r, &m, fn);
    if (err != MPI_SUCCESS)
        return err;
    err = group_incl_excl(group, m, r, newgroup, incl, fn);
    free(r);
    return err;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return group_range(group, n, ranges, newgroup, 1, "MPI_Group_range_incl");
}
MPII_WEAK(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return group_range(group, n, ranges, newgroup, 0, "MPI_Group_range_excl");
}
MPII_WEAK(Group_range_excl)

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    GROUP_GET(group1, a, "MPI_Group_translate_ranks");
    mpii_group_t *b = mpii_group(group2);
    if (!b)
        return mpii_err_comm(NULL, MPI_ERR_GROUP, "MPI_Group_translate_ranks", "invalid group");
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Group_translate_ranks",
                             "invalid count %d or NULL array", n);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (ranks1[i] < 0 || ranks1[i] >= a->size)
            return mpii_err_comm(NULL, MPI_ERR_RANK, "MPI_Group_translate_ranks",
                                 "invalid rank %d (group size %d)", ranks1[i], a->size);
        int j = group_find(b, a->world[ranks1[i]]);
        ranks2[i] = j < 0 ? MPI_UNDEFINED : j;
    }
    return MPI_SUCCESS;
}
MPII_WEAK(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    GROUP_GET(group1, a, "MPI_Group_compare");
    mpii_group_t *b = mpii_group(group2);
    if (!b || !result)
        return mpii_err_comm(NULL, b ? MPI_ERR_ARG : MPI_ERR_GROUP, "MPI_Group_compare",
                             "invalid group or NULL result");
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int same_order = 1, same_set = 1;
    for (int i = 0; i < a->size && same_set; i++) {
        same_order &= a->world[i] == b->world[i];
        same_set = group_find(b, a->world[i]) >= 0;
    }
    *result = !same_set ? MPI_UNEQUAL : same_order ? MPI_IDENT : MPI_SIMILAR;
    return MPI_SUCCESS;
}
MPII_WEAK(Group_compare)

enum { GROUP_UNION, GROUP_INTERSECTION, GROUP_DIFFERENCE };

/* Set operations keep the order of the first group, then (union) the second. */
static int group_setop(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, int op,
                       const char *fn)
{
    GROUP_GET(group1, a, fn);
    mpii_group_t *b = mpii_group(group2);
    if (!b)
        return mpii_err_comm(NULL, MPI_ERR_GROUP, fn, "invalid group");
    if (!newgroup)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "newgroup is NULL");
    int *w = malloc(((size_t)a->size + (size_t)b->size + 1) * sizeof(int));
    if (!w)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    int m = 0;
    for (int i = 0; i < a->size; i++) {
        int in_b = group_find(b, a->world[i]) >= 0;
        if (op == GROUP_UNION || (op == GROUP_INTERSECTION) == in_b)
            w[m++] = a->world[i];
    }
    if (op == GROUP_UNION)
        for (int i = 0; i < b->size; i++)
            if (group_find(a, b->world[i]) < 0)
                w[m++] = b->world[i];
    int err = group_out(mpii_group_new(m, w), newgroup, fn);
    free(w);
    return err;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop(group1, group2, newgroup, GROUP_UNION, "MPI_Group_union");
}
MPII_WEAK(Group_union)

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop(group1, group2, newgroup, GROUP_INTERSECTION, "MPI_Group_intersection");
}
MPII_WEAK(Group_intersection)

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop(group1, group2, newgroup, GROUP_DIFFERENCE, "MPI_Group_difference");
}
MPII_WEAK(Group_difference)
