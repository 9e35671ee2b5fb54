/* SPDX-License-Identifier: BSD-3-Clause */
/* Surviving failures (docs/reliability.md): revocation of a communicator (core/ulfm.c)
 * and the fault-tolerant agreement behind rmp_comm_agree and rmp_comm_shrink
 * (core/ulfm_agree.c). The state lives per context id, outside struct rmp_comm: a revoke
 * or an agreement message may come before the communicator is used here. */
#ifndef RMPI_ULFM_H
#define RMPI_ULFM_H

#include <stdint.h>

#include "comm.h"
#include "proto.h"

/* One decided agreement: flag AND, unacked OR, next_cid max, failed-member bitmap OR. */
typedef struct rmpi_ulfm_val {
    int32_t flag;
    uint8_t unacked;
    uint32_t next_cid;
    uint8_t *failed; /* (size + 7) / 8 bytes */
} rmpi_ulfm_val_t;

/* Contributions gathered by a coordinator for agreement seq. */
typedef struct rmpi_ulfm_coll {
    uint32_t seq;    /* 0: unused (agreements count from 1) */
    uint8_t *got;    /* per member */
    int adopt;       /* a member already had the decision: it is val */
    rmpi_ulfm_val_t val;
} rmpi_ulfm_coll_t;

typedef struct rmpi_ulfm_st {
    struct rmpi_ulfm_st *next;
    uint32_t cid;
    int size;
    int self;             /* this rank's member number (set by the agreement) */
    int revoked;
    int flooded;          /* this rank passed the revoke on to the members */
    uint8_t *acked;       /* per member: failure acknowledged (rmp_comm_failure_ack) */
    /* agreement */
    uint32_t seq;         /* agreements started here on this communicator */
    int active;           /* in agreement seq, undecided */
    int cur;              /* the coordinator this rank follows (only grows) */
    int sent_to;          /* where its contribution went (-1: nowhere yet) */
    int queried;          /* as coordinator: asked every member */
    int query_from;       /* a QUERY for an agreement not started yet: its coordinator */
    uint32_t query_seq;
    rmpi_ulfm_val_t mine;
    rmpi_ulfm_coll_t coll[2];        /* by seq & 1: a member may be one agreement ahead */
    uint32_t dec_seq[2];
    rmpi_ulfm_val_t dec[2];          /* the last two decisions, by seq & 1 */
} rmpi_ulfm_st_t;

/* Communicators revoked here so far (0 while none: nothing is looked up). */

/* The state of context cid with size members, created on first use (NULL: no memory). */
rmpi_ulfm_st_t *rmpi_ulfm_get(rmpi_engine_t *e, uint32_t cid, int size);
/* Send an FT message to member m (comm rank) of comm, if it is alive. */
void rmpi_ulfm_send(rmpi_engine_t *e, rmp_comm_t comm, int m, const rmpi_ftmsg_t *msg,
                    const uint8_t *bitmap);
/* Is comm revoked? Passes a received revoke on the first time comm is seen. */
int rmpi_ulfm_revoked(rmpi_engine_t *e, rmp_comm_t comm);
/* Fail the receives posted on revoked communicators since the revoke (a collective's
 * steps post theirs past the entry check): from the waits' periodic check. */
void rmpi_ulfm_sweep(rmpi_engine_t *e);
/* Handlers of the agreement's messages (core/ulfm_agree.c). */
void rmpi_ulfm_agree_on_msg(rmpi_engine_t *e, int src, const rmpi_ftmsg_t *m,
                            const uint8_t *bitmap);
void rmpi_ulfm_val_free(rmpi_ulfm_val_t *v);
/* Is req a pending receive from RMP_ANY_SOURCE on its communicator's own context (not a
 * collective's) while a member of that communicator has failed unacknowledged (ULFM's
 * MPI_ERR_PROC_FAILED_PENDING)? Under the engine lock. */
int rmpi_ulfm_anysrc_stalled(rmpi_engine_t *e, rmp_request_t req);
/* Engine start / teardown. */
void rmpi_ulfm_register(rmpi_engine_t *e);
void rmpi_ulfm_fini(rmpi_engine_t *e);
/* A communicator is destroyed: forget its state. */
void rmpi_ulfm_forget(rmpi_engine_t *e, uint32_t cid);

#endif
