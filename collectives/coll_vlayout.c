/* SPDX-License-Identifier: BSD-3-Clause */
/* The v-collectives on layouts (rmp_gatherv_layout, rmp_scatterv_layout,
 * rmp_allgatherv_layout, rmp_alltoallv_layout): each block is a layout, which core's point-to-point packs and
 * unpacks piece by piece as the message moves, so non-contiguous blocks need no
 * whole-message copy. The messages, tags and algorithms are those of coll_v.c (linear at
 * the root, the allgather or the ring, pairwise exchange), so a rank may call the layout form while the others call
 * the plain one. A layout with NULL callbacks is the plain bytes at ctx. */
#include <stdlib.h>
#include <string.h>

#include "coll_blocks.h"
#include "coll_check.h"
#include "coll_core.h"
#include "coll_p2p.h"
#include "coll_vlayout.h"
#include "log.h"

/* Transfers a root keeps in flight: each layout transfer holds core's piece buffers. */
#define VL_WINDOW 8
/* The stack buffer of a layout-to-layout copy (the own block). */
#define VL_COPY_PIECE ((size_t)16 << 10)

static int vl_check(const rmp_layout_t *l, const char *call)
{
    if (l && (coll_layout_plain(l) ? l->ctx != NULL : l->pack && l->unpack))
        return RMP_SUCCESS;
    rmpi_error("%s: a layout is NULL, has one callback of two, or plain bytes at NULL", call);
    return RMP_ERR_ARG;
}

int coll_layouts_check(const rmp_layout_t *lays, const size_t *bytes, int n, const char *call)
{
    if (!lays || !bytes) {
        rmpi_error("%s: a layout or count array is NULL", call);
        return RMP_ERR_ARG;
    }
    for (int i = 0; i < n; i++)
        if (bytes[i] && vl_check(&lays[i], call) != RMP_SUCCESS)
            return RMP_ERR_ARG;
    return RMP_SUCCESS;
}

static int vl_isend(const rmp_layout_t *l, size_t bytes, int peer, int tag, rmp_comm_t comm,
                    rmp_request_t *req)
{
    return coll_layout_plain(l)
               ? rmpi_isend_cid(l->ctx, bytes, peer, tag, comm, coll_cid(comm), req)
               : rmpi_isend_layout_cid(l, bytes, peer, tag, comm, coll_cid(comm), 0, req);
}

static int vl_irecv(const rmp_layout_t *l, size_t bytes, int peer, int tag, rmp_comm_t comm,
                    rmp_request_t *req)
{
    return coll_layout_plain(l)
               ? rmpi_irecv_cid(l->ctx, bytes, peer, tag, comm, coll_cid(comm), req)
               : rmpi_irecv_layout_cid(l, bytes, peer, tag, comm, coll_cid(comm), req);
}

void coll_layout_copy(const rmp_layout_t *dst, const rmp_layout_t *src, size_t bytes)
{
    if (coll_layout_plain(src) && coll_layout_plain(dst)) {
        if (bytes && src->ctx != dst->ctx)
            memmove(dst->ctx, src->ctx, bytes);
        return;
    }
    char tmp[VL_COPY_PIECE];
    for (size_t off = 0, len; off < bytes; off += len) {
        len = bytes - off < VL_COPY_PIECE ? bytes - off : VL_COPY_PIECE;
        if (coll_layout_plain(src))
            dst->unpack(dst->ctx, off, (const char *)src->ctx + off, len);
        else if (coll_layout_plain(dst))
            src->pack(src->ctx, off, (char *)dst->ctx + off, len);
        else {
            src->pack(src->ctx, off, tmp, len);
            dst->unpack(dst->ctx, off, tmp, len);
        }
    }
}

/* As coll_sendrecv, on layouts (zero bytes: no message). */
static int vl_sendrecv(const rmp_layout_t *s, size_t sbytes, int to, const rmp_layout_t *r,
                       size_t rbytes, int from, int tag, rmp_comm_t comm)
{
    rmp_request_t reqs[2];
    int nreq = 0, rc = RMP_SUCCESS;
    if (rbytes) {
        rc = vl_irecv(r, rbytes, from, tag, comm, &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    if (rc == RMP_SUCCESS && sbytes) {
        rc = vl_isend(s, sbytes, to, tag, comm, &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    int wrc = coll_waitn(reqs, nreq);
    return rc != RMP_SUCCESS ? rc : wrc;
}

/* The own block: the first min(sbytes, rbytes) bytes of s's stream into r's. */
static void vl_copy(const rmp_layout_t *s, size_t sbytes, const rmp_layout_t *r, size_t rbytes)
{
    coll_layout_copy(r, s, sbytes < rbytes ? sbytes : rbytes);
}

/* The root's side: every other rank's block, VL_WINDOW transfers at a time. */
static int vl_root(const rmp_layout_t *lays, const size_t *bytes, int is_recv, rmp_comm_t comm,
                   int tag)
{
    int n = comm->size, rank = comm->rank, rc = RMP_SUCCESS;
    rmp_request_t reqs[VL_WINDOW];
    for (int k = 1; k < n && rc == RMP_SUCCESS;) {
        int nreq = 0;
        for (; k < n && nreq < VL_WINDOW && rc == RMP_SUCCESS; k++) {
            int p = (rank + k) % n;
            if (bytes[p] == 0)
                continue;
            rc = is_recv ? vl_irecv(&lays[p], bytes[p], p, tag, comm, &reqs[nreq])
                         : vl_isend(&lays[p], bytes[p], p, tag, comm, &reqs[nreq]);
            nreq += rc == RMP_SUCCESS;
        }
        int wrc = coll_waitn(reqs, nreq);
        if (rc == RMP_SUCCESS)
            rc = wrc;
    }
    return rc;
}

/* gatherv (is_gather: the one block is sent) or scatterv (received). */
static int vl_rooted(int is_gather, const rmp_layout_t *one, size_t one_bytes,
                     const rmp_layout_t *lays, const size_t *bytes, int root, rmp_comm_t comm,
                     const char *call)
{
    int rc = coll_check_comm(comm, call);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (comm->rank != root) {
        if (one_bytes && (rc = vl_check(one, call)) != RMP_SUCCESS)
            return rc;
        int tag = coll_next_tag(comm);
        if (!one_bytes)
            return RMP_SUCCESS;
        rmp_request_t req;
        rc = is_gather ? vl_isend(one, one_bytes, root, tag, comm, &req)
                       : vl_irecv(one, one_bytes, root, tag, comm, &req);
        return rc != RMP_SUCCESS ? rc : coll_wait(req);
    }
    if ((rc = coll_layouts_check(lays, bytes, comm->size, call)) != RMP_SUCCESS ||
        (one && one_bytes && (rc = vl_check(one, call)) != RMP_SUCCESS))
        return rc;
    int tag = coll_next_tag(comm);
    if (one && bytes[root]) { /* NULL: in place */
        if (is_gather)
            vl_copy(one, one_bytes, &lays[root], bytes[root]);
        else
            vl_copy(&lays[root], bytes[root], one, one_bytes);
    }
    return vl_root(lays, bytes, is_gather, comm, tag);
}

RMP_EXPORT int rmp_gatherv_layout(const rmp_layout_t *slay, size_t sbytes,
                                  const rmp_layout_t *rlays, const size_t *rbytes, int root,
                                  rmp_comm_t comm)
{
    return vl_rooted(1, slay, sbytes, rlays, rbytes, root, comm, "rmp_gatherv_layout");
}

RMP_EXPORT int rmp_scatterv_layout(const rmp_layout_t *slays, const size_t *sbytes,
                                   const rmp_layout_t *rlay, size_t rbytes, int root,
                                   rmp_comm_t comm)
{
    return vl_rooted(0, rlay, rbytes, slays, sbytes, root, comm, "rmp_scatterv_layout");
}

RMP_EXPORT int rmp_alltoallv_layout(const rmp_layout_t *slays, const size_t *sbytes,
                                    const rmp_layout_t *rlays, const size_t *rbytes,
                                    rmp_comm_t comm)
{
    static const char call[] = "rmp_alltoallv_layout";
    int rc = coll_check_comm(comm, call);
    if (rc == RMP_SUCCESS)
        rc = coll_layouts_check(slays, sbytes, comm ? comm->size : 0, call);
    if (rc == RMP_SUCCESS)
        rc = coll_layouts_check(rlays, rbytes, comm->size, call);
    if (rc != RMP_SUCCESS)
        return rc;
    int n = comm->size, rank = comm->rank;
    if (rbytes[rank])
        vl_copy(&slays[rank], sbytes[rank], &rlays[rank], rbytes[rank]);
    int tag = coll_next_tag(comm);
    /* Pairwise, as rmp_alltoallv: step k sends to rank + k, receives from rank - k. */
    for (int k = 1; k < n && rc == RMP_SUCCESS; k++) {
        int to = (rank + k) % n, from = (rank - k + n) % n;
        rc = vl_sendrecv(&slays[to], sbytes[to], to, &rlays[from], rbytes[from], from, tag, comm);
    }
    return rc;
}

/* Equal blocks, n * blk <= COLL_V_SCRATCH: the regular allgather in scratch, as the plain
 * form does for blocks that land apart. */
static int vl_allgather_small(const rmp_layout_t *slay, size_t sbytes, const rmp_layout_t *rlays,
                              size_t blk, rmp_comm_t comm)
{
    int n = comm->size, rank = comm->rank;
    char *tmp = malloc(blk * (size_t)n);
    if (!tmp)
        return RMP_ERR_NOMEM;
    rmp_layout_t mine = {.ctx = tmp + (size_t)rank * blk};
    if (slay)
        vl_copy(slay, sbytes, &mine, blk);
    else
        vl_copy(&rlays[rank], blk, &mine, blk);
    int rc = rmp_allgather(RMP_IN_PLACE, tmp, blk, RMP_UINT8, comm);
    for (int i = 0; i < n && rc == RMP_SUCCESS; i++) {
        rmp_layout_t from = {.ctx = tmp + (size_t)i * blk};
        if (i != rank || slay)
            vl_copy(&from, blk, &rlays[i], blk);
    }
    free(tmp);
    return rc;
}

RMP_EXPORT int rmp_allgatherv_layout(const rmp_layout_t *slay, size_t sbytes,
                                     const rmp_layout_t *rlays, const size_t *rbytes,
                                     rmp_comm_t comm)
{
    static const char call[] = "rmp_allgatherv_layout";
    int rc = coll_check_comm(comm, call);
    if (rc == RMP_SUCCESS)
        rc = coll_layouts_check(rlays, rbytes, comm->size, call);
    if (rc == RMP_SUCCESS && slay && sbytes)
        rc = vl_check(slay, call);
    if (rc != RMP_SUCCESS)
        return rc;
    int n = comm->size, rank = comm->rank, same = 1;
    for (int i = 0; i < n; i++)
        same &= rbytes[i] == rbytes[0];
    if (same && rbytes[0] > 0) { /* the choices of rmp_allgatherv, made alike */
        if (rbytes[0] * (size_t)n <= COLL_V_SCRATCH)
            return vl_allgather_small(slay, sbytes, rlays, rbytes[0], comm);
        int packed = 0; /* agree with the plain form: not every rank packed, so the ring */
        if ((rc = rmp_allreduce(RMP_IN_PLACE, &packed, 1, RMP_INT32, RMP_MIN, comm)) !=
            RMP_SUCCESS)
            return rc;
    }
    if (slay && rbytes[rank])
        vl_copy(slay, sbytes, &rlays[rank], rbytes[rank]);
    int tag = coll_next_tag(comm), right = (rank + 1) % n, left = (rank - 1 + n) % n;
    /* The ring of rmp_allgatherv: step k passes on the block of rank - k and takes the
     * block of rank - k - 1 (sent from the layout it was received into). */
    for (int k = 0; k < n - 1 && rc == RMP_SUCCESS; k++) {
        int sb = (rank - k + n) % n, rb = (rank - k - 1 + n) % n;
        rc = vl_sendrecv(&rlays[sb], rbytes[sb], right, &rlays[rb], rbytes[rb], left, tag, comm);
    }
    return rc;
}
