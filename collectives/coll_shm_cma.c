/* SPDX-License-Identifier: BSD-3-Clause */
/* Single-copy allreduce on 2 ranks of one node, by cross-memory attach.
 *
 * Each rank owns half of the vector (rank 0 the first, coll_blocks_even). Through the
 * segment's control lines the ranks swap the addresses of their input and their result
 * buffer; then each rank, piece by piece (CMA_SLOTS slots, about L2-sized), reads the
 * peer's input of its half into a buffer of its own (process_vm_readv), reduces x0 op x1
 * into its own result buffer, and writes that piece, still in cache, into the peer's
 * result buffer (process_vm_writev). A rank returns once the peer says it is done with both of its
 * buffers. Per byte of the vector and rank that is half a kernel copy in, half a
 * reduction and half a kernel copy out, against the chunked segment's copy in, half a
 * reduction and copy out, or the ring's rendezvous copies through a full-size scratch.
 *
 * Every element is reduced once, x0 on the left: the bits of `direct` and of the chunked
 * segment, the same on both ranks; non-commutative user ops keep their order. In place,
 * the peer reads a piece of my input before it writes the same piece of my result (the
 * same memory), and touches only its half, which I do not.
 *
 * One exchange of pids and a probe read, agreed by both ranks, decides once per
 * communicator whether the kernel lets the ranks reach each other (ptrace rules, seccomp
 * in containers, RMP_SHM_CMA=off): if not, the chunked segment runs instead.
 *
 * Measured (osu_allreduce -f, float, 2 ranks bound, 5 interleaved rounds; the results
 * file under benchmarks/results/): see COLL_SHM_CMA_DEFAULT (coll_tune.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

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

#define CMA_MAGIC 0x726d70636d613232ull /* "rmpcma22" */
/* A piece is this many slots (256 KiB by default): each process_vm_readv/writev pins the
 * peer's pages and has a fixed cost, so larger pieces copy faster (1 MiB in pieces of
 * 64 / 128 / 256 / 512 KiB: 6.7 / 7.0 / 9.4 / 9.1 GB/s read, 7.1 / 7.7 / 9.7 / 8.6 GB/s
 * written, best of 7, this VM), while the piece, my input and my result of a piece still
 * mostly stay in L2 for the reduction. */
#define CMA_SLOTS 4

/* Both ranks run this at the same call (the same size, the same parameters): swap pid
 * and probe address, read the peer's probe, agree on the answer. */
static int cma_setup(coll_shm_t *s, rmp_comm_t comm)
{
    struct {
        int64_t pid;
        uint64_t probe;
    } me, peer;
    int other = 1 - comm->rank, rc;
    s->probe = CMA_MAGIC ^ (uint64_t)getpid();
    me.pid = getpid();
    me.probe = (uint64_t)(uintptr_t)&s->probe;
    rc = coll_sendrecv(&me, sizeof(me), other, &peer, sizeof(peer), other, coll_next_tag(comm),
                       comm);
    if (rc != RMP_SUCCESS)
        return rc;
    const char *off = getenv("RMP_SHM_CMA"); /* the transport's switch: off means off */
    int32_t ok = !(off && strcmp(off, "off") == 0), all = 0;
    if (ok && !s->piece)
        s->piece = aligned_alloc(RMPI_CACHELINE, CMA_SLOTS * s->chunk); /* a multiple of 4 KiB */
    ok = ok && s->piece;
    if (ok) {
        uint64_t v = 0;
        struct iovec l = {&v, sizeof(v)}, r = {(void *)(uintptr_t)peer.probe, sizeof(v)};
        ok = process_vm_readv((pid_t)peer.pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof(v) &&
             v == (CMA_MAGIC ^ (uint64_t)peer.pid);
    }
    rc = coll_allreduce_run(&ok, &all, 1, RMP_INT32, RMP_MIN, comm, COLL_ALLREDUCE_DIRECT);
    if (rc != RMP_SUCCESS)
        return rc;
    s->peer_pid = (pid_t)peer.pid;
    s->cma = all ? 1 : -1;
    if (!all && comm->rank == 0)
        rmpi_info("cross-memory attach is not permitted here: a 2-rank allreduce from %zu "
                  "bytes uses the chunked shared segment",
                  s->cma_min);
    return RMP_SUCCESS;
}

int coll_shm_cma_ready(rmp_comm_t comm, size_t bytes, size_t es)
{
    coll_shm_t *s = ((coll_comm_t *)comm->coll_priv)->shm;
    if (comm->size != 2 || !s->cma_min || bytes < s->cma_min ||
        es > s->chunk || s->broken)
        return 0;
    if (RMPI_LIKELY(s->cma != 0))
        return s->cma == 1;
    int rc = cma_setup(s, comm);
    if (rc != RMP_SUCCESS) {
        s->cma = -1; /* a failed exchange is reported by the next call's own messages */
        return 0;
    }
    return s->cma == 1;
}

/* len bytes between local and the peer's raddr, all of them (the kernel may do fewer). */
static int cma_move(pid_t pid, char *local, uintptr_t raddr, size_t len, int write)
{
    while (len > 0) {
        struct iovec l = {local, len}, r = {(void *)raddr, len};
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && errno == ESRCH)
                return RMP_ERR_PEER_FAILED;
            rmpi_error("allreduce: process_vm_%s of %zu bytes from the peer: %s",
                       write ? "writev" : "readv", len, n < 0 ? strerror(errno) : "no progress");
            return RMP_ERR_ACCESS;
        }
        local += n;
        raddr += (size_t)n;
        len -= (size_t)n;
    }
    return RMP_SUCCESS;
}

int coll_shm_allreduce_cma(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
                           rmp_op_t op, rmp_comm_t comm)
{
    coll_shm_t *s = ((coll_comm_t *)comm->coll_priv)->shm;
    (void)coll_next_tag(comm); /* numbered like every collective (the hang report) */
    const size_t in_f = offsetof(shm_ctl_t, in_seq), red_f = offsetof(shm_ctl_t, red_seq);
    int me = comm->rank, peer = 1 - me, rc, err = RMP_SUCCESS;
    size_t es = coll_dt_size(dt);
    coll_blocks_t b = coll_blocks_even(count, 2, es);
    size_t lo = coll_blk_off(&b, me), hi = coll_blk_off(&b, me + 1);
    uint64_t k, addr[2] = {(uint64_t)(uintptr_t)src, (uint64_t)(uintptr_t)rbuf}, paddr[2];
    if ((rc = shm_claim(s, comm, &k)) != RMP_SUCCESS)
        return rc;
    memcpy(shm_ctl(s, me)->inl[k & 1], addr, sizeof(addr));
    shm_publish(s, in_f, k + 1, me);
    if ((rc = shm_wait(s, in_f, k + 1, comm)) != RMP_SUCCESS)
        return rc;
    memcpy(paddr, shm_ctl(s, peer)->inl[k & 1], sizeof(paddr));
    char *tmp = s->piece, *out = rbuf;
    const char *mine = src;
    size_t piece = CMA_SLOTS * s->chunk / es * es;
    for (size_t off = lo; off < hi && err == RMP_SUCCESS; off += piece) {
        size_t len = hi - off < piece ? hi - off : piece;
        err = cma_move(s->peer_pid, tmp, (uintptr_t)paddr[0] + off, len, 0);
        if (err != RMP_SUCCESS)
            break;
        if (me == 0)
            coll_op_reduce3(out + off, mine + off, tmp, len / es, dt, op);
        else
            coll_op_reduce3(out + off, tmp, mine + off, len / es, dt, op);
        err = cma_move(s->peer_pid, out + off, (uintptr_t)paddr[1] + off, len, 1);
    }
    /* Published even after a failure, so the peer does not wait for ever; it learns of
     * the failure from fail_seq (its result is incomplete). */
    if (err != RMP_SUCCESS)
        __atomic_store_n(&shm_ctl(s, me)->fail_seq, k + 1, __ATOMIC_RELAXED);
    shm_publish(s, red_f, k + 1, me);
    if ((rc = shm_wait(s, red_f, k + 1, comm)) != RMP_SUCCESS)
        return rc;
    if (err == RMP_SUCCESS &&
        __atomic_load_n(&shm_ctl(s, peer)->fail_seq, __ATOMIC_RELAXED) == k + 1)
        err = RMP_ERR_ACCESS;
    return err;
}
