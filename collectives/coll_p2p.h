/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point on the collective context (coll_p2p.c). Every collective runs over
 * point-to-point messages on the communicator's collective context, so it never matches
 * a user receive. Context id and tag layout belong to core/api/coll_id.h: each collective call
 * takes a tag base from coll_next_tag and adds its phase (< COLL_SUB_MAX). Within a phase,
 * messages between a pair are matched in the order they were sent; the algorithms post
 * receives in the order their peers send. */
#ifndef COLL_P2P_H
#define COLL_P2P_H

#include "coll_core.h"

#define COLL_SUB_MAX RMPI_COLL_PHASE_MAX

static inline uint32_t coll_cid(rmp_comm_t comm)
{
    return rmpi_cid_coll(comm);
}

/* Tag base of a new collective call on comm (phase 0). */
static inline int coll_next_tag(rmp_comm_t comm)
{
    return rmpi_coll_next_tag(comm);
}

/* Wait for req and free it. A receive that got fewer bytes than posted means the ranks
 * passed different counts: RMP_ERR_ARG. */
int coll_wait(rmp_request_t req);
/* The same for a request known to be done. */
int coll_req_finish(rmp_request_t req);
/* Wait for and free reqs[0..n); the first error. */
int coll_waitn(rmp_request_t *reqs, int n);
int coll_send(const void *buf, size_t bytes, int dst, int tag, rmp_comm_t comm);
int coll_recv(void *buf, size_t bytes, int src, int tag, rmp_comm_t comm);
/* Send to dst and receive from src at the same time. A side with 0 bytes is skipped (the
 * peer computes the same size), and dst or src < 0 skips that side too. */
int coll_sendrecv(const void *sbuf, size_t sbytes, int dst, void *rbuf, size_t rbytes,
                  int src, int tag, rmp_comm_t comm);

/* One step with every other rank at once: receive rbytes from each rank i into
 * rbuf + i * rstride and send sbytes from sbuf + i * sstride to each rank i (stride 0: the
 * same data to all), then wait for all. A NULL buffer skips that side. Zero-byte messages
 * are sent (barrier). */
int coll_exchange_all(const char *sbuf, size_t sstride, size_t sbytes, char *rbuf,
                      size_t rstride, size_t rbytes, rmp_comm_t comm, int tag);

#endif /* COLL_P2P_H */
