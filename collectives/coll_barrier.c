/* Barrier. Dissemination (Hensgen, Finkel, Manber): in round k every rank signals rank
 * + 2^k and waits for rank - 2^k; after ceil(log2 n) rounds every rank has heard,
 * transitively, from every other; any n, no extra step. Direct: every rank signals every
 * other and waits for all, one round of n - 1 messages: fewer scheduling rounds when the
 * ranks outnumber the cores, for small n. */
#include "coll.h"

static int barrier_round(const int *to, const int *from, int k, rmp_comm_t comm, int tag)
{
    static char dummy;
    rmp_request_t stack[32], *reqs = k <= 16 ? stack : malloc(2 * (size_t)k * sizeof(*reqs));
    int nreq = 0, rc = RMP_SUCCESS;
    if (!reqs)
        return RMP_ERR_NOMEM;
    for (int i = 0; i < k && rc == RMP_SUCCESS; i++) {
        rc = rmpi_irecv_cid(&dummy, 0, from[i], tag, comm, coll_cid(comm), &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    for (int i = 0; i < k && rc == RMP_SUCCESS; i++) {
        rc = rmpi_isend_cid(&dummy, 0, to[i], tag, comm, coll_cid(comm), &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    int wrc = coll_waitn(reqs, nreq);
    if (reqs != stack)
        free(reqs);
    return rc != RMP_SUCCESS ? rc : wrc;
}

RMP_EXPORT int rmp_barrier(rmp_comm_t comm)
{
    int rc = rmpi_comm_check(comm), algo;
    if (rc != RMP_SUCCESS || (rc = coll_select(COLL_BARRIER, 0, comm->size, &algo)) != RMP_SUCCESS)
        return rc;
    int n = comm->size, rank = comm->rank, tag = coll_next_tag(comm);
    if (algo == COLL_BARRIER_DIRECT && n > 2) {
        int k = 0, stack[2][16], *to = stack[0], *from = stack[1];
        if (n > 17 && !(to = malloc(2 * (size_t)n * sizeof(int))))
            return RMP_ERR_NOMEM;
        if (n > 17)
            from = to + n;
        for (int s = 1; s < n; s++, k++) {
            to[k] = (rank + s) % n;
            from[k] = (rank - s + n) % n;
        }
        rc = barrier_round(to, from, k, comm, tag);
        if (n > 17)
            free(to);
        return rc;
    }
    for (int k = 1, round = 0; k < n && rc == RMP_SUCCESS; k <<= 1, round++) {
        int to = (rank + k) % n, from = (rank - k + n) % n;
        rc = barrier_round(&to, &from, 1, comm, tag + round);
    }
    return rc;
}
