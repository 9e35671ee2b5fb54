/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared-memory allreduce for a communicator on one node.
 *
 * One segment per communicator (a nameless memfd, core/shmem.c), made by comm rank 0 on
 * the first call and mapped by the others:
 *
 *   [ n control lines ][ set 0: n input slots, 1 result slot ][ set 1: the same ]
 *
 * Control line r is written only by rank r: in_seq = k + 1 once its input of chunk k is in
 * its slot, red_seq = k + 1 once it has reduced its slice of chunk k. k counts chunks over
 * the communicator's lifetime (every rank runs the same chunks), and chunk k uses set
 * k & 1. A large chunk: copy in; wait for all in_seq; reduce my slice of the chunk across
 * the n inputs, x0 op x1 op ... in rank order, into the result slot; wait for all
 * red_seq; copy the whole result out. A small vector (one round): copy in, wait for all
 * in_seq, every rank reduces the whole vector itself, in rank order. Either way every
 * element is reduced in the same order as the direct algorithm: bitwise identical on every
 * rank and to `direct`.
 *
 * Why two sets and no barrier between chunks: a rank writes set s again at chunk k + 2
 * only after it saw every in_seq reach k + 2, and a rank publishes chunk k + 1's input
 * only after it finished reading chunk k (its reduction and its copy out). So the readers
 * of set s are done before anyone overwrites it.
 *
 * Waiting spins on the control lines and runs the progress engine in between (other
 * requests move; with more ranks than cores it yields the core, so a descheduled peer
 * gets to run), checks RMP_TIMEOUT and peer failures. No system call otherwise. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "coll_algo.h"
#include "coll_blocks.h"
#include "coll_comm.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "coll_shm.h"
#include "coll_shm_seg.h"
#include "coll_tune.h"
#include "log.h"

/* Chunk (slot) size: a pipeline step. 64 KiB keeps both sets of 2 ranks in L2 (at 1-4 MiB,
 * 2 ranks: about 2x the bandwidth of 256 KiB chunks, measured on the 2-core EPYC). */
#define SHM_CHUNK (64u << 10)
/* With more ranks than cores each wait of a chunk costs a round of context switches, so
 * fewer, larger chunks win: osu_allreduce at 4 ranks on 2 cores, 1 MiB, median of 5
 * interleaved runs: 587 us with 64 KiB chunks, 237 with 256 KiB, 199 with 512 KiB, 250
 * with 1 MiB (bcast 1 MiB 313 -> 158, alltoall 256 KiB 292 -> 150 us). Rank 0 decides
 * (shm_attach): the ranks must agree on the layout. */
#define SHM_CHUNK_OVERSUB (512u << 10)
/* Up to this many bytes, one round where every rank reduces the whole vector: one wait
 * instead of two. On 2 ranks the chunked round wins above 4 KiB (8 KiB: 0.62 vs 0.74 us);
 * on more ranks (and oversubscribed) each wait costs more: 16 KiB. */
#define SHM_SMALL(n) ((n) <= 2 ? 4096u : 16384u)
/* Calls on a communicator that take the point-to-point algorithms before its segment. */
#define SHM_AFTER 5
/* Run the progress engine (which may yield or sleep), read the clock, update the hang
 * report and look for failed members every this many polls of the control lines (when
 * progress does not yield: with oversubscription, on every poll). While the rank has a
 * window the polls between still poll the transports (rmpi_progress_serve_rma): a rank
 * waiting here serves the one-sided operations others send it as messages, and when it
 * polled only every 64 polls (a pause each, about 3 us) an 8-byte put + flush to a rank
 * in a barrier took 1.8 us instead of 0.3. */
#define SHM_POLLS 64



static size_t shm_chunk_bytes(int n)
{
    size_t c = SHM_CHUNK;
    if (coll_params.shm_chunk)
        c = coll_params.shm_chunk < (256u << 20) ? coll_params.shm_chunk : (256u << 20);
    else if (n > 32) /* keep the segment near 4 MiB */
        c = (4u << 20) / (2 * (size_t)(n + 1));
    else if (rmpi_oversubscribed()) /* and near 6 MiB */
        c = (6u << 20) / (2 * (size_t)(n + 1)) < SHM_CHUNK_OVERSUB
                ? (6u << 20) / (2 * (size_t)(n + 1))
                : SHM_CHUNK_OVERSUB;
    c &= ~(size_t)4095;
    return c < 16384 ? 16384 : c;
}




size_t coll_shm_slot_bytes(rmp_comm_t comm)
{
    return ((coll_comm_t *)comm->coll_priv)->shm->chunk;
}

void coll_shm_free(coll_shm_t *s)
{
    if (!s)
        return;
    free(s->piece);
    if (s->mem.addr)
        rmpi_shmem_destroy(&s->mem);
    else if (s->base)
        munmap(s->base, s->len);
    free(s);
}

static size_t shm_len(int n, size_t chunk)
{
    return (((size_t)n * sizeof(shm_ctl_t) + 4095) & ~(size_t)4095) +
           2 * (size_t)(n + 1) * chunk;
}

/* Bytes of every slot mapped when the segment is made: what the one-round small
 * operations (SHM_SMALL) touch. The rest of a slot is mapped by the first operation
 * that uses it: populating all of it (MAP_POPULATE) made the segment cost 0.4 ms at
 * 2 ranks and 4.3 ms at 4 ranks on 2 cores (5 MiB, 512 KiB chunks), plus 0.6-1 ms in
 * every other rank, for communicators that move a few small messages (MPI_File_open's
 * private duplicate: an open took 4.5 ms at 4 ranks, ROMIO's 0.12 ms; docs/io.md). */
#define SHM_WARM ((size_t)16384)

static void shm_warm(coll_shm_t *s)
{
    size_t w = s->chunk < SHM_WARM ? s->chunk : SHM_WARM;
    rmpi_shmem_prefault(s->base, (size_t)(shm_slot(s, 0, 0) - s->base)); /* control lines */
    for (uint64_t k = 0; k < 2; k++)
        for (int r = 0; r <= s->n; r++)
            rmpi_shmem_prefault(shm_slot(s, k, r), w);
}

/* Rank 0 makes the segment and sends its name, chunk size and single-copy switch
 * (RMP_COLL_SHM_CMA): the ranks must agree on the algorithm; the others map it. */
static int shm_attach(rmp_comm_t comm, coll_shm_t *s)
{
    struct {
        uint64_t chunk, cma_min;
        char name[sizeof(s->mem.name)];
    } hello;
    memset(&hello, 0, sizeof(hello)); /* the padding travels too */
    int rc = RMP_SUCCESS;
    if (comm->rank == 0) {
        s->chunk = shm_chunk_bytes(s->n);
        s->cma_min = coll_params.shm_cma;
        s->len = shm_len(s->n, s->chunk);
        rc = rmpi_shmem_create(s->len, "rmp-coll", 0, &s->mem);
        if (rc == RMP_SUCCESS) {
            s->base = s->mem.addr;
            shm_warm(s);
            hello.chunk = s->chunk;
            hello.cma_min = coll_params.shm_cma;
            memcpy(hello.name, s->mem.name, sizeof(hello.name));
        }
    }
    int brc = coll_bcast_run(&hello, sizeof(hello), 0, comm, COLL_BCAST_LINEAR);
    if (brc != RMP_SUCCESS)
        return brc;
    if (comm->rank != 0) {
        void *p = NULL;
        s->chunk = (size_t)hello.chunk;
        s->cma_min = (size_t)hello.cma_min;
        s->len = shm_len(s->n, s->chunk);
        rc = hello.name[0] ? rmpi_shmem_attach(hello.name, s->len, 0, &p) : RMP_ERR_NOMEM;
        if (rc == RMP_SUCCESS) {
            s->base = p;
            shm_warm(s);
        }
    }
    /* Everybody has mapped it (or failed) once this returns: rank 0 drops the fd. */
    int32_t mine = rc, all = RMP_SUCCESS;
    int arc = coll_allreduce_run(&mine, &all, 1, RMP_INT32, RMP_MIN, comm, COLL_ALLREDUCE_DIRECT);
    rmpi_shmem_seal(&s->mem);
    return arc != RMP_SUCCESS ? arc : all;
}

int coll_shm_setup(rmp_comm_t comm)
{
    coll_comm_t *cc = coll_comm_get(comm);
    if (!cc || cc->nodes != 1 || comm->size < 2)
        return 0;
    if (cc->shm_state != 0)
        /* After a timeout (RMP_TIMEOUT, state 2) the ranks no longer agree on the chunk
         * numbers: later calls take the point-to-point algorithms, which report their own. */
        return cc->shm_state == 1;
    /* The segment only from the (SHM_AFTER + 1)th call that wants it (every rank counts
     * the same calls): making it costs a file, a map, a bcast and an allreduce, and its
     * unmapping a TLB shootdown in every thread, more than a few point-to-point rounds.
     * Communicators made for a barrier or two (threads/comm/comm_create_threads: 8
     * threads x 100 create, barrier, free) spent most of their time there. MPICH waits
     * for 5 calls likewise (MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD). */
    if (cc->shm_calls < SHM_AFTER) {
        cc->shm_calls++;
        return 0;
    }
    coll_shm_t *s = calloc(1, sizeof(*s));
    int rc = RMP_ERR_NOMEM;
    if (s) {
        s->mem.fd = -1;
        s->n = comm->size;
        rc = shm_attach(comm, s);
    }
    if (rc != RMP_SUCCESS) {
        rmpi_warn("shared-memory allreduce unavailable on a %d-rank communicator (%s): "
                  "using the point-to-point algorithms",
                  comm->size, rmp_strerror(rc));
        coll_shm_free(s);
        cc->shm_state = -1;
        return 0;
    }
    cc->shm = s;
    cc->shm_state = 1;
    return 1;
}

/* Wait until the counter at byte offset `field` of the control line of every rank (of rank
 * `only` if >= 0) is >= want. */
int coll_shm_wait_for(coll_shm_t *s, size_t field, uint64_t want, rmp_comm_t comm, int only)
{
    int r = only >= 0 ? only : 0, n = only >= 0 ? only + 1 : s->n, rc;
    unsigned polls = 0;
    int yields = 0;
    rmpi_waiter_t w;
    int have_waiter = 0;
    rmpi_diag_t outer = rmpi_diag_save();
    for (;;) {
        while (r < n && __atomic_load_n((uint64_t *)((char *)shm_ctl(s, r) + field),
                                        __ATOMIC_ACQUIRE) >= want)
            r++;
        if (r == n) {
            rmpi_progress_active(); /* the peers are busy: no sleeping between calls */
            rc = RMP_SUCCESS;
            break;
        }
        if (!polls++)
            yields = rmpi_progress_yields();
        if (polls % SHM_POLLS != 0 && !yields) {
            rmpi_progress_serve_rma();
            shm_relax();
            continue;
        }
        rmpi_progress();
        if (!have_waiter) {
            rmpi_waiter_init(&w);
            have_waiter = 1;
        }
        /* For the SIGUSR1 / rrun --timeout report: which rank this one waits for. */
        rmpi_diag_wait_coll(comm, rmpi_comm_world_rank(comm, r));
        rc = rmpi_waiter_poll(&w);
        /* Any member, not only rank r: a survivor that saw the failure first stops
         * publishing, and waiting on it would hang. */
        if (rc == RMP_SUCCESS && (polls & 1023) == 0 && rmpi_comm_lost_member(comm))
            rc = RMP_ERR_PEER_FAILED;
        if (rc != RMP_SUCCESS) {
            s->broken = rc;
            if (rc == RMP_ERR_TIMEOUT)
                ((coll_comm_t *)comm->coll_priv)->shm_state = 2;
            break;
        }
    }
    rmpi_diag_restore(outer);
    return rc;
}





/* Rank r's input of chunk k: in its control line (inl) or its slot. */
static const char *shm_input(coll_shm_t *s, uint64_t k, int r, int inl)
{
    return inl ? (const char *)shm_ctl(s, r)->inl[k & 1] : shm_slot(s, k, r);
}

/* out = in[0] op in[1] op ... op in[n-1] over count elements; in[me] is `mine`. */
static void shm_reduce_all(coll_shm_t *s, uint64_t k, size_t off, const char *mine, char *out,
                           size_t count, rmp_datatype_t dt, rmp_op_t op, int me, int inl)
{
    const char *a = me == 0 ? mine : shm_input(s, k, 0, inl) + off;
    const char *b = me == 1 ? mine : shm_input(s, k, 1, inl) + off;
    coll_op_reduce3(out, a, b, count, dt, op);
    for (int r = 2; r < s->n; r++)
        coll_op_reduce(out, r == me ? mine : shm_input(s, k, r, inl) + off, count, dt, op);
}

int coll_shm_allreduce(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
                       rmp_op_t op, rmp_comm_t comm)
{
    coll_shm_t *s = ((coll_comm_t *)comm->coll_priv)->shm;
    if (s->broken)
        return s->broken;
    int n = s->n, me = comm->rank, rc = RMP_SUCCESS;
    size_t es = coll_dt_size(dt), bytes = count * es;
    if (n == 2 && bytes >= s->cma_min && coll_shm_cma_ready(comm, bytes, es))
        return coll_shm_allreduce_cma(src, rbuf, count, dt, op, comm);
    (void)coll_next_tag(comm); /* numbered like every collective (the hang report) */
    const size_t in_f = offsetof(shm_ctl_t, in_seq), red_f = offsetof(shm_ctl_t, red_seq);
    if (bytes <= SHM_SMALL(n)) {
        /* In place, rbuf is my input: take my operand from the slot, not from rbuf. */
        uint64_t k;
        if ((rc = shm_claim(s, comm, &k)) != RMP_SUCCESS)
            return rc;
        int inl = bytes <= SHM_INLINE;
        char *slot = inl ? (char *)shm_ctl(s, me)->inl[k & 1] : shm_slot(s, k, me);
        memcpy(slot, src, bytes);
        shm_publish(s, in_f, k + 1, me);
        if ((rc = shm_wait(s, in_f, k + 1, comm)) == RMP_SUCCESS)
            shm_reduce_all(s, k, 0, slot, rbuf, count, dt, op, me, inl);
        return rc;
    }
    const size_t per = s->chunk / es; /* elements per chunk */
    for (size_t done = 0; done < count && rc == RMP_SUCCESS; done += per) {
        size_t cnt = count - done < per ? count - done : per, cb = cnt * es;
        const char *in = (const char *)src + done * es;
        coll_blocks_t b = coll_blocks_even(cnt, n, es);
        size_t lo = coll_blk_off(&b, me), hi = coll_blk_off(&b, me + 1);
        uint64_t k;
        if ((rc = shm_claim(s, comm, &k)) != RMP_SUCCESS)
            break;
        /* Nobody else reads my slice of my input: it stays in src. */
        char *slot = shm_slot(s, k, me), *res = shm_slot(s, k, n);
        memcpy(slot, in, lo);
        memcpy(slot + hi, in + hi, cb - hi);
        shm_publish(s, in_f, k + 1, me);
        if ((rc = shm_wait(s, in_f, k + 1, comm)) != RMP_SUCCESS)
            break;
        if (hi > lo)
            shm_reduce_all(s, k, lo, in + lo, res + lo, (hi - lo) / es, dt, op, me, 0);
        shm_publish(s, red_f, k + 1, me);
        if ((rc = shm_wait(s, red_f, k + 1, comm)) != RMP_SUCCESS)
            break;
        memcpy((char *)rbuf + done * es, res, cb);
    }
    return rc;
}

/* Barrier: every rank publishes one chunk number without data. On 2 ranks each waits for
 * the other's (one cache-line exchange). On more, rank 0 waits for all and then releases
 * the others through its red_seq: one round either way, and a rank that arrives needs
 * nobody else to run (no chain of rounds each waiting for a descheduled rank, when ranks
 * outnumber cores); releasing from rank 0 means rank 0 leaves first, so work it starts
 * right after the barrier (a bcast from 0: 0.08 vs 1.1 us at 4 ranks on 2 cores,
 * measured) is already under way when the others look. */
int coll_shm_barrier(rmp_comm_t comm)
{
    coll_shm_t *s = ((coll_comm_t *)comm->coll_priv)->shm;
    if (s->broken)
        return s->broken;
    (void)coll_next_tag(comm); /* numbered like every collective (the hang report) */
    const size_t in_f = offsetof(shm_ctl_t, in_seq), red_f = offsetof(shm_ctl_t, red_seq);
    uint64_t k = s->seq++;
    shm_publish(s, in_f, k + 1, comm->rank);
    if (s->n == 2)
        return shm_wait(s, in_f, k + 1, comm);
    if (comm->rank != 0)
        return coll_shm_wait_for(s, red_f, k + 1, comm, 0);
    int rc = shm_wait(s, in_f, k + 1, comm);
    if (rc == RMP_SUCCESS)
        shm_publish(s, red_f, k + 1, 0);
    return rc;
}

/* Bcast, chunk by chunk through the result slot: the root copies in and publishes; each
 * reader waits for the root alone, copies out and publishes that it is done. The root does
 * not wait for the readers (until it needs the set again, shm_claim). */
int coll_shm_bcast(void *buf, size_t bytes, int root, rmp_comm_t comm)
{
    coll_shm_t *s = ((coll_comm_t *)comm->coll_priv)->shm;
    if (s->broken)
        return s->broken;
    (void)coll_next_tag(comm); /* numbered like every collective (the hang report) */
    const size_t in_f = offsetof(shm_ctl_t, in_seq);
    int me = comm->rank, rc = RMP_SUCCESS;
    for (size_t done = 0; done < bytes && rc == RMP_SUCCESS; done += s->chunk) {
        size_t cb = bytes - done < s->chunk ? bytes - done : s->chunk;
        uint64_t k;
        if (me == root) {
            if ((rc = shm_claim(s, comm, &k)) != RMP_SUCCESS)
                break;
            memcpy(shm_slot(s, k, s->n), (char *)buf + done, cb);
        } else {
            k = s->seq++;
            if ((rc = coll_shm_wait_for(s, in_f, k + 1, comm, root)) != RMP_SUCCESS)
                break;
            memcpy((char *)buf + done, shm_slot(s, k, s->n), cb);
        }
        shm_publish(s, in_f, k + 1, me);
    }
    return rc;
}

/* Allgather, chunk by chunk: every rank copies its block into its slot, waits for all,
 * copies the others' out. Two copies like the eager path, but one wait for all ranks
 * instead of a message (and, from 64 KiB, a rendezvous) per pair. */
int coll_shm_allgather(const void *src, void *rbuf, size_t blk, rmp_comm_t comm)
{
    coll_shm_t *s = ((coll_comm_t *)comm->coll_priv)->shm;
    if (s->broken)
        return s->broken;
    (void)coll_next_tag(comm); /* numbered like every collective (the hang report) */
    const size_t in_f = offsetof(shm_ctl_t, in_seq);
    int me = comm->rank, rc = RMP_SUCCESS;
    char *out = rbuf;
    for (size_t done = 0; done < blk && rc == RMP_SUCCESS; done += s->chunk) {
        size_t cb = blk - done < s->chunk ? blk - done : s->chunk;
        uint64_t k;
        if ((rc = shm_claim(s, comm, &k)) != RMP_SUCCESS)
            break;
        memcpy(shm_slot(s, k, me), (const char *)src + done, cb);
        shm_publish(s, in_f, k + 1, me);
        if ((rc = shm_wait(s, in_f, k + 1, comm)) != RMP_SUCCESS)
            break;
        for (int r = 0; r < s->n; r++)
            if (r != me)
                memcpy(out + (size_t)r * blk + done, shm_slot(s, k, r), cb);
    }
    char *mine = out + (size_t)me * blk;
    if (rc == RMP_SUCCESS && src != mine)
        memcpy(mine, src, blk);
    return rc;
}

/* One step of alltoall and reduce_scatter: claim a chunk, write bytes [done, done + cb) of
 * every block but mine (blocks of bb bytes at in) side by side, `piece` apart, into my slot,
 * publish, wait for all. Then slot r holds at me * piece what rank r has for me. */
static int shm_pieces_step(coll_shm_t *s, rmp_comm_t comm, const char *in, size_t bb,
                           size_t done, size_t cb, size_t piece, uint64_t *k)
{
    const size_t in_f = offsetof(shm_ctl_t, in_seq);
    int me = comm->rank, rc = shm_claim(s, comm, k);
    if (rc != RMP_SUCCESS)
        return rc;
    char *slot = shm_slot(s, *k, me);
    for (int j = 0; j < s->n; j++)
        if (j != me)
            memcpy(slot + (size_t)j * piece, in + (size_t)j * bb + done, cb);
    shm_publish(s, in_f, *k + 1, me);
    return shm_wait(s, in_f, *k + 1, comm);
}

/* Alltoall, piece by piece: a step moves `piece` bytes of every block; each rank writes
 * the pieces for ranks 0..n-1 side by side into its slot, waits for all, and takes the
 * piece addressed to it from every slot. In place works as is: a step reads its part of
 * rbuf into the slot before it overwrites that part. */
int coll_shm_alltoall(const void *src, void *rbuf, size_t blk, rmp_comm_t comm)
{
    coll_shm_t *s = ((coll_comm_t *)comm->coll_priv)->shm;
    if (s->broken)
        return s->broken;
    (void)coll_next_tag(comm); /* numbered like every collective (the hang report) */
    int n = s->n, me = comm->rank, rc = RMP_SUCCESS;
    const char *in = src;
    char *out = rbuf;
    size_t piece = s->chunk / (size_t)n;
    if (src != rbuf)
        memcpy(out + (size_t)me * blk, in + (size_t)me * blk, blk);
    for (size_t done = 0; done < blk && rc == RMP_SUCCESS; done += piece) {
        size_t cb = blk - done < piece ? blk - done : piece;
        uint64_t k;
        if ((rc = shm_pieces_step(s, comm, in, blk, done, cb, piece, &k)) != RMP_SUCCESS)
            break;
        for (int r = 0; r < n; r++)
            if (r != me)
                memcpy(out + (size_t)r * blk + done, shm_slot(s, k, r) + (size_t)me * piece, cb);
    }
    return rc;
}

/* Reduce_scatter, piece by piece like alltoall: each rank writes a piece of every block
 * but its own into its slot, waits for all, and reduces the pieces addressed to it in rank
 * order (its own from its input): the order of rmp_reduce_scatter's direct algorithm. In
 * place, the output (the first block of rbuf) is written only where this step's input was
 * already copied out. */
int coll_shm_reduce_scatter(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
                            rmp_op_t op, rmp_comm_t comm)
{
    coll_shm_t *s = ((coll_comm_t *)comm->coll_priv)->shm;
    if (s->broken)
        return s->broken;
    (void)coll_next_tag(comm); /* numbered like every collective (the hang report) */
    int n = s->n, me = comm->rank, rc = RMP_SUCCESS;
    size_t es = coll_dt_size(dt), bb = count * es;
    size_t piece = s->chunk / (size_t)n / es * es;
    const char *in = src;
    char *out = rbuf;
    for (size_t done = 0; done < bb && rc == RMP_SUCCESS; done += piece) {
        size_t cb = bb - done < piece ? bb - done : piece;
        uint64_t k;
        if ((rc = shm_pieces_step(s, comm, in, bb, done, cb, piece, &k)) != RMP_SUCCESS)
            break;
        shm_reduce_all(s, k, (size_t)me * piece, in + (size_t)me * bb + done, out + done,
                       cb / es, dt, op, me, 0);
    }
    return rc;
}
