/* SPDX-License-Identifier: BSD-3-Clause */
/* rmp: message passing for RDMA clusters. Public API (see docs/ and API contract). */
#ifndef RMP_H
#define RMP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RMP_VERSION_MAJOR 0
#define RMP_VERSION_MINOR 1
#define RMP_VERSION_PATCH 0
#define RMP_VERSION_STRING "0.1.0"

/* Status codes: 0 is success, every error is negative. */
enum {
    RMP_SUCCESS = 0,
    RMP_ERR_ARG = -1,
    RMP_ERR_NOMEM = -2,
    RMP_ERR_TRUNCATE = -3,
    RMP_ERR_ACCESS = -4,
    RMP_ERR_PEER_FAILED = -5,
    RMP_ERR_TIMEOUT = -6,
    RMP_ERR_NOT_SUPPORTED = -7,
    RMP_ERR_STATE = -8,
    RMP_ERR_TRANSPORT = -9,
    RMP_ERR_BOOTSTRAP = -10,
    RMP_ERR_INTERNAL = -11,
    RMP_ERR_CANCELLED = -12, /* a receive or send cancelled by rmp_request_cancel */
    RMP_ERR_REVOKED = -13,   /* the communicator was revoked (rmp_comm_revoke) */
    /* A wait or test of a receive from RMP_ANY_SOURCE: a member of its communicator failed
     * and the failure is not acknowledged (rmp_comm_failure_ack); the request is still
     * pending, unchanged, and may match later. */
    RMP_ERR_PEER_FAILED_PENDING = -14,
    RMP_ERR_LAST = -15 /* one past the last code; not a status */
};

const char *rmp_strerror(int code);

/* ---- Runtime ---- */
int rmp_init(int *argc, char ***argv); /* = rmp_init_thread at RMP_THREAD_SINGLE */
/* Thread levels, MPI's in the same order. SINGLE and FUNNELED: only the thread that called
 * rmp_init_thread calls rmp (any other gets RMP_ERR_STATE); SERIALIZED: any thread, never
 * two at once (the caller serialises); MULTIPLE: any threads at once (not provided yet:
 * asking for it gives SERIALIZED, docs/threads.md). */
enum { RMP_THREAD_SINGLE = 0, RMP_THREAD_FUNNELED, RMP_THREAD_SERIALIZED, RMP_THREAD_MULTIPLE };
int rmp_init_thread(int *argc, char ***argv, int required, int *provided);
int rmp_query_thread(int *provided);
int rmp_is_thread_main(int *flag);
int rmp_finalize(void);
int rmp_initialized(void);

typedef struct rmp_comm *rmp_comm_t;
#define RMP_COMM_NULL ((rmp_comm_t)0)
rmp_comm_t rmp_comm_world(void);
int rmp_comm_rank(rmp_comm_t comm); /* negative status on a bad communicator */
int rmp_comm_size(rmp_comm_t comm);
/* Collective over comm. color < 0 (RMP_UNDEFINED) yields RMP_COMM_NULL in *newcomm. */
#define RMP_UNDEFINED (-32766)
int rmp_comm_split(rmp_comm_t comm, int color, int key, rmp_comm_t *newcomm);
int rmp_comm_dup(rmp_comm_t comm, rmp_comm_t *newcomm);
/* *comm becomes RMP_COMM_NULL; nonblocking collectives still running on it (their
 * requests freed, say) keep it alive until they complete. */
int rmp_comm_free(rmp_comm_t *comm);
/* A pointer of the caller's kept with comm (NULL until set), e.g. the object a
 * layer above wraps comm in, found again from a status's comm. */
int rmp_comm_set_user(rmp_comm_t comm, void *user);
void *rmp_comm_user(rmp_comm_t comm);
/* Collective over the n members ranks[] (comm ranks, distinct; the caller among
 * them) only: a communicator of them in that order. Concurrent calls that share
 * members use different tags (0..RMP_TAG_UB). */
int rmp_comm_create_group(rmp_comm_t comm, int n, const int ranks[], int tag,
                          rmp_comm_t *newcomm);
/* World rank of member `rank` of comm (negative status if either is invalid). */
int rmp_comm_world_rank(rmp_comm_t comm, int rank);

/* Dynamic processes (docs/mpi.md "Dynamic processes"): two groups of different jobs meet
 * over a port. rmp_port_open names a new port of this process into name (len >= 64;
 * "rmp-port:..." fits in 96 bytes). rmp_comm_accept / rmp_comm_connect are collective over
 * comm; port matters at root only. *uni: a communicator over both groups, the accepting
 * group's ranks first; *remote_size: the other group's size. A port that is not open
 * (connect) or not this process's (accept) is RMP_ERR_ARG. The other job's processes are
 * reached over tcp. */
int rmp_port_open(char *name, size_t len);
int rmp_port_close(const char *name);
int rmp_comm_accept(const char *port, int root, rmp_comm_t comm, rmp_comm_t *uni,
                    int *remote_size);
int rmp_comm_connect(const char *port, int root, rmp_comm_t comm, rmp_comm_t *uni,
                     int *remote_size);
/* Start a new job of the apps through the process manager (PMIx_Spawn; not collective).
 * env_all: "NAME=VALUE" strings given to every app (NULL-terminated, or NULL). The new
 * job's processes are not connected to this one: they call rmp_comm_connect on a port
 * passed to them (MPI: in their environment). RMP_ERR_NOT_SUPPORTED without a process
 * manager that spawns, RMP_ERR_BOOTSTRAP when it refused (e.g. no such program). */
typedef struct rmp_spawn_app {
    const char *cmd;
    char *const *argv;  /* arguments after the command, NULL-terminated; NULL: none */
    char *const *env;   /* extra "NAME=VALUE", NULL-terminated; NULL: none */
    const char *wdir;   /* NULL: the caller's */
    int maxprocs;
} rmp_spawn_app_t;
int rmp_spawn(int napps, const rmp_spawn_app_t apps[], char *const *env_all);
/* Name service of the process manager: service -> value (a port name). Publishing a name
 * already there, and looking up or unpublishing an unknown one, is RMP_ERR_ARG. */
int rmp_publish(const char *service, const char *value);
int rmp_lookup(const char *service, char *value, size_t len);
int rmp_unpublish(const char *service);
/* Id (>= 0) of the node this process runs on: equal for processes that share
 * memory, for a split by node (MPI_COMM_TYPE_SHARED); negative before rmp_init. */
int rmp_node_id(void);
/* World ranks of the processes on this process's node (rmp_node_id's: itself included),
 * ascending: the first max of them into ranks, how many there are into *n. RMP_ERR_ARG
 * when n is NULL, or ranks is NULL with max > 0. */
int rmp_node_ranks(int *ranks, int max, int *n);
double rmp_wtime(void);
void rmp_abort(rmp_comm_t comm, int exit_code);

/* ---- Surviving failures (docs/reliability.md; useful with RMP_ON_FAILURE=continue) ----
 * Operations that involve a failed peer return RMP_ERR_PEER_FAILED. rmp_comm_revoke makes
 * every pending and later operation on comm return RMP_ERR_REVOKED on every member (but
 * these five and rmp_comm_free, rank, size). shrink and agree are collective over the
 * live members and work on a revoked communicator. */
int rmp_comm_revoke(rmp_comm_t comm);
int rmp_comm_is_revoked(rmp_comm_t comm, int *flag);
/* A communicator of the live members, in comm's order, with a new context. */
int rmp_comm_shrink(rmp_comm_t comm, rmp_comm_t *newcomm);
/* *flag becomes the bitwise AND of the live members' flags, the same on each; the status
 * is RMP_ERR_PEER_FAILED on every one when a member had failures it had not acknowledged. */
int rmp_comm_agree(rmp_comm_t comm, int *flag);
/* Acknowledge the failed members known now: rmp_comm_failure_get_acked lists them (comm
 * ranks, ascending, in ranks[0..*n) of room max) and agree no longer reports them.
 * Until then a receive from RMP_ANY_SOURCE on comm cannot wait for ever: rmp_recv returns
 * RMP_ERR_PEER_FAILED (the receive withdrawn), rmp_wait and rmp_test of a nonblocking one
 * RMP_ERR_PEER_FAILED_PENDING (the request kept, still able to match); after the
 * acknowledgement they wait again, until a new failure. */
int rmp_comm_failure_ack(rmp_comm_t comm);
int rmp_comm_failure_get_acked(rmp_comm_t comm, int *ranks, int max, int *n);

/* ---- Point-to-point ---- */
#define RMP_ANY_SOURCE (-1)
#define RMP_ANY_TAG (-1)
#define RMP_TAG_UB 0x3fffffff /* user tags are 0..RMP_TAG_UB */

typedef struct {
    int source;
    int tag;
    size_t bytes;
    int error;
    /* The communicator of the send or receive it completes (RMP_COMM_NULL for
     * probes, matched receives and collectives): where an error is reported. */
    rmp_comm_t comm;
} rmp_status_t;

typedef struct rmp_request *rmp_request_t;
#define RMP_REQUEST_NULL ((rmp_request_t)0)

int rmp_send(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm);
int rmp_recv(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm, rmp_status_t *st);
int rmp_isend(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
              rmp_request_t *req);
int rmp_irecv(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm,
              rmp_request_t *req);
int rmp_sendrecv(const void *sbuf, size_t sbytes, int dest, int stag, void *rbuf,
                 size_t rbytes, int source, int rtag, rmp_comm_t comm, rmp_status_t *st);
int rmp_wait(rmp_request_t *req, rmp_status_t *st);
int rmp_test(rmp_request_t *req, int *done, rmp_status_t *st);
int rmp_waitall(size_t n, rmp_request_t reqs[], rmp_status_t sts[]);
int rmp_probe(int source, int tag, rmp_comm_t comm, rmp_status_t *st);
int rmp_iprobe(int source, int tag, rmp_comm_t comm, int *flag, rmp_status_t *st);
/* Drive communication without blocking (useful when overlapping computation). */
int rmp_progress(void);

/* Synchronous send: completes only once the receiver has matched the message
 * (MPI_Ssend), whatever its size (docs/protocols.md, "Synchronous sends"). */
int rmp_ssend(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm);
int rmp_issend(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
               rmp_request_t *req);
/* Cancel a receive that has not matched a message yet: *cancelled = 1, the
 * request is freed and *req becomes RMP_REQUEST_NULL. *cancelled = 0 when it
 * has matched already (or is a send): wait for it as usual. */
int rmp_cancel(rmp_request_t *req, int *cancelled);
/* Cancel a request, keeping it (MPI_Cancel, whose request lives until MPI_Wait).
 * A receive that has not matched a message yet: *cancelled = 1 and it completes
 * at once, its wait or test returning RMP_ERR_CANCELLED; 0 when it has matched.
 * A send: the receiver is asked to drop the message if no receive has it yet;
 * *cancelled = 0 unless that was known at once, and the request completes
 * (even one that had completed already) with RMP_ERR_CANCELLED if the message
 * was dropped, else as it would have: wait for it either way. */
int rmp_request_cancel(rmp_request_t req, int *cancelled);
/* Nobody will wait for *req (MPI_Request_free): it is freed now if complete,
 * otherwise when it completes (a send's data still goes out, a receive still
 * fills its buffer); *req becomes RMP_REQUEST_NULL. */
int rmp_request_free(rmp_request_t *req);
/* Nonblocking dup: returns at once; *newcomm is set when *req completes (a collective
 * call on comm, ordered with its other collectives; overlapping idups on one comm
 * complete in call order on every member). Safe from several threads at once. */
int rmp_comm_idup(rmp_comm_t comm, rmp_comm_t *newcomm, rmp_request_t *req);
/* Whether req has completed (*done), and then its status, without freeing it
 * (MPI_Request_get_status, Testall's first pass). It does not drive progress:
 * call rmp_progress when nothing is done. */
int rmp_request_get_status(rmp_request_t req, int *done, rmp_status_t *st);

/* Matched probe: a probe that takes the message off the unexpected queue, so
 * that only rmp_mrecv/rmp_imrecv of its handle can receive it (MPI_Mprobe). */
typedef struct rmp_message *rmp_message_t;
#define RMP_MESSAGE_NULL ((rmp_message_t)0)
int rmp_improbe(int source, int tag, rmp_comm_t comm, int *flag, rmp_message_t *msg,
                rmp_status_t *st);
int rmp_mprobe(int source, int tag, rmp_comm_t comm, rmp_message_t *msg, rmp_status_t *st);
/* Receive a matched message into buf (truncation as rmp_recv); *msg becomes
 * RMP_MESSAGE_NULL. */
int rmp_imrecv(void *buf, size_t bytes, rmp_message_t *msg, rmp_request_t *req);
int rmp_mrecv(void *buf, size_t bytes, rmp_message_t *msg, rmp_status_t *st);

/* Messages in the caller's own layout (non-contiguous data, e.g. an MPI derived
 * datatype). The message is the byte stream [0, bytes); rmp moves it through the
 * callbacks in pieces of bounded size (never a whole-message copy), in increasing
 * offset order: pack copies stream bytes [off, off + len) out of the layout into
 * dst, unpack copies len stream bytes from src into the layout at stream offset off.
 * The struct (and what ctx points to) must stay valid until the request completes.
 * Either side may use a layout whatever the other side uses; truncation as rmp_recv.
 * docs/protocols.md, "Layouts". */
typedef struct rmp_layout {
    void (*pack)(void *ctx, size_t off, void *dst, size_t len);
    void (*unpack)(void *ctx, size_t off, const void *src, size_t len);
    void *ctx;
    /* Optional (NULL: none; zero-initialise the struct so that fields added later are
     * NULL): the memory behind stream bytes [off, off + len) as at most max segments
     * in iov, in stream order; *n is set to how many. Returns the bytes they cover,
     * less than len when max segments were not enough (at least one segment's worth
     * when len > 0). With it rmp copies straight between the two processes' memory
     * where a transport can (shm with cross-memory attach) and the segments are long
     * enough to pay for it; otherwise it packs. docs/protocols.md, "Layouts". */
    size_t (*segments)(void *ctx, size_t off, size_t len, struct iovec *iov, size_t max,
                       size_t *n);
} rmp_layout_t;
int rmp_isend_layout(const rmp_layout_t *lay, size_t bytes, int dest, int tag, rmp_comm_t comm,
                     rmp_request_t *req);
int rmp_issend_layout(const rmp_layout_t *lay, size_t bytes, int dest, int tag,
                      rmp_comm_t comm, rmp_request_t *req);
int rmp_irecv_layout(const rmp_layout_t *lay, size_t bytes, int source, int tag,
                     rmp_comm_t comm, rmp_request_t *req);
int rmp_imrecv_layout(const rmp_layout_t *lay, size_t bytes, rmp_message_t *msg,
                      rmp_request_t *req);

/* ---- One-sided ---- */
typedef struct rmp_win *rmp_win_t;
#define RMP_WIN_NULL ((rmp_win_t)0)
int rmp_win_create(void *base, size_t bytes, rmp_comm_t comm, rmp_win_t *win);
int rmp_win_allocate(size_t bytes, rmp_comm_t comm, void **base, rmp_win_t *win);
int rmp_win_free(rmp_win_t *win);
/* A window with no memory of its own (collective): each rank attaches and detaches
 * regions locally; an access names the target's absolute address as its offset
 * (MPI_Win_create_dynamic). Accesses go through the target's progress engine, which
 * refuses any that does not lie inside one attached region (RMP_ERR_ACCESS). */
int rmp_win_create_dynamic(rmp_comm_t comm, rmp_win_t *win);
int rmp_win_attach(rmp_win_t win, void *base, size_t bytes);
int rmp_win_detach(rmp_win_t win, const void *base);
int rmp_put(const void *src, size_t bytes, int target, size_t offset, rmp_win_t win);
int rmp_get(void *dst, size_t bytes, int target, size_t offset, rmp_win_t win);
int rmp_put_nbi(const void *src, size_t bytes, int target, size_t offset, rmp_win_t win);
int rmp_get_nbi(void *dst, size_t bytes, int target, size_t offset, rmp_win_t win);
int rmp_win_flush(int target, rmp_win_t win);
int rmp_win_flush_all(rmp_win_t win);
int rmp_atomic_fetch_add(uint64_t value, uint64_t *old, int target, size_t offset,
                         rmp_win_t win);
int rmp_atomic_cswap(uint64_t compare, uint64_t swap, uint64_t *old, int target,
                     size_t offset, rmp_win_t win);
/* Where target's window is mapped into this process (this rank's own, or an allocated
 * window of a rank on this node): *ptr, or RMP_ERR_NOT_SUPPORTED when it is not mapped
 * (another node, or a window over user memory). NULL for an empty window. */
int rmp_win_shared_ptr(rmp_win_t win, int target, void **ptr);

/* ---- Collectives ---- */
typedef enum {
    RMP_INT8, RMP_UINT8, RMP_INT16, RMP_UINT16, RMP_INT32, RMP_UINT32,
    RMP_INT64, RMP_UINT64, RMP_FLOAT16, RMP_BFLOAT16, RMP_FLOAT, RMP_DOUBLE,
    RMP_DATATYPE_COUNT, /* not a datatype: one past the core types */
    /* Extended types (the C types MPI reduces; docs/collectives.md lists their ops). The
     * pair types are the C structs {value; int index} MINLOC/MAXLOC work on. */
    RMP_LONG_DOUBLE = 64, RMP_C_FLOAT_COMPLEX, RMP_C_DOUBLE_COMPLEX,
    RMP_C_LONG_DOUBLE_COMPLEX, RMP_C_BOOL, RMP_FLOAT_INT, RMP_DOUBLE_INT, RMP_LONG_INT,
    RMP_2INT, RMP_SHORT_INT, RMP_LONG_DOUBLE_INT,
    RMP_DATATYPE_EXT_END, /* not a datatype */
    /* RMP_OPAQUE(n): an element of n bytes (1 <= n < 2^30), reducible by user ops only. */
    RMP_DATATYPE_OPAQUE = 0x40000000
} rmp_datatype_t;
#define RMP_OPAQUE(n) ((rmp_datatype_t)(RMP_DATATYPE_OPAQUE + (int)(n)))

typedef enum {
    RMP_SUM, RMP_PROD, RMP_MIN, RMP_MAX, RMP_BAND, RMP_BOR, RMP_BXOR, RMP_LAND, RMP_LOR,
    RMP_OP_COUNT, /* not an op: one past the core ops */
    /* Extended ops: logical xor (integers, C_BOOL, LONG_DOUBLE), and MINLOC/MAXLOC on
     * the pair types: the extreme value with the lowest index among its holders. */
    RMP_LXOR = 64, RMP_MINLOC, RMP_MAXLOC,
    RMP_OP_EXT_END, /* not an op */
    RMP_OP_USER = 0x10000 /* rmp_op_create's ops are RMP_OP_USER + k */
} rmp_op_t;

/* User-defined reduction: inout[i] = in[i] op inout[i] for i < count (in is the left
 * operand, as in MPI). dt is the datatype the collective was called with; ctx is the
 * pointer given to rmp_op_create. A non-commutative op (commute == 0) is applied in rank
 * order, ((x0 op x1) op x2) ..., by every collective (they then use order-preserving
 * algorithms). The op may be used with any datatype, RMP_OPAQUE(n) included. */
typedef void (*rmp_op_fn_t)(const void *in, void *inout, size_t count, rmp_datatype_t dt,
                            void *ctx);
int rmp_op_create(rmp_op_fn_t fn, void *ctx, int commute, rmp_op_t *op);
/* Frees *op (collectives still using it must have completed) and sets it to RMP_OP_COUNT. */
int rmp_op_free(rmp_op_t *op);
/* RMP_SUCCESS when op can reduce dt, else RMP_ERR_ARG (unknown type or op, or a pair the
 * op is not defined on: bitwise ops on floats, MINLOC on a non-pair type, ...). */
int rmp_op_check(rmp_datatype_t dt, rmp_op_t op);
/* inout[i] = in[i] op inout[i], locally (MPI_Reduce_local). */
int rmp_reduce_local(const void *in, void *inout, size_t count, rmp_datatype_t dt,
                     rmp_op_t op);

/* Size in bytes of one element of dt, 0 for an unknown datatype. */
size_t rmp_datatype_size(rmp_datatype_t dt);

#define RMP_IN_PLACE ((void *)1)
int rmp_barrier(rmp_comm_t comm);
int rmp_bcast(void *buf, size_t count, rmp_datatype_t dt, int root, rmp_comm_t comm);
int rmp_reduce(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, rmp_op_t op,
               int root, rmp_comm_t comm);
int rmp_allreduce(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                  rmp_op_t op, rmp_comm_t comm);
int rmp_allgather(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                  rmp_comm_t comm);
int rmp_reduce_scatter(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                       rmp_op_t op, rmp_comm_t comm);
int rmp_alltoall(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                 rmp_comm_t comm);
int rmp_gather(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, int root,
               rmp_comm_t comm);
int rmp_scatter(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, int root,
                rmp_comm_t comm);
int rmp_iallreduce(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                   rmp_op_t op, rmp_comm_t comm, rmp_request_t *req);
int rmp_ibcast(void *buf, size_t count, rmp_datatype_t dt, int root, rmp_comm_t comm,
               rmp_request_t *req);
int rmp_ibarrier(rmp_comm_t comm, rmp_request_t *req);

/* Prefix reductions in rank order: rank r gets x0 op .. op xr (scan) or x0 op .. op xr-1
 * (exscan; rbuf of rank 0 is not written). sbuf may be RMP_IN_PLACE. */
int rmp_scan(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, rmp_op_t op,
             rmp_comm_t comm);
int rmp_exscan(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, rmp_op_t op,
               rmp_comm_t comm);

/* The v-collectives: counts and displacements in bytes, one per rank (the arrays matter
 * where MPI says they do: at the root for gatherv/scatterv). RMP_IN_PLACE as in MPI:
 * gatherv sbuf / scatterv rbuf at the root, allgatherv sbuf (own block already at
 * rdispls[rank]), alltoallv sbuf (data in rbuf, laid out by rbytes/rdispls). */
int rmp_gatherv(const void *sbuf, size_t sbytes, void *rbuf, const size_t *rbytes,
                const size_t *rdispls, int root, rmp_comm_t comm);
int rmp_scatterv(const void *sbuf, const size_t *sbytes, const size_t *sdispls, void *rbuf,
                 size_t rbytes, int root, rmp_comm_t comm);
int rmp_allgatherv(const void *sbuf, size_t sbytes, void *rbuf, const size_t *rbytes,
                   const size_t *rdispls, rmp_comm_t comm);
int rmp_alltoallv(const void *sbuf, const size_t *sbytes, const size_t *sdispls, void *rbuf,
                  const size_t *rbytes, const size_t *rdispls, rmp_comm_t comm);
/* The same on layouts (non-contiguous blocks, moved piece by piece: no whole-message
 * copy): block i of the n-block side is lays[i], bytes[i] of its stream; the one-block
 * side is one layout. A layout with NULL pack and unpack is the plain bytes at ctx. The
 * one-block layout may be NULL (in place: the block is already in lays[rank]) at the
 * gatherv/scatterv root and in allgatherv.
 * Wire-compatible with the plain forms: each rank may call either. */
int rmp_gatherv_layout(const rmp_layout_t *slay, size_t sbytes, const rmp_layout_t *rlays,
                       const size_t *rbytes, int root, rmp_comm_t comm);
int rmp_scatterv_layout(const rmp_layout_t *slays, const size_t *sbytes,
                        const rmp_layout_t *rlay, size_t rbytes, int root, rmp_comm_t comm);
int rmp_allgatherv_layout(const rmp_layout_t *slay, size_t sbytes, const rmp_layout_t *rlays,
                          const size_t *rbytes, rmp_comm_t comm);
int rmp_alltoallv_layout(const rmp_layout_t *slays, const size_t *sbytes,
                         const rmp_layout_t *rlays, const size_t *rbytes, rmp_comm_t comm);
/* Reduce, then rank i gets counts[i] elements (packed in rank order in the vector). sbuf
 * may be RMP_IN_PLACE (the vector in rbuf). */
int rmp_reduce_scatter_v(const void *sbuf, void *rbuf, const size_t *counts,
                         rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm);

/* Nonblocking forms of the collectives above (same arguments and RMP_IN_PLACE rules; the
 * count/displacement arrays may be reused as soon as the call returns). */
int rmp_igather(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, int root,
                rmp_comm_t comm, rmp_request_t *req);
int rmp_iscatter(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, int root,
                 rmp_comm_t comm, rmp_request_t *req);
int rmp_iallgather(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                   rmp_comm_t comm, rmp_request_t *req);
int rmp_ialltoall(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                  rmp_comm_t comm, rmp_request_t *req);
int rmp_ireduce(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, rmp_op_t op,
                int root, rmp_comm_t comm, rmp_request_t *req);
int rmp_ireduce_scatter(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                        rmp_op_t op, rmp_comm_t comm, rmp_request_t *req);
int rmp_iscan(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, rmp_op_t op,
              rmp_comm_t comm, rmp_request_t *req);
int rmp_iexscan(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, rmp_op_t op,
                rmp_comm_t comm, rmp_request_t *req);
int rmp_igatherv(const void *sbuf, size_t sbytes, void *rbuf, const size_t *rbytes,
                 const size_t *rdispls, int root, rmp_comm_t comm, rmp_request_t *req);
int rmp_iscatterv(const void *sbuf, const size_t *sbytes, const size_t *sdispls, void *rbuf,
                  size_t rbytes, int root, rmp_comm_t comm, rmp_request_t *req);
int rmp_iallgatherv(const void *sbuf, size_t sbytes, void *rbuf, const size_t *rbytes,
                    const size_t *rdispls, rmp_comm_t comm, rmp_request_t *req);
int rmp_ialltoallv(const void *sbuf, const size_t *sbytes, const size_t *sdispls, void *rbuf,
                   const size_t *rbytes, const size_t *rdispls, rmp_comm_t comm,
                   rmp_request_t *req);
/* The layout forms of the four above (rmp_gatherv_layout): the layouts, and what they
 * point to, must live until the request completes; the arrays may be reused at once. */
int rmp_igatherv_layout(const rmp_layout_t *slay, size_t sbytes, const rmp_layout_t *rlays,
                        const size_t *rbytes, int root, rmp_comm_t comm, rmp_request_t *req);
int rmp_iscatterv_layout(const rmp_layout_t *slays, const size_t *sbytes,
                         const rmp_layout_t *rlay, size_t rbytes, int root, rmp_comm_t comm,
                         rmp_request_t *req);
int rmp_iallgatherv_layout(const rmp_layout_t *slay, size_t sbytes, const rmp_layout_t *rlays,
                           const size_t *rbytes, rmp_comm_t comm, rmp_request_t *req);
int rmp_ialltoallv_layout(const rmp_layout_t *slays, const size_t *sbytes,
                          const rmp_layout_t *rlays, const size_t *rbytes, rmp_comm_t comm,
                          rmp_request_t *req);
int rmp_ireduce_scatter_v(const void *sbuf, void *rbuf, const size_t *counts,
                          rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm, rmp_request_t *req);

/* Neighbourhood exchange: receive rbytes[j] bytes from src[j] at rbuf + rdispls[j] and send
 * sbytes[i] bytes from sbuf + sdispls[i] to dst[i], all at once (negative ranks skipped).
 * Edge i of a sender carries the sub-tag ssub[i] (0..1023) and edge j of a receiver takes
 * rsub[j], so that several edges between one pair match the right way (NULL: all 0).
 * MPI's neighbour collectives are made of it. */
int rmp_neighbor_alltoallv(const void *sbuf, const size_t *sbytes, const size_t *sdispls,
                           const int *dst, const int *ssub, int outdeg, void *rbuf,
                           const size_t *rbytes, const size_t *rdispls, const int *src,
                           const int *rsub, int indeg, rmp_comm_t comm);
int rmp_ineighbor_alltoallv(const void *sbuf, const size_t *sbytes, const size_t *sdispls,
                            const int *dst, const int *ssub, int outdeg, void *rbuf,
                            const size_t *rbytes, const size_t *rdispls, const int *src,
                            const int *rsub, int indeg, rmp_comm_t comm, rmp_request_t *req);

/* ---- Introspection: parameters and counters (rmp_info, MPI_T) ---- */
/* The RMP_* parameters rmp_info lists, indexed 0..rmp_param_count()-1 in its order: the
 * core's, each built transport's, each registered module's. The set is fixed for the
 * life of the process. All are read-only: rmp parses them once, at rmp_init. */
enum {
    RMP_PARAM_BOOL = 0, /* read as int (0 or 1) */
    RMP_PARAM_INT,      /* int */
    RMP_PARAM_SIZE,     /* size_t (bytes) */
    RMP_PARAM_DOUBLE,   /* double */
    RMP_PARAM_STRING,   /* char[size] */
    RMP_PARAM_ENUM      /* int: index among the '|'-separated choices */
};
typedef struct rmp_param_info {
    const char *name;    /* the environment variable, RMP_... */
    const char *owner;   /* "core", a transport's or a module's name */
    const char *help;    /* one sentence, as rmp_info prints it */
    const char *defval;  /* the default, as it would be written in the environment */
    const char *choices; /* ENUM: "a|b|c"; others: NULL, a choice list or a range "lo..hi" */
    int type;            /* RMP_PARAM_* */
    size_t size;         /* STRING: capacity with the terminating NUL; else the value's size */
} rmp_param_info_t;
int rmp_param_count(void);
/* RMP_ERR_ARG for a bad index or NULL info. The strings live as long as the process. */
int rmp_param_get_info(int index, rmp_param_info_t *info);
/* The value in force into buf (len bytes, at least info.size): after rmp_init the one it
 * parsed; before it, the one it would parse from the environment (else the default).
 * RMP_ERR_ARG for a bad index, NULL buf or len too small. */
int rmp_param_read(int index, void *buf, size_t len);

/* This rank's point-to-point counters since rmp_init (all zero before it). Messages are
 * counted by the protocol that moved them, once each; received: every message that
 * arrived from a rank, matched or not. Read without stopping traffic: under
 * RMP_THREAD_MULTIPLE the engine lock is taken for the copy. */
typedef struct rmp_stats {
    uint64_t msgs_sent, bytes_sent;   /* all protocols */
    uint64_t eager_sent, eager_bytes; /* ... of which eager */
    uint64_t rndv_sent, rndv_bytes;   /* ... rendezvous */
    uint64_t frag_sent, frag_bytes;   /* ... fragmented */
    uint64_t msgs_recvd, bytes_recvd;
    uint64_t unexpected;              /* messages that arrived before their receive */
    uint64_t unexpected_len;          /* now in the unexpected queue */
    uint64_t unexpected_high_water;   /* the longest it has been */
    uint64_t posted_len;              /* receives now waiting for a message */
    uint64_t direct_bytes; /* data in a layout with segments that left or landed in them by a
                            * straight copy, sent and received (rmp_layout_t.segments) */
} rmp_stats_t;
int rmp_stats_get(rmp_stats_t *st); /* RMP_ERR_ARG for NULL st */

#ifdef __cplusplus
}
#endif
#endif /* RMP_H */
