/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared-memory collectives on a single-node communicator (coll_shm.c). */
#ifndef COLL_SHM_H
#define COLL_SHM_H

#include "coll_comm.h"

/* Attach comm's segment on first use (collective: every rank of comm calls it at the same
 * point). 1 when the shm algorithm can run, 0 when not (more than one node, one rank, or
 * the segment could not be made); the same answer on every rank. */
int coll_shm_setup(rmp_comm_t comm);
static inline int coll_shm_ready(rmp_comm_t comm)
{
    const coll_comm_t *cc = comm->coll_priv;
    return RMPI_LIKELY(cc && cc->shm_state == 1) ? 1 : coll_shm_setup(comm);
}
/* Bytes of a slot (the pipeline step; the same on every rank). Needs coll_shm_ready. The
 * algorithms cut vectors between elements: elements larger than their piece (RMP_OPAQUE)
 * must take another algorithm. */
size_t coll_shm_slot_bytes(rmp_comm_t comm);
/* rbuf = x0 op x1 op ... op xn-1 in rank order (bitwise identical everywhere). Needs
 * coll_shm_ready(comm) == 1. src may be rbuf (in place). */
int coll_shm_allreduce(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
                       rmp_op_t op, rmp_comm_t comm);
/* 2 ranks: 1 when a call of `bytes` (elements of es bytes) takes the single-copy
 * allreduce (coll_shm_cma.c): from RMP_COLL_SHM_CMA bytes, where the kernel lets the ranks
 * reach each other's memory (decided on the first such call, collectively, then kept).
 * Every rank gives the same answer (comm rank 0's RMP_COLL_SHM_CMA). */
int coll_shm_cma_ready(rmp_comm_t comm, size_t bytes, size_t es);
/* The same result as coll_shm_allreduce, by cross-memory attach (needs cma_ready). */
int coll_shm_allreduce_cma(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
                           rmp_op_t op, rmp_comm_t comm);
/* Barrier and bcast through the same segment (same precondition). */
int coll_shm_barrier(rmp_comm_t comm);
int coll_shm_bcast(void *buf, size_t bytes, int root, rmp_comm_t comm);
/* rbuf[r * blk ..] = rank r's block; src may be rbuf + rank * blk (in place). */
int coll_shm_allgather(const void *src, void *rbuf, size_t blk, rmp_comm_t comm);
/* rbuf[r * blk ..] = rank r's block for me; src may be rbuf (in place). */
int coll_shm_alltoall(const void *src, void *rbuf, size_t blk, rmp_comm_t comm);
/* rbuf[0 .. count) = block `rank` of x0 op x1 op ... op xn-1 in rank order; src (n blocks
 * of count elements) may be rbuf (in place). */
int coll_shm_reduce_scatter(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
                            rmp_op_t op, rmp_comm_t comm);
void coll_shm_free(coll_shm_t *s);

#endif /* COLL_SHM_H */
