/* SPDX-License-Identifier: BSD-3-Clause */
/* Wire formats of the point-to-point protocol (docs/protocols.md): the one
 * enum of message ids, whose handlers core/am.c dispatches to. */
#ifndef RMPI_PROTO_H
#define RMPI_PROTO_H

#include <stddef.h>
#include <stdint.h>

enum {
    RMPI_MSG_EAGER = 1,     /* rmpi_hdr_t, payload = the whole message */
    RMPI_MSG_RTS = 2,       /* rmpi_rts_t, no payload: receiver pulls */
    RMPI_MSG_FIN = 3,       /* rmpi_fin_t: rendezvous done, sender completes */
    RMPI_MSG_FRAG_FIRST = 4,/* rmpi_rts_t + first chunk: fragmented message */
    RMPI_MSG_FRAG = 5,      /* rmpi_hdr_t (type only) + next chunk, same pair */
    RMPI_MSG_CTS = 6,       /* rmpi_cts_t: receiver's buffer for an RNDV_PUT transport */
    RMPI_MSG_RMA = 7,       /* rmpi_rma_t: emulated one-sided operation (core/rma.c) */
    RMPI_MSG_FAILED = 8,    /* rmpi_failnote_t: a rank its sender saw fail (core/failure.c) */
    RMPI_MSG_FT = 9,        /* rmpi_ftmsg_t: revoke and agreement (core/ulfm*.c) */
    RMPI_MSG_CANCEL = 10,   /* rmpi_cancel_t: cancel of a send, and its answer (core/cancel.c) */
    RMPI_MSG_MAX            /* one past the last id: the size of the handler table (am.c) */
};

/* rmpi_hdr_t.flags */
enum {
    RMPI_HDR_SYNC = 1,  /* synchronous send: the receiver answers FIN(sreq) once matched */
    RMPI_HDR_LAYOUT = 2 /* RTS of data in the sender's layout: no address to read, answer CTS */
};

/* Matching header: carried by every message that a receive matches. */
typedef struct rmpi_hdr {
    uint8_t type;
    uint8_t flags;
    uint16_t reserved;
    uint32_t cid; /* context id of the communicator */
    int32_t src;  /* sender's rank in that communicator */
    int32_t tag;
} rmpi_hdr_t; /* 16 bytes */

typedef struct rmpi_rts {
    rmpi_hdr_t h;
    uint64_t size; /* whole message */
    uint64_t sreq; /* sender's request, echoed in FIN */
    uint64_t addr; /* sender's buffer */
    uint64_t key;  /* transport key of the sender's buffer (RNDV_GET) */
} rmpi_rts_t;

/* Completes the request named by req on the side that receives it: the
 * sender's (RNDV_GET: the receiver has read) or the receiver's (RNDV_PUT:
 * the sender has written; ordered after the write on the same endpoint). */
typedef struct rmpi_fin {
    uint8_t type;
    uint8_t reserved[3];
    int32_t status; /* RMP_SUCCESS, or why the data did not move */
    uint64_t req;
} rmpi_fin_t;

/* "Rank `rank` failed": sent to every other rank by one that saw it fail through
 * its own transport (ranks with no traffic to it would otherwise not learn of it). */
typedef struct rmpi_failnote {
    uint8_t type;
    uint8_t reserved[3];
    int32_t rank; /* world rank */
} rmpi_failnote_t;

/* Fault tolerance (core/ulfm.c, core/ulfm_agree.c), on the control path. */
enum {
    RMPI_FT_REVOKE = 1,  /* the communicator cid is revoked (flooded) */
    RMPI_FT_CONTRIB = 2, /* a member's part of agreement seq, to its coordinator */
    RMPI_FT_QUERY = 3,   /* a new coordinator asks each member for its part */
    RMPI_FT_RESULT = 4   /* the decision of agreement seq */
};
typedef struct rmpi_ftmsg {
    uint8_t type;     /* RMPI_MSG_FT */
    uint8_t op;       /* RMPI_FT_* */
    uint8_t decided;  /* CONTRIB: the values are a decision the sender already has */
    uint8_t unacked;  /* failed members not acknowledged (agreement: OR) */
    uint32_t cid;     /* the communicator's point-to-point context */
    uint32_t seq;     /* agreement number on it */
    int32_t flag;     /* agreement: AND */
    uint32_t next_cid; /* agreement: max (rmp_comm_shrink's new context) */
    uint32_t size;    /* members; payload: failed-member bitmap of (size + 7) / 8 bytes */
    int32_t from;     /* the sender's rank in the communicator */
    uint32_t reserved2;
} rmpi_ftmsg_t; /* 32 bytes */

/* Cancel of a send (core/cancel.c). REQ goes to the receiver behind the message
 * itself (same pair, same order); the receiver takes the message out of its
 * unexpected queue if no receive has it yet and answers REP to the sender. An
 * eager message is named by its envelope, size and payload (carried by REQ: any
 * of several identical unmatched copies is the same to the receiver), the others
 * by envelope and sreq. */
enum { RMPI_CANCEL_REQ = 1, RMPI_CANCEL_REP = 2 };
typedef struct rmpi_cancel {
    uint8_t type;      /* RMPI_MSG_CANCEL */
    uint8_t op;        /* RMPI_CANCEL_* */
    uint8_t waiting;   /* the sender's request waits for REP (it had completed locally) */
    uint8_t cancelled; /* REP: the message was taken back */
    uint32_t cid;
    int32_t src;       /* sender's rank in the communicator */
    int32_t tag;
    uint64_t size;     /* whole message */
    uint64_t sreq;     /* the sender's request, echoed in REP */
} rmpi_cancel_t; /* 32 bytes */

typedef struct rmpi_cts {
    uint8_t type;
    uint8_t more; /* 1: another CTS follows for the rest (a layout receive's pieces) */
    uint8_t nseg; /* > 0: the range goes to the receiver's nseg segments, the payload
                   * (struct iovec each, its addresses), by the transport's copyv */
    uint8_t reserved;
    int32_t status;
    uint64_t sreq; /* from the RTS */
    uint64_t rreq; /* echoed in the FIN */
    uint64_t addr; /* receiver's buffer */
    uint64_t key;  /* its rkey */
    uint64_t len;  /* bytes to write: min(message, receive buffer) */
    uint64_t off;  /* where in the message they start (0 but for a layout receive) */
} rmpi_cts_t;

enum {
    RMPI_RMA_PUT = 1,      /* payload = data for [offset, offset+len); answered by ACK;
                            * req 0: a non-blocking put, compare = the origin's window id */
    RMPI_RMA_GET = 2,      /* answered by GET_REP chunks */
    RMPI_RMA_GET_REP = 3,  /* payload = data of [offset, offset+plen) */
    RMPI_RMA_FADD = 4,     /* operand; answered by AMO_REP */
    RMPI_RMA_CSWAP = 5,    /* operand (swap), compare; answered by AMO_REP */
    RMPI_RMA_AMO_REP = 6,  /* operand = old value */
    RMPI_RMA_ACK = 7       /* req and compare echoed */
};

/* Emulated one-sided operation, executed by the target's progress engine. */
typedef struct rmpi_rma {
    uint8_t type; /* RMPI_MSG_RMA */
    uint8_t op;   /* RMPI_RMA_* */
    uint16_t reserved;
    int32_t status;  /* replies: RMP_SUCCESS or RMP_ERR_ACCESS */
    uint32_t win_id; /* the target's window id */
    uint32_t reserved2;
    uint64_t offset;
    uint64_t len;
    uint64_t req;    /* origin's operation, echoed in replies */
    uint64_t operand;
    uint64_t compare; /* CSWAP; a non-blocking put's window at its origin */
} rmpi_rma_t; /* 56 bytes */

/* core/proto.c: validation of what peers send, before anything is used.
 * Each returns RMP_SUCCESS or RMP_ERR_TRANSPORT with a reason in *why.
 *
 * rmpi_proto_check: is (hdr, hlen, plen), as a transport delivered it, a
 * well-formed message? The header length is exactly the sender's struct,
 * statuses are rmp codes, sizes agree with the payload (a FRAG_FIRST never
 * carries more than its message). hdr is 8-byte aligned (transports deliver
 * it so). Request handles echoed back (sreq, rreq, req) are not checked:
 * only their owner could, and peers of one job are trusted not to forge
 * them (the tcp token and the PMIx namespace keep strangers out). */
int rmpi_proto_check(const void *hdr, size_t hlen, size_t plen, const char **why);
/* Header bytes of a message of this RMPI_MSG_* type, 0 when unknown. */
size_t rmpi_proto_hlen(unsigned type);
/* Target of an emulated operation m carrying plen payload bytes, on a window
 * of bytes bytes at base: the access [m->offset, m->offset + *len) lies in
 * the window (atomics: 8 bytes, 8-byte aligned). *len is always written. */
int rmpi_rma_access_check(const rmpi_rma_t *m, size_t plen, uintptr_t base, uint64_t bytes,
                          uint64_t *len, const char **why);
/* Origin of an emulated get of len bytes at target offset off0: may a reply
 * chunk of plen bytes at offset land in the local buffer? */
int rmpi_rma_rep_check(uint64_t offset, size_t plen, uint64_t off0, uint64_t len,
                       const char **why);

#endif
