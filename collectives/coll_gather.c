/* Gather and scatter, linear: the root posts every receive (sends) at once, so the
 * transfers proceed in parallel and the root's link is the only bottleneck.
 *
 * RMP_IN_PLACE (MPI semantics), at the root only: gather with sbuf = RMP_IN_PLACE takes
 * the root's block as already in place in rbuf; scatter with rbuf = RMP_IN_PLACE leaves
 * the root's block in sbuf and copies nothing. rbuf of gather and sbuf of scatter matter
 * at the root only. */
#include "coll.h"

/* Post one request per non-root rank on block i of buf, and wait for them all. */
static int coll_linear(char *buf, size_t blk, int root, int send, rmp_comm_t comm, int tag)
{
    int n = comm->size, nreq = 0, rc = RMP_SUCCESS;
    rmp_request_t stack[64];
    rmp_request_t *reqs = n <= 64 ? stack : malloc((size_t)n * sizeof(*reqs));
    if (!reqs)
        return RMP_ERR_NOMEM;
    for (int i = 0; i < n && rc == RMP_SUCCESS; i++) {
        if (i == root)
            continue;
        char *p = buf + (size_t)i * blk;
        rc = send ? rmpi_isend_cid(p, blk, i, tag, comm, coll_cid(comm), &reqs[nreq])
                  : rmpi_irecv_cid(p, blk, i, tag, comm, coll_cid(comm), &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    int wrc = coll_waitn(reqs, nreq);
    if (reqs != stack)
        free(reqs);
    return rc != RMP_SUCCESS ? rc : wrc;
}

static int coll_gs_check(const void *buf, int is_root, int in_place_ok, const char *what,
                         size_t count, rmp_datatype_t dt, rmp_comm_t comm, size_t *blk)
{
    int rc = coll_check_buf(buf, is_root && in_place_ok, what);
    return rc != RMP_SUCCESS ? rc
                             : coll_bytes(count, rmp_datatype_size(dt), (size_t)comm->size, blk);
}

RMP_EXPORT int rmp_gather(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                          int root, rmp_comm_t comm)
{
    int rc = rmpi_comm_check(comm);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt(dt);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    int is_root = comm->rank == root;
    size_t total, blk = count * rmp_datatype_size(dt);
    if ((rc = coll_gs_check(sbuf, is_root, 1, "sbuf", count, dt, comm, &total)) != RMP_SUCCESS ||
        (is_root && (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS))
        return rc;
    int tag = coll_next_tag(comm);
    if (!is_root)
        return coll_send(sbuf, blk, root, tag, comm);
    char *mine = (char *)rbuf + (size_t)root * blk;
    if (sbuf != RMP_IN_PLACE && sbuf != mine)
        memcpy(mine, sbuf, blk);
    return coll_linear(rbuf, blk, root, 0, comm, tag);
}

RMP_EXPORT int rmp_scatter(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                           int root, rmp_comm_t comm)
{
    int rc = rmpi_comm_check(comm);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt(dt);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    int is_root = comm->rank == root;
    size_t total, blk = count * rmp_datatype_size(dt);
    if ((rc = coll_gs_check(rbuf, is_root, 1, "rbuf", count, dt, comm, &total)) != RMP_SUCCESS ||
        (is_root && (rc = coll_check_buf(sbuf, 0, "sbuf")) != RMP_SUCCESS))
        return rc;
    int tag = coll_next_tag(comm);
    if (!is_root)
        return coll_recv(rbuf, blk, root, tag, comm);
    const char *mine = (const char *)sbuf + (size_t)root * blk;
    if (rbuf != RMP_IN_PLACE && rbuf != mine)
        memcpy(rbuf, mine, blk);
    return coll_linear((char *)sbuf, blk, root, 1, comm, tag);
}
