/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI point-to-point: requests, messages of matched probes, status layout
 * (docs/mpi.md, "Point-to-point"). */
#ifndef MPII_P2P_H
#define MPII_P2P_H

#include <stdint.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

/* ---- Status: MPI_internal[0..1] hold the byte count, [2] the cancelled flag. ---- */
static inline void mpii_status_set(MPI_Status *st, int src, int tag, int err, MPI_Count bytes)
{
    st->MPI_SOURCE = src;
    st->MPI_TAG = tag;
    st->MPI_ERROR = err;
    st->MPI_internal[0] = (int)(uint32_t)((uint64_t)bytes & 0xffffffffu);
    st->MPI_internal[1] = (int)(uint32_t)((uint64_t)bytes >> 32);
    st->MPI_internal[2] = 0;
}

static inline MPI_Count mpii_status_bytes(const MPI_Status *st)
{
    return (MPI_Count)(((uint64_t)(uint32_t)st->MPI_internal[1] << 32) |
                       (uint32_t)st->MPI_internal[0]);
}

static inline void mpii_status_set_bytes(MPI_Status *st, MPI_Count bytes)
{
    st->MPI_internal[0] = (int)(uint32_t)((uint64_t)bytes & 0xffffffffu);
    st->MPI_internal[1] = (int)(uint32_t)((uint64_t)bytes >> 32);
}

/* The empty status (a completed request on MPI_PROC_NULL, an inactive one). */
static inline void mpii_status_empty(MPI_Status *st)
{
    mpii_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
}

/* ---- Requests ---- */
enum {
    MPII_REQ_RMP = 1, /* an rmp request (rr); fin() runs once it completed */
    MPII_REQ_DONE,    /* complete at creation (MPI_PROC_NULL, sends copied to a buffer) */
    MPII_REQ_POLL,    /* poll() returns 1 once done, having filled status */
    MPII_REQ_GREQ,    /* generalized request: done when MPI_Grequest_complete is called */
    MPII_REQ_PSEND,   /* persistent send / receive: start() makes an rmp request */
    MPII_REQ_PRECV,
    MPII_REQ_PCOLL,   /* persistent collective (coll_persist.c) */
    MPII_REQ_PART     /* partitioned send or receive (part.c) */
};

enum { MPII_MODE_STD = 0, MPII_MODE_SYNC, MPII_MODE_READY, MPII_MODE_BUFFERED };

typedef struct mpii_req mpii_req_t;
struct mpii_req {
    uint32_t magic;
    uint8_t kind;
    uint8_t done;      /* status holds the completion */
    uint8_t active;    /* persistent: started and not yet completed by a wait/test */
    uint8_t freed;     /* MPI_Request_free while running: release once done */
    uint8_t cancelled;
    uint8_t mode;      /* persistent sends: MPII_MODE_* */
    uint8_t recv;      /* a receive (cancellable) */
    uint8_t persistent; /* MPII_REQ_PSEND / MPII_REQ_PRECV, else 0 */
    mpii_comm_t *comm;
    rmp_request_t rr;
    MPI_Status status;
    int err;           /* MPI error class of the completion, MPI_SUCCESS */
    /* Typed buffer (non-contiguous receives unpack from tmp; persistent arguments). */
    void *buf;
    MPI_Count count;
    mpii_dtype_t *dt;
    int peer, tag;
    void *tmp;
    /* Non-contiguous sends and receives: the typed buffer as rmp's layout. */
    mpii_typed_t typed;
    rmp_layout_t lay;
    /* Called once the rmp request completed (unpack, release a buffer). */
    int (*fin)(mpii_req_t *r);
    /* MPII_REQ_POLL (other modules' requests, e.g. nonblocking collectives). */
    int (*poll)(mpii_req_t *r);
    void (*release)(mpii_req_t *r); /* frees ctx when the request is freed */
    void *ctx;
    /* MPII_REQ_GREQ */
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    mpii_req_t *next; /* list of freed-while-running requests */
    uint64_t bs_seq;  /* a buffered send's message in its buffer (r->ctx), for MPI_Cancel */
};

extern mpii_pool_t mpii_req_pool;

/* An MPI_Request is one of two things (docs/mpi.md, "Requests"):
 * - an mpii_req_t (8-byte aligned, its magic first): persistent, non-contiguous,
 *   buffered, MPI_PROC_NULL, generalized and collective requests;
 * - the rmp request of a contiguous Isend/Irecv itself, its low bit set: no object
 *   of the MPI layer at all, so MPI_Isend + MPI_Wait cost what rmp_isend + rmp_wait do.
 *   Its communicator, for errors, is the rmp status's (rmp_comm_user). */
#define MPII_REQ_RR_BIT ((uintptr_t)1)

static inline int mpii_req_is_rr(MPI_Request h)
{
    return ((uintptr_t)h & MPII_REQ_RR_BIT) != 0;
}

static inline rmp_request_t mpii_req_rr(MPI_Request h)
{
    return (rmp_request_t)((uintptr_t)h & ~MPII_REQ_RR_BIT);
}

static inline MPI_Request mpii_req_of_rr(rmp_request_t rr)
{
    return (MPI_Request)((uintptr_t)rr | MPII_REQ_RR_BIT);
}

/* A tagged handle that can be an rmp request: aligned once untagged, above the
 * predefined range, a user-space address (garbage such as 0xa5a5... is refused
 * without being read). Freed ones are refused by rmp (RMP_ERR_ARG). */
static inline int mpii_req_rr_plausible(MPI_Request h)
{
    uintptr_t v = (uintptr_t)h;
    return (v & 7) == MPII_REQ_RR_BIT && v >= MPII_PREDEFINED_MAX && v < ((uintptr_t)1 << 47);
}

/* The communicator object of an rmp completion, NULL when unknown (world's handler). */
static inline mpii_comm_t *mpii_comm_of_rr(const rmp_status_t *s)
{
    return s->comm ? (mpii_comm_t *)rmp_comm_user(s->comm) : NULL;
}

static inline mpii_req_t *mpii_req(MPI_Request h)
{
    return mpii_obj_valid(h, MPII_MAGIC_REQ) ? (mpii_req_t *)h : NULL;
}

/* A new request on communicator c (NULL without memory). */
mpii_req_t *mpii_req_new(mpii_comm_t *c, int kind);
/* Wrap an rmp request (e.g. from rmp_iallreduce); fin may be NULL. */
mpii_req_t *mpii_req_new_rmp(mpii_comm_t *c, rmp_request_t rr, int (*fin)(mpii_req_t *r));
/* A request completed by poll (returns 1 when done, having set r->status / r->err). */
mpii_req_t *mpii_req_new_poll(mpii_comm_t *c, int (*poll)(mpii_req_t *r),
                              void (*release)(mpii_req_t *r), void *ctx);
void mpii_req_free(mpii_req_t *r);
/* MPI_Start of a persistent collective: runs its nonblocking collective (coll_persist.c). */
int mpii_pcoll_start(mpii_req_t *r, const char *fn);
/* MPI_ERR_COUNT (reported) when one of the counts of comm's ranks at cnt (NULL: none) is
 * past an int, the limit of the _c persistent collectives, which MPI_Ireduce_scatter_c
 * keeps too. */
int mpii_pcoll_fit_counts(MPI_Comm comm, const MPI_Count *cnt, const char *fn);
/* A persistent collective of another module: each MPI_Start calls launch(ctx) for the
 * nonblocking request of one round; ctx_free(ctx) when the request is freed (also here
 * when this fails). */
int mpii_pcoll_custom(mpii_comm_t *c, int (*launch)(void *ctx, MPI_Request *q), void *ctx,
                      void (*ctx_free)(void *ctx), MPI_Request *request, const char *fn);
/* Move r towards completion without blocking; 1 when it is done. */
int mpii_req_test(mpii_req_t *r);
/* Block until r is done (RMP_TIMEOUT and peer failures end it with an error). */
int mpii_req_wait(mpii_req_t *r);
/* A complete generalized request's status and error from its query_fn (greq.c). */
int mpii_greq_query(mpii_req_t *r);
/* Call its free_fn (once): the error it returned. */
int mpii_greq_free_fn(mpii_req_t *r);
/* Status of an rmp completion, in MPI terms. */
void mpii_req_take_rmp_status(mpii_req_t *r, const rmp_status_t *st, int rc);

/* ---- Matched-probe messages ---- */
typedef struct mpii_msg {
    uint32_t magic;
    mpii_comm_t *comm;
    rmp_message_t m;
    MPI_Count bytes;
} mpii_msg_t;

extern mpii_pool_t mpii_msg_pool;

static inline mpii_msg_t *mpii_msg(MPI_Message h)
{
    return mpii_obj_valid(h, MPII_MAGIC_MSG) ? (mpii_msg_t *)h : NULL;
}

/* ---- Argument translation ---- */
static inline int mpii_tag_to_rmp(int tag)
{
    return tag == MPI_ANY_TAG ? RMP_ANY_TAG : tag;
}

/* Start of the data of a typed buffer (addresses as integers: MPI_BOTTOM + absolute
 * displacements is valid MPI). */
static inline void *mpii_buf_at(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* MPI_DATATYPE_NULL with count 0 is an empty message, as MPICH and Open MPI accept it
 * (MPICH's tests and codes pass it for zero-count receives): the slow path reads it as
 * MPI_BYTE. The fast path never sees it (a NULL type fails its check), so it costs a
 * valid call nothing. */
static inline mpii_dtype_t *mpii_p2p_null_type(mpii_dtype_t *d, MPI_Datatype dt,
                                               MPI_Count count)
{
    return !d && count == 0 && dt == MPI_DATATYPE_NULL ? mpii_dtype(MPI_BYTE) : d;
}
/* Point-to-point argument checks (the slow path of every call): MPI_SUCCESS or
 * the error class, already reported through c's handler. */
int mpii_p2p_check(mpii_comm_t *c, MPI_Comm comm, const void *buf, MPI_Count count,
                   const mpii_dtype_t *d, int rank, int tag, int is_recv, const char *fn);
/* Report a failed rmp call on c. */
int mpii_p2p_err(mpii_comm_t *c, int rmp_rc, const char *fn);

/* Nonblocking send / receive of a typed buffer in a mode: the request in *out. */
int mpii_isend(const void *buf, MPI_Count count, mpii_dtype_t *d, int dest, int tag,
               mpii_comm_t *c, int mode, mpii_req_t *into, mpii_req_t **out);
int mpii_irecv(void *buf, MPI_Count count, mpii_dtype_t *d, int source, int tag,
               mpii_comm_t *c, mpii_req_t *into, mpii_req_t **out);

/* Buffered sends (bsend.c). */
int mpii_bsend(const void *buf, MPI_Count count, mpii_dtype_t *d, int dest, int tag,
               mpii_comm_t *c, const char *fn, mpii_req_t *r);
/* MPI_Cancel of the buffered send r (mpii_bsend gave it its message): the message is
 * taken back if the receiver has not had it; r completes when that is known. */
void mpii_bs_cancel(mpii_req_t *r);
/* Wait for buffered sends still in flight and forget the buffer (Finalize). */
void mpii_bsend_fini(void);
/* Wait for the messages of c's own buffer and free it (communicator destruction). */
void mpii_bsend_comm_free(mpii_comm_t *c);
/* Partitioned communication's private communicator (Init, Finalize) and the id of
 * a new communicator (part_match.c). */
void mpii_part_init(void);
void mpii_part_fini(void);
void mpii_part_comm_new(mpii_comm_t *c);
/* MPI_Start of a partitioned request (part.c). */
int mpii_part_start(mpii_req_t *r, const char *fn);
/* Release what buffered sends and freed requests hold (Finalize). */
void mpii_p2p_fini(void);
/* Progress requests freed while running. */
void mpii_req_reap(void);
/* Requests the user freed while they ran (MPI_Request_free), under MPII_LOCK. */
extern mpii_req_t *mpii_req_orphans;

#endif
