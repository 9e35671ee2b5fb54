/* SPDX-License-Identifier: BSD-3-Clause */
/* Collective algorithms (internal). Every collective runs over point-to-point messages on
 * the communicator's collective context, so it never matches a user receive. Context id and
 * tag layout belong to core/coll_id.h: each collective call takes a tag base from
 * coll_next_tag and adds its phase (< COLL_SUB_MAX). Within a phase, messages between a
 * pair are matched in the order they were sent; the algorithms post receives in the order
 * their peers send.
 *
 * Determinism: every reducing algorithm combines partial results in an order that depends
 * only on (count, datatype, number of ranks, algorithm), and the algorithm choice depends
 * only on those too, so allreduce results are bitwise identical on every rank. Where two
 * ranks combine the same pair of partial results (recursive doubling), the partial result
 * of the lower ranks is the left operand on both.
 */
#ifndef COLL_H
#define COLL_H

#include <stdlib.h>
#include <string.h>

#include "coll_op.h"
#include "coll_id.h"
#include "comm.h"
#include "p2p.h"

#define COLL_SUB_MAX RMPI_COLL_PHASE_MAX
/* Scratch up to this size lives on the stack. */
#define COLL_STACK_BYTES 4096
/* allgatherv with equal counts: blocks that land apart on a rank (or are layouts) go
 * through scratch up to this many bytes in all; above it, the ring (coll_v.c). */
#define COLL_V_SCRATCH ((size_t)1 << 20)

static inline uint32_t coll_cid(rmp_comm_t comm)
{
    return rmpi_cid_coll(comm);
}

/* Tag base of a new collective call on comm (phase 0). */
static inline int coll_next_tag(rmp_comm_t comm)
{
    return rmpi_coll_next_tag(comm);
}

/* ---- Blocks: a vector cut into contiguous parts. ----
 * Part i has q + (i < r) elements of es bytes. With fold > 0, index i names the group of
 * parts that one rank of a folded power-of-two group owns: i < fold stands for parts
 * 2i and 2i+1, i >= fold for part i + fold (see coll_fold_*). */
typedef struct coll_blocks {
    size_t q, r, es;
    int fold;
} coll_blocks_t;

static inline coll_blocks_t coll_blocks_even(size_t count, int parts, size_t es)
{
    coll_blocks_t b = {count / (size_t)parts, count % (size_t)parts, es, 0};
    return b;
}

/* Byte offset of (group) index i; coll_blk_off(b, i + 1) - coll_blk_off(b, i) is its size. */
static inline size_t coll_blk_off(const coll_blocks_t *b, int i)
{
    size_t k = (size_t)(i < b->fold ? 2 * i : i + b->fold);
    return (k * b->q + (k < b->r ? k : b->r)) * b->es;
}

static inline size_t coll_blk_len(const coll_blocks_t *b, int i)
{
    return coll_blk_off(b, i + 1) - coll_blk_off(b, i);
}

/* ---- Non-power-of-two folding (MPICH): with pof2 the largest power of two <= n and
 * rem = n - pof2, ranks 2i and 2i+1 (i < rem) act as the single rank i of a power-of-two
 * group: the even one hands its data to the odd one and sits out. ---- */
static inline int coll_pof2(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* Rank in the folded group, or -1 for a rank that sits out. */
static inline int coll_fold_rank(int rank, int rem)
{
    if (rank < 2 * rem)
        return rank & 1 ? rank / 2 : -1;
    return rank - rem;
}

static inline int coll_fold_real(int nr, int rem)
{
    return nr < rem ? 2 * nr + 1 : nr + rem;
}

/* ---- Point-to-point on the collective context (coll_p2p.c). ---- */

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

/* ---- Argument checks. Every collective call runs several: the passing case is inline
 * (a few instructions, no call), the failing case logs out of line (coll_p2p.c). ---- */

/* rmpi_comm_check, then RMP_ERR_PEER_FAILED if a member of comm has failed; records
 * the call name for the SIGUSR1 report. */
static inline int coll_check_comm(rmp_comm_t comm, const char *call)
{
    int rc = rmpi_comm_check(comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    rmpi_diag_coll_enter(call);
    /* Without a member the collective cannot complete anywhere: fail at once,
     * the same on every survivor, rather than after a partial exchange. */
    return RMPI_UNLIKELY(rmpi_comm_lost_member(comm)) ? RMP_ERR_PEER_FAILED : RMP_SUCCESS;
}
/* Each returns RMP_SUCCESS or RMP_ERR_ARG (logged). */
int coll_check_dt(rmp_datatype_t dt);
int coll_check_dt_op_fail(rmp_datatype_t dt, rmp_op_t op);
static inline int coll_check_dt_op(rmp_datatype_t dt, rmp_op_t op)
{
    return RMPI_LIKELY(coll_op_check(dt, op) == RMP_SUCCESS) ? RMP_SUCCESS
                                                             : coll_check_dt_op_fail(dt, op);
}
int coll_check_root(int root, rmp_comm_t comm);
/* buf must be non-NULL and not RMP_IN_PLACE (unless in_place_ok) when bytes > 0. */
void coll_check_buf_fail(const void *buf, const char *what) __attribute__((cold));
static inline int coll_check_buf(const void *buf, int in_place_ok, const char *what)
{
    if (RMPI_LIKELY(buf != NULL && (in_place_ok || buf != RMP_IN_PLACE)))
        return RMP_SUCCESS;
    coll_check_buf_fail(buf, what);
    return RMP_ERR_ARG;
}
/* count * es * mult in *bytes, RMP_ERR_ARG on overflow. */
void coll_bytes_overflow(size_t count) __attribute__((cold));
static inline int coll_bytes(size_t count, size_t es, size_t mult, size_t *bytes)
{
    size_t b;
    if (RMPI_UNLIKELY(__builtin_mul_overflow(count, es, &b) ||
                      __builtin_mul_overflow(b, mult, &b) || b > (SIZE_MAX >> 1))) {
        coll_bytes_overflow(count);
        return RMP_ERR_ARG;
    }
    *bytes = b;
    return RMP_SUCCESS;
}

/* Scratch: the stack buffer when it is big enough, else malloc. */
static inline void *coll_scratch(void *stack, size_t stack_len, size_t need)
{
    return need <= stack_len ? stack : malloc(need ? need : 1);
}

static inline void coll_scratch_free(void *p, void *stack)
{
    if (p != stack)
        free(p);
}

/* ---- Building blocks shared by several collectives. ----
 * comm ranks are used as given; `me` is this rank's block index where it differs. */

/* Ring allgather in place over the n blocks of b (b->fold == 0): buf holds block `me` (the
 * block of comm rank (rank + k) % n is (me + k) % n); on return it holds every block. */
int coll_ag_ring(char *buf, const coll_blocks_t *b, int me, rmp_comm_t comm, int tag);

/* Recursive-halving reduce-scatter among the pof2 ranks of a folded group (rank nr of the
 * group is comm rank coll_fold_real(nr, rem)): acc holds this rank's (folded) contribution
 * to the whole vector; on return the group blocks [lo, hi) of coll_halving_window() hold
 * the reduction over the group: block nr when !near_first, one block in a bit-reversed
 * order when near_first (the steps go from the nearest peer to the farthest, and combine
 * the same tree as recursive doubling). tmp: scratch of the whole vector,
 * coll_blk_off(b, pof2) bytes. Lower ranks' data is the left operand. */
int coll_rs_halving(char *acc, char *tmp, const coll_blocks_t *b, int nr, int pof2, int rem,
                    int near_first, rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm, int tag);
/* Mask of halving step i: near_first goes 1, 2, .., pof2/2 (the biggest exchanges are
 * between neighbouring ranks, usually on one node), otherwise pof2/2 .. 1. */
static inline int coll_halving_mask(int i, int pof2, int near_first)
{
    return near_first ? 1 << i : (pof2 >> 1) >> i;
}
void coll_halving_window(int nr, int pof2, int near_first, int *lo, int *hi);

/* Recursive-doubling allgather in place among the pof2 ranks of a folded group, the
 * inverse of coll_rs_halving with the same near_first: buf holds the group blocks of
 * coll_halving_window(); on return it holds all pof2 group blocks. */
int coll_ag_doubling(char *buf, const coll_blocks_t *b, int nr, int pof2, int rem,
                     int near_first, rmp_comm_t comm, int tag);

/* Ring reduce-scatter over the n blocks of b (b->fold == 0): src holds this rank's whole
 * contribution (not modified); the reduction of block `rank` is written to dst, which may
 * be src's block `rank`. tmp: scratch of 2 * the largest block. */
int coll_rs_ring(const char *src, char *dst, char *tmp, const coll_blocks_t *b,
                 rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm, int tag);

/* Largest block of b. */
static inline size_t coll_blk_max(const coll_blocks_t *b)
{
    return (b->q + (b->r > 0)) * b->es * (b->fold > 0 ? 2 : 1);
}

/* ---- Algorithm selection (coll_tune.c). ---- */
typedef enum {
    COLL_BARRIER,
    COLL_BCAST,
    COLL_REDUCE,
    COLL_ALLREDUCE,
    COLL_ALLGATHER,
    COLL_REDUCE_SCATTER,
    COLL_ALLTOALL,
    COLL_NKINDS
} coll_kind_t;

enum { COLL_BARRIER_DISSEMINATION, COLL_BARRIER_DIRECT, COLL_BARRIER_HIER, COLL_BARRIER_SHM };
enum { COLL_BCAST_BINOMIAL, COLL_BCAST_SCATTER_ALLGATHER, COLL_BCAST_LINEAR, COLL_BCAST_HIER,
       COLL_BCAST_SHM };
enum { COLL_REDUCE_BINOMIAL, COLL_REDUCE_RS_GATHER, COLL_REDUCE_LINEAR };
enum {
    COLL_ALLREDUCE_RD,
    COLL_ALLREDUCE_RABENSEIFNER,
    COLL_ALLREDUCE_RING,
    COLL_ALLREDUCE_DIRECT,
    COLL_ALLREDUCE_SHM, /* single node: one shared segment (coll_shm.c) */
    COLL_ALLREDUCE_HIER /* node step, one leader per node, node step (coll_hier.c) */
};
enum { COLL_ALLGATHER_RD, COLL_ALLGATHER_BRUCK, COLL_ALLGATHER_RING, COLL_ALLGATHER_DIRECT,
       COLL_ALLGATHER_SHM };
enum { COLL_RS_HALVING, COLL_RS_RING, COLL_RS_DIRECT, COLL_RS_SHM };
enum { COLL_ALLTOALL_PAIRWISE, COLL_ALLTOALL_BRUCK, COLL_ALLTOALL_LINEAR, COLL_ALLTOALL_SHM };

/* The algorithm for a call of `kind` moving `bytes` (the vector for barrier/bcast/reduce/
 * allreduce, the per-rank block for allgather/reduce_scatter/alltoall) on n ranks spread
 * over `nodes` nodes (coll_comm_nodes): the RMP_<KIND>_ALGO override, else the tuning
 * table. RMP_ERR_ARG (logged, with the valid names) for an unknown name in the
 * environment. */
int coll_select(coll_kind_t kind, size_t bytes, int n, int nodes, int *algo);
/* The same for a call on comm (n and nodes its own), memoised per communicator
 * (coll_select_comm, after coll_comm_t below). */
int coll_select_comm_slow(coll_kind_t kind, size_t bytes, rmp_comm_t comm, int *algo);
/* Bumped by every tuning-table install: memoised selections made before are stale. */
extern unsigned coll_tune_gen;
/* The flat table alone (no override, no node layout): what the node-aware algorithms run
 * on their sub-communicators, and the fallback when they cannot run. */
int coll_select_flat(coll_kind_t kind, size_t bytes, int n);
const char *coll_algo_name(coll_kind_t kind, int algo);
/* The collectives' parameters (coll_tune.c owns them and their table). */
#define COLL_ALGO_LEN 32
typedef struct coll_params {
    char algo[COLL_NKINDS][COLL_ALGO_LEN]; /* RMP_<KIND>_ALGO */
    bool check;                            /* RMP_COLL_CHECK */
    size_t shm_chunk;                      /* RMP_COLL_SHM_CHUNK (0: automatic) */
} coll_params_t;
extern coll_params_t coll_params;
/* RMP_COLL_CHECK: cross-check every blocking collective call (coll_check.c). */
static inline bool coll_tune_check(void)
{
    return coll_params.check;
}
/* RMP_COLL_CHECK: every rank agrees on the call (root/op < 0: not applicable). */
int coll_check_call_all(rmp_comm_t comm, const char *name, int root, size_t count,
                        rmp_datatype_t dt, int op);
static inline int coll_check_call(rmp_comm_t comm, const char *name, int root, size_t count,
                                  rmp_datatype_t dt, int op)
{
    if (RMPI_LIKELY(!coll_tune_check()) || comm->size == 1)
        return RMP_SUCCESS;
    return coll_check_call_all(comm, name, root, count, dt, op);
}
/* algo, or for a non-commutative op the order-preserving algorithm to run instead
 * (coll_op_ext.c); root matters for COLL_REDUCE only. The predefined ops all commute. */
int coll_algo_ordered_user(coll_kind_t kind, int algo, rmp_op_t op, int root);
static inline int coll_algo_ordered(coll_kind_t kind, int algo, rmp_op_t op, int root)
{
    return RMPI_LIKELY((unsigned)op < RMP_OP_USER) ? algo
                                                   : coll_algo_ordered_user(kind, algo, op, root);
}

/* One row of the selection table: it applies to a call when every limit holds; the first
 * row that applies wins. Limits that do not constrain are INT_MAX / SIZE_MAX (max) and 1
 * (min_nodes). The built-in rows and the rows of a tuning file (core/tuning.c) are both
 * read from the tuning-file text format (docs/tuning.md). */
typedef struct coll_row {
    coll_kind_t kind;
    int max_ranks;
    int min_nodes, max_nodes; /* nodes the communicator spans */
    int max_ppn;              /* ranks per node */
    size_t max_bytes;
    int algo;                 /* index into the kind's names (coll_algo_name) */
} coll_row_t;

/* A row as generated from tools/tuning/default.tune: the algorithm still a name. */
typedef struct coll_row_src {
    coll_kind_t kind;
    int max_ranks, min_nodes, max_nodes, max_ppn;
    size_t max_bytes;
    const char *algo;
    int line; /* in tools/tuning/default.tune */
} coll_row_src_t;
/* The built-in table, generated by tools/rmp_tune --emit-c (tune_default.c). */
extern const coll_row_src_t coll_default_rows[];
extern const size_t coll_default_nrows;

/* The layout a row's limits are compared with. Every rank of the communicator must
 * compute the same values (they decide which algorithm every rank runs). */
typedef struct coll_layout {
    int ranks, nodes, ppn;
} coll_layout_t;

/* Name lookups for tuning files: RMP_SUCCESS, or RMP_ERR_ARG (nothing logged). */
int coll_kind_by_name(const char *name, coll_kind_t *kind);
const char *coll_kind_name(coll_kind_t kind);
int coll_algo_by_name(coll_kind_t kind, const char *name, int *algo);
/* "a, b, c": the kind's algorithm names, for error messages. */
void coll_algo_list(coll_kind_t kind, char *buf, size_t len);
/* Make `rows` (a tuning file's, may be 0) the first rows of the table, ahead of the
 * built-in ones, which stay behind them as the fallback. Copies the rows. RMP_ERR_ARG
 * with a sentence in err when there are too many, RMP_ERR_INTERNAL when a built-in
 * row names an unknown algorithm. */
int coll_tune_install(const coll_row_t *rows, size_t n, char *err, size_t errlen);
/* The rows of the last tuning file parsed (rmpi_tuning_parse), for tests and rmp_info. */
const coll_row_t *coll_tune_file_rows(size_t *n);
/* The table in force (installing the built-in one if nothing was installed yet). */
const coll_row_t *coll_tune_rows(size_t *n);
/* The table's first matching row for the layout (RMP_<KIND>_ALGO not considered). */
int coll_tune_pick(coll_kind_t kind, size_t bytes, const coll_layout_t *lay);

/* ---- Schedules for the nonblocking collectives (coll_sched.c). ----
 * A schedule is a list of rounds; a round is a list of operations run in order when the
 * round starts: local ones (copy, reduce) at once, sends and receives posted. The round
 * ends when all of its sends and receives are done; then the next one starts. So a local
 * operation that consumes a receive goes in the round after it, before the sends that
 * forward its result. Building never fails: an allocation failure is remembered and
 * reported by coll_sched_start. */
typedef struct coll_sched coll_sched_t;

coll_sched_t *coll_sched_new(rmp_comm_t comm, rmp_datatype_t dt, rmp_op_t op, int tag);
/* Scratch owned by the schedule (freed with it); NULL on failure. */
void *coll_sched_scratch(coll_sched_t *s, size_t bytes);
void coll_sched_send(coll_sched_t *s, const void *buf, size_t bytes, int peer, int sub);
void coll_sched_recv(coll_sched_t *s, void *buf, size_t bytes, int peer, int sub);
/* out = a op b over count elements (out may be exactly a or b). */
/* The same on a layout (rmp_layout_t, which must live until the request completes; NULL
 * callbacks: plain bytes at ctx). */
void coll_sched_send_layout(coll_sched_t *s, const rmp_layout_t *lay, size_t bytes, int peer,
                            int sub);
void coll_sched_recv_layout(coll_sched_t *s, const rmp_layout_t *lay, size_t bytes, int peer,
                            int sub);
void coll_sched_copy_layout(coll_sched_t *s, const rmp_layout_t *dst, const rmp_layout_t *src,
                            size_t bytes);
void coll_sched_reduce3(coll_sched_t *s, void *out, const void *a, const void *b, size_t count);
void coll_sched_copy(coll_sched_t *s, void *dst, const void *src, size_t bytes);
/* End the current round (no-op when it is empty). */
void coll_sched_round(coll_sched_t *s);
/* Hand the schedule to the progress engine as a generic request and run what can run
 * now. On failure the schedule is freed and nothing was posted. */
int coll_sched_start(coll_sched_t *s, rmp_request_t *req);
void coll_sched_free(coll_sched_t *s);

/* ---- Layouts in the collectives (coll_vlayout.c) ---- */
/* NULL pack and unpack: the plain bytes at ctx. */
static inline int coll_layout_plain(const rmp_layout_t *l)
{
    return !l->pack && !l->unpack;
}
/* RMP_SUCCESS, or RMP_ERR_ARG (reported) for a NULL array, a layout with one callback of
 * two, or plain bytes at NULL, among the n blocks with bytes[i] > 0. */
int coll_layouts_check(const rmp_layout_t *lays, const size_t *bytes, int n, const char *call);
/* bytes of src's stream into dst's, through a small stack buffer. */
void coll_layout_copy(const rmp_layout_t *dst, const rmp_layout_t *src, size_t bytes);

/* Allreduce body without argument checks (also used by other collectives). */
int coll_allreduce_run(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                       rmp_op_t op, rmp_comm_t comm, int algo);
/* Bcast and barrier bodies, likewise (count > 0 for bcast). */
int coll_bcast_run(void *buf, size_t bytes, int root, rmp_comm_t comm, int algo);
int coll_barrier_run(rmp_comm_t comm, int algo);

/* ---- Per-communicator state (coll_comm.c), in comm->coll_priv. ---- */
typedef struct coll_shm coll_shm_t;
/* The last selection of one kind on a communicator: repeated calls of one size (the
 * common case) skip the table walk. gen: coll_tune_gen when made (0: empty). */
typedef struct coll_memo {
    size_t bytes;
    int algo;
    unsigned gen;
} coll_memo_t;

typedef struct coll_comm {
    coll_memo_t memo[COLL_NKINDS];
    int nodes;      /* nodes the communicator spans */
    int *node_idx;  /* comm rank -> node index, nodes numbered by their lowest comm rank */
    coll_shm_t *shm; /* single-node segment (coll_shm.c); NULL until the first use */
    int shm_state;  /* 0: not tried yet, 1: ready, -1: unavailable (same on every rank),
                     * 2: a wait timed out here (shm->broken): point-to-point from now on */
    int hier_state; /* 0: not tried yet, 1: node/leaders built, -1: failed */
    rmp_comm_t node;    /* hier: the ranks of this rank's node, in comm rank order */
    rmp_comm_t leaders; /* hier: the lowest comm rank of each node; NULL elsewhere */
} coll_comm_t;

static inline int coll_select_comm(coll_kind_t kind, size_t bytes, rmp_comm_t comm, int *algo)
{
    const coll_comm_t *cc = comm->coll_priv;
    if (RMPI_LIKELY(cc && cc->memo[kind].gen == coll_tune_gen && cc->memo[kind].bytes == bytes)) {
        *algo = cc->memo[kind].algo;
        return RMP_SUCCESS;
    }
    return coll_select_comm_slow(kind, bytes, comm, algo);
}

/* The state of comm, created on first use from rmpi_comm_node_of (no communication); NULL
 * when out of memory. */
coll_comm_t *coll_comm_get(rmp_comm_t comm);
/* Nodes comm spans: every rank computes the same value. Out of memory: comm->size (one
 * rank per node, so the flat table, which runs anywhere). */
int coll_comm_nodes(rmp_comm_t comm);

/* ---- Shared-memory allreduce on a single-node communicator (coll_shm.c). ---- */
/* Attach comm's segment on first use (collective: every rank of comm calls it at the same
 * point). 1 when the shm algorithm can run, 0 when not (more than one node, one rank, or
 * the segment could not be made); the same answer on every rank. */
int coll_shm_setup(rmp_comm_t comm);
static inline int coll_shm_ready(rmp_comm_t comm)
{
    const coll_comm_t *cc = comm->coll_priv;
    return RMPI_LIKELY(cc && cc->shm_state == 1) ? 1 : coll_shm_setup(comm);
}
/* rbuf = x0 op x1 op ... op xn-1 in rank order (bitwise identical everywhere). Needs
 * coll_shm_ready(comm) == 1. src may be rbuf (in place). */
int coll_shm_allreduce(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
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

/* ---- Hierarchical collectives (coll_hier.c): within each node, across one leader per
 * node, within each node again. Any layout (uneven nodes, one rank per node). ---- */
int coll_hier_allreduce(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
                        rmp_op_t op, rmp_comm_t comm);
int coll_hier_bcast(void *buf, size_t bytes, int root, rmp_comm_t comm);
int coll_hier_barrier(rmp_comm_t comm);

#endif /* COLL_H */
