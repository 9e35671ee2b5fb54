/* SPDX-License-Identifier: BSD-3-Clause */
/* Partitioned communication (MPI 4): Psend_init/Precv_init, Start (p2p_persist.c
 * calls mpii_part_start), Pready/Pready_range/Pready_list, Parrived; Wait/Test and
 * Request_free through the request's poll and release functions.
 *
 * Each send partition is one message, sent by the Pready that makes it ready (once
 * the receiver's reply gave its tag): no partition waits for the others. The
 * receiver posts one receive per send partition at Start, into its buffer at that
 * partition's byte offset, so partition counts may differ on the two sides (the
 * totals are equal); receive partition j has arrived once every message overlapping
 * its bytes has. Non-contiguous datatypes go through a packed copy. The private
 * communicator and the handshake: mpii_part.h. */
#include <stdlib.h>
#include <string.h>

#include "mpii_dtype.h"
#include "mpii_p2p.h"
#include "mpii_part.h"

enum { PM_IDLE, PM_READY, PM_POSTED, PM_DONE }; /* a message's state in a round */

typedef struct part {
    int send;
    int nparts;       /* this side's partitions */
    MPI_Count count;  /* elements per partition */
    mpii_dtype_t *d;
    char *buf;
    size_t total;     /* bytes of all partitions */
    int peer, tag;    /* for the receive status */
    int wpeer;        /* the peer's world rank; -1: MPI_PROC_NULL */
    mpii_part_wait_t wait; /* receiver: the hello (wait.hello once matched) */
    mpii_part_hello_t hello; /* sender: what it says */
    int64_t cts;      /* the receiver's first data tag */
    rmp_request_t hs_rr, cts_rr; /* sender: hello send, reply receive; receiver: reply */
    int matched;      /* both sides know the data tags */
    int posted;       /* receiver: this round's receives are posted */
    int nmsg;         /* messages per round: the send partitions */
    size_t mbytes;    /* bytes per message */
    char *tmp;        /* packed copy (non-contiguous datatypes) */
    rmp_request_t *rr;
    uint8_t *st;      /* PM_* per message */
    int ndone;
    int err;
    pthread_mutex_t lock; /* Pready from threads (MPI_THREAD_MULTIPLE only) */
} part_t;

#define PART_LOCK(p)                                                                       \
    do {                                                                                   \
        if (mpii_mt)                                                                       \
            pthread_mutex_lock(&(p)->lock);                                                \
    } while (0)
#define PART_UNLOCK(p)                                                                     \
    do {                                                                                   \
        if (mpii_mt)                                                                       \
            pthread_mutex_unlock(&(p)->lock);                                              \
    } while (0)

static int part_msgs_alloc(part_t *p, int n)
{
    p->nmsg = n;
    p->rr = calloc((size_t)(n > 0 ? n : 1), sizeof(*p->rr));
    p->st = calloc((size_t)(n > 0 ? n : 1), 1);
    return p->rr && p->st ? RMP_SUCCESS : RMP_ERR_NOMEM;
}

/* Message k's bytes: its share of the sender's total, within this side's buffer. */
static size_t part_len(const part_t *p, int k)
{
    size_t off = (size_t)k * p->mbytes;
    if (off >= p->total)
        return 0;
    return p->total - off < p->mbytes ? p->total - off : p->mbytes;
}

static char *part_at(const part_t *p, int k)
{
    size_t off = (size_t)k * p->mbytes;
    return p->tmp ? p->tmp + off : p->buf + p->d->true_lb + off;
}

static void part_fail(part_t *p, int rc)
{
    if (p->err == MPI_SUCCESS)
        p->err = rc < 0 ? mpii_err_from_rmp(rc) : rc;
}

static void part_post(part_t *p, int k)
{
    int rc;
    size_t len = part_len(p, k);
    int tag = (int)p->cts + k;
    if (p->send) {
        if (p->tmp)
            mpii_dtype_pack(p->d, p->buf, p->count * p->nparts, (size_t)k * p->mbytes,
                            part_at(p, k), len);
        rc = rmp_isend(part_at(p, k), len, p->wpeer, tag, mpii_part_comm, &p->rr[k]);
    } else {
        rc = rmp_irecv(part_at(p, k), len, p->wpeer, tag, mpii_part_comm, &p->rr[k]);
    }
    p->st[k] = PM_POSTED;
    if (rc != RMP_SUCCESS) {
        part_fail(p, rc);
        p->st[k] = PM_DONE;
        p->ndone++;
    }
}

/* The receiver got the hello: its messages' layout, tags, and the reply. */
static void part_matched_recv(part_t *p)
{
    const mpii_part_hello_t *h = &p->wait.hello;
    int n = (int)h->parts;
    if ((size_t)h->bytes != p->total)
        part_fail(p, MPI_ERR_TRUNCATE); /* the standard wants equal totals */
    int rc = part_msgs_alloc(p, n);
    if (rc == RMP_SUCCESS)
        p->mbytes = n > 0 ? (size_t)h->bytes / (size_t)n : 0;
    p->cts = mpii_part_tags(n);
    if (rc == RMP_SUCCESS)
        rc = rmp_isend(&p->cts, sizeof(p->cts), p->wpeer, (int)h->reply_tag, mpii_part_comm,
                       &p->cts_rr);
    if (rc != RMP_SUCCESS) {
        part_fail(p, rc);
        p->nmsg = 0; /* nothing will arrive: the round ends with the error */
    }
    p->matched = 1;
}

/* Move the handshake on (no blocking). */
static void part_handshake(part_t *p)
{
    int done = 0;
    if (p->matched)
        return;
    if (p->send) {
        if (p->cts_rr && (rmp_test(&p->cts_rr, &done, NULL) != RMP_SUCCESS || done)) {
            p->cts_rr = RMP_REQUEST_NULL;
            p->matched = 1;
        }
    } else {
        if (!p->wait.matched)
            mpii_part_progress();
        if (p->wait.matched)
            part_matched_recv(p);
    }
}

/* Post what this round can post, test messages lo..hi; 1 once the round is done. */
static int part_progress(mpii_req_t *r, int lo, int hi)
{
    part_t *p = r->ctx;
    part_handshake(p);
    if (!p->matched || !r->active)
        return 0;
    if (!p->send && !p->posted) {
        for (int k = 0; k < p->nmsg; k++)
            part_post(p, k);
        p->posted = 1;
    }
    if (hi >= p->nmsg)
        hi = p->nmsg - 1;
    if (lo <= hi)
        rmp_progress(); /* once: the tests below only look (thousands of messages) */
    for (int k = lo; k <= hi; k++) {
        if (p->st[k] == PM_READY)
            part_post(p, k);
        if (p->st[k] != PM_POSTED)
            continue;
        int done = 0;
        rmp_status_t s;
        int rc = rmp_request_get_status(p->rr[k], &done, NULL);
        if (rc == RMP_SUCCESS && !done)
            continue;
        if (rc == RMP_SUCCESS)
            rc = rmp_test(&p->rr[k], &done, &s); /* complete: frees it */
        if (rc != RMP_SUCCESS)
            part_fail(p, rc);
        else if (!done)
            continue;
        p->st[k] = PM_DONE;
        p->ndone++;
        if (!p->send && p->tmp && rc == RMP_SUCCESS)
            mpii_dtype_unpack(p->d, p->buf, p->count * p->nparts, (size_t)k * p->mbytes,
                              part_at(p, k), part_len(p, k));
    }
    return p->ndone == p->nmsg;
}

static int part_poll(mpii_req_t *r)
{
    part_t *p = r->ctx;
    PART_LOCK(p);
    int done = part_progress(r, 0, p->nmsg - 1);
    PART_UNLOCK(p);
    if (!done)
        return 0;
    r->err = p->err;
    if (p->send)
        mpii_status_empty(&r->status);
    else
        mpii_status_set(&r->status, p->peer, p->tag, p->err, (MPI_Count)p->total);
    return 1;
}

/* Freed: no round runs (Request_free reaps active ones once done). The handshake's
 * small messages are finished or withdrawn first: the buffers are p's. */
static void part_release(mpii_req_t *r)
{
    part_t *p = r->ctx;
    if (!p)
        return;
    int cancelled = 0;
    if (!p->send && p->wpeer >= 0 && !p->wait.matched)
        mpii_part_wait_remove(&p->wait);
    if (p->send && p->cts_rr && rmp_cancel(&p->cts_rr, &cancelled) == RMP_SUCCESS &&
        !cancelled)
        rmp_wait(&p->cts_rr, NULL);
    rmp_request_t *out = p->send ? &p->hs_rr : &p->cts_rr; /* small sends: complete soon */
    if (*out)
        rmp_wait(out, NULL);
    for (int k = 0; k < p->nmsg; k++)
        if (p->st && p->st[k] == PM_POSTED)
            rmp_wait(&p->rr[k], NULL);
    free(p->rr);
    free(p->st);
    free(p->tmp);
    mpii_dtype_release(p->d);
    pthread_mutex_destroy(&p->lock);
    free(p);
    r->ctx = NULL;
}

static int part_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype dt,
                     int peer, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                     int send, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    int rc = mpii_p2p_check(c, comm, buf, count, d, peer, tag, 0, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (partitions < 1)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "partitions %d: at least 1", partitions);
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_comm(c, MPI_ERR_INFO, fn, "invalid info");
    if (!request)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "request is NULL");
    part_t *p = calloc(1, sizeof(*p));
    mpii_req_t *r = p ? mpii_req_new(c, MPII_REQ_DONE) : NULL;
    if (!r) {
        free(p);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    pthread_mutex_init(&p->lock, NULL);
    p->send = send;
    p->nparts = partitions;
    p->count = count;
    p->d = d;
    mpii_dtype_retain(d);
    p->buf = (char *)buf;
    p->total = (size_t)count * (size_t)partitions * d->size;
    p->peer = peer;
    p->tag = tag;
    r->persistent = MPII_REQ_PART;
    r->recv = (uint8_t)!send;
    r->done = 1; /* inactive */
    mpii_status_empty(&r->status);
    r->ctx = p;
    r->release = part_release;
    r->poll = part_poll;
    p->wpeer = peer == MPI_PROC_NULL ? -1 : mpii_comm_world_rank(c, peer);
    if (p->wpeer >= 0) {
        rc = d->contig || p->total == 0 ? RMP_SUCCESS : RMP_ERR_NOMEM;
        if (rc != RMP_SUCCESS && (p->tmp = malloc(p->total)))
            rc = RMP_SUCCESS;
        if (rc == RMP_SUCCESS && !mpii_part_comm)
            rc = RMP_ERR_STATE;
        if (rc == RMP_SUCCESS && send) {
            rc = part_msgs_alloc(p, partitions);
            p->mbytes = p->total / (size_t)partitions;
            p->hello = (mpii_part_hello_t){mpii_part_id(c), tag, partitions,
                                           (int64_t)p->total, mpii_part_tags(1)};
            if (rc == RMP_SUCCESS)
                rc = rmp_irecv(&p->cts, sizeof(p->cts), p->wpeer, (int)p->hello.reply_tag,
                               mpii_part_comm, &p->cts_rr);
            if (rc == RMP_SUCCESS)
                rc = rmp_isend(&p->hello, sizeof(p->hello), p->wpeer, 0, mpii_part_comm,
                               &p->hs_rr);
        } else if (rc == RMP_SUCCESS) {
            p->wait.comm_id = mpii_part_id(c);
            p->wait.src = p->wpeer;
            p->wait.tag = tag;
            mpii_part_wait_add(&p->wait); /* matched at once if its hello came */
        }
        if (rc != RMP_SUCCESS) {
            mpii_req_free(r);
            return mpii_p2p_err(c, rc, fn);
        }
    }
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int mpii_part_start(mpii_req_t *r, const char *fn)
{
    part_t *p = r->ctx;
    (void)fn;
    r->err = MPI_SUCCESS;
    if (p->wpeer < 0) { /* MPI_PROC_NULL: complete at once */
        r->kind = MPII_REQ_DONE;
        r->done = 1;
        r->active = 1;
        mpii_status_empty(&r->status);
        return MPI_SUCCESS;
    }
    PART_LOCK(p);
    if (p->st)
        memset(p->st, PM_IDLE, (size_t)(p->nmsg > 0 ? p->nmsg : 1));
    p->ndone = 0;
    p->posted = 0;
    p->err = MPI_SUCCESS;
    r->kind = MPII_REQ_POLL;
    r->done = 0;
    r->active = 1;
    part_progress(r, 0, -1); /* a receiver posts its receives if it can */
    PART_UNLOCK(p);
    return MPI_SUCCESS;
}

MPII_TWINS(Psend_init, part_init(buf, partitions, count, datatype, dest, tag, comm, info, request,
           1, FN))

MPII_TWINS(Precv_init, part_init(buf, partitions, count, datatype, dest, tag, comm, info, request,
           0, FN))

/* The active partitioned request of handle h on the given side, or NULL (reported). */
static mpii_req_t *part_req(MPI_Request h, int send, int *err, const char *fn)
{
    mpii_req_t *r = mpii_req(h);
    part_t *p = r && r->persistent == MPII_REQ_PART ? r->ctx : NULL;
    if (!p || p->send != send) {
        *err = mpii_err_comm(r ? r->comm : NULL, MPI_ERR_REQUEST, fn,
                             "not a partitioned %s request: %p", send ? "send" : "receive",
                             (void *)h);
        return NULL;
    }
    return r;
}

/* Mark partitions ready (sent at once when the receiver's tags are known). */
static int part_ready(MPI_Request h, int n, int lo, const int *list, const char *fn)
{
    int err = MPI_SUCCESS;
    mpii_req_t *r = part_req(h, 1, &err, fn);
    if (!r)
        return err;
    part_t *p = r->ctx;
    if (!r->active)
        return mpii_err_comm(r->comm, MPI_ERR_REQUEST, fn, "the request is not active");
    if (n < 0 || (n > 0 && list == NULL && lo < 0))
        return mpii_err_comm(r->comm, MPI_ERR_ARG, fn, "invalid partitions");
    for (int i = 0; i < n; i++) {
        int k = list ? list[i] : lo + i;
        if (k < 0 || k >= p->nparts)
            return mpii_err_comm(r->comm, MPI_ERR_ARG, fn, "partition %d of %d", k, p->nparts);
    }
    if (p->wpeer < 0)
        return MPI_SUCCESS;
    PART_LOCK(p);
    for (int i = 0; i < n; i++) {
        int k = list ? list[i] : lo + i;
        if (p->st[k] == PM_IDLE)
            p->st[k] = PM_READY;
        else
            err = MPI_ERR_ARG;
        part_progress(r, k, k);
    }
    PART_UNLOCK(p);
    return err == MPI_SUCCESS
               ? err
               : mpii_err_comm(r->comm, err, fn, "a partition was made ready twice");
}

int PMPI_Pready(int partition, MPI_Request request)
{
    return part_ready(request, 1, partition, NULL, "MPI_Pready");
}
MPII_WEAK(Pready)

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    if (partition_high < partition_low)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Pready_range", "high %d below low %d",
                             partition_high, partition_low);
    return part_ready(request, partition_high - partition_low + 1, partition_low, NULL,
                      "MPI_Pready_range");
}
MPII_WEAK(Pready_range)

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    if (length > 0 && !array_of_partitions)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Pready_list", "array is NULL");
    return part_ready(request, length, 0, array_of_partitions, "MPI_Pready_list");
}
MPII_WEAK(Pready_list)

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    int err = MPI_SUCCESS;
    mpii_req_t *r = part_req(request, 0, &err, "MPI_Parrived");
    if (!r)
        return err;
    part_t *p = r->ctx;
    if (!flag || partition < 0 || partition >= p->nparts)
        return mpii_err_comm(r->comm, MPI_ERR_ARG, "MPI_Parrived",
                             "partition %d of %d, or flag NULL", partition, p->nparts);
    if (!r->active || p->wpeer < 0 || r->done) { /* inactive: true (MPI 4.1) */
        *flag = 1;
        return MPI_SUCCESS;
    }
    PART_LOCK(p);
    *flag = 0;
    part_progress(r, 0, -1);
    if (p->matched) {
        /* Messages overlapping the partition's bytes [lo, hi). */
        size_t rb = p->total / (size_t)p->nparts, lo = (size_t)partition * rb, hi = lo + rb;
        int k0 = p->mbytes ? (int)(lo / p->mbytes) : 0;
        int k1 = p->mbytes && hi > lo ? (int)((hi - 1) / p->mbytes) : p->nmsg - 1;
        part_progress(r, k0, k1);
        int all = 1;
        for (int k = k0; k <= k1 && k < p->nmsg && all; k++)
            all = p->st[k] == PM_DONE;
        *flag = all;
    }
    PART_UNLOCK(p);
    if (!*flag)
        rmp_progress();
    return MPI_SUCCESS;
}
MPII_WEAK(Parrived)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "part.twins.h"
