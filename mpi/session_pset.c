/* SPDX-License-Identifier: BSD-3-Clause */
/* Process sets of a session: the two the standard requires, mpi://WORLD (every process
 * of the job) and mpi://SELF (the caller), and mpix://SHARED, the processes on the
 * caller's node (Open MPI's name; the members of an MPI_COMM_TYPE_SHARED split of the
 * world). Names are matched without regard to case. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpii.h"
#include "mpii_session.h"

static const char *const pset_names[] = {"mpi://WORLD", "mpi://SELF", "mpix://SHARED"};
enum { PSET_WORLD, PSET_SELF, PSET_SHARED };
#define PSET_N ((int)(sizeof(pset_names) / sizeof(pset_names[0])))

/* Index of a pset name, -1 when unknown. */
static int pset_find(const char *name)
{
    for (int i = 0; i < PSET_N; i++)
        if (strcasecmp(name, pset_names[i]) == 0)
            return i;
    return -1;
}

static int pset_size(int i)
{
    int n = 1;
    if (i == PSET_WORLD)
        n = mpii_comm_world.size;
    else if (i == PSET_SHARED && rmp_node_ranks(NULL, 0, &n) != RMP_SUCCESS)
        n = 1;
    return n;
}

/* The world ranks of pset i (*n of them), in a new array; NULL when out of memory. */
static int *pset_members(int i, int *n)
{
    *n = pset_size(i);
    int *w = malloc((size_t)*n * sizeof(int));
    if (!w)
        return NULL;
    if (i == PSET_SHARED && rmp_node_ranks(w, *n, n) == RMP_SUCCESS)
        return w;
    for (int r = 0; r < *n; r++)
        w[r] = i == PSET_WORLD ? r : mpii_comm_world.rank;
    return w;
}

#define SESSION_GET(h, s, fn)                                                              \
    mpii_session_t *s = mpii_session(h);                                                   \
    if (!s)                                                                                \
        return mpii_err_session(NULL, MPI_ERR_SESSION, fn, "invalid session");

/* No info key selects psets: info must only be valid or null. */
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    const char *fn = "MPI_Session_get_num_psets";
    SESSION_GET(session, s, fn);
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_session(s, MPI_ERR_INFO, fn, "invalid info");
    if (!npset_names)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "npset_names is NULL");
    *npset_names = PSET_N;
    return MPI_SUCCESS;
}
MPII_WEAK(Session_get_num_psets)

/* *pset_len 0: the length (with the NUL) only; otherwise at most *pset_len bytes of the
 * name, truncated, and *pset_len its full length. */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    const char *fn = "MPI_Session_get_nth_pset";
    SESSION_GET(session, s, fn);
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_session(s, MPI_ERR_INFO, fn, "invalid info");
    if (n < 0 || n >= PSET_N)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "no pset %d (there are %d)", n, PSET_N);
    if (!pset_len || *pset_len < 0)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "pset_len is NULL or negative");
    int len = (int)strlen(pset_names[n]) + 1;
    if (*pset_len == 0) {
        *pset_len = len;
        return MPI_SUCCESS;
    }
    if (!pset_name)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "pset_name is NULL with pset_len %d",
                                *pset_len);
    int copy = *pset_len < len ? *pset_len : len;
    memcpy(pset_name, pset_names[n], (size_t)copy - 1);
    pset_name[copy - 1] = '\0';
    *pset_len = len;
    return MPI_SUCCESS;
}
MPII_WEAK(Session_get_nth_pset)

/* The pset's "mpi_size" (MPI-4.1 11.3.2). */
int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    const char *fn = "MPI_Session_get_pset_info";
    SESSION_GET(session, s, fn);
    if (!pset_name || !info)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "pset_name or info is NULL");
    int i = pset_find(pset_name);
    if (i < 0)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "no pset named \"%s\"", pset_name);
    char size[16];
    snprintf(size, sizeof(size), "%d", pset_size(i));
    int err = PMPI_Info_create(info);
    if (err == MPI_SUCCESS)
        err = PMPI_Info_set(*info, "mpi_size", size);
    if (err != MPI_SUCCESS)
        return mpii_err_session(s, err, fn, "cannot fill the info");
    return MPI_SUCCESS;
}
MPII_WEAK(Session_get_pset_info)

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                 MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_from_session_pset";
    SESSION_GET(session, s, fn);
    if (!pset_name || !newgroup)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "pset_name or newgroup is NULL");
    int i = pset_find(pset_name);
    if (i < 0)
        return mpii_err_session(s, MPI_ERR_ARG, fn, "no pset named \"%s\"", pset_name);
    int n;
    int *w = pset_members(i, &n);
    if (!w)
        return mpii_err_session(s, MPI_ERR_NO_MEM, fn, "out of memory");
    mpii_group_t *g = mpii_group_new(n, w);
    free(w);
    if (!g)
        return mpii_err_session(s, MPI_ERR_NO_MEM, fn, "out of memory");
    if (g != &mpii_group_empty)
        g->sbs = &s->bs;
    *newgroup = mpii_group_handle(g);
    return MPI_SUCCESS;
}
MPII_WEAK(Group_from_session_pset)
