/* SPDX-License-Identifier: BSD-3-Clause */
/* Context-id agreement (core/cid.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cid.h"
#include "cid_msg.h"
#include "coll_id.h"
#include "comm.h"
#include "log.h"
#include "mt.h"
#include "request.h"

/* What each member sends in a round, followed by the caller's bytes. */
typedef struct cid_hdr {
    uint32_t ok;    /* this member owned the round's allocator */
    uint32_t next;  /* its next free id in that allocator */
    int32_t rank;   /* its rank in the parent */
    uint32_t round; /* both sides must be in the same round */
} cid_hdr_t;

struct rmpi_cid_agree {
    rmp_comm_t parent;
    int n, me;
    int *members; /* NULL: all of parent */
    int tag;
    uint64_t key; /* priority for the main allocator: (parent context, tag) */
    size_t esz;   /* one entry: header and caller bytes */
    char *all;
    rmp_request_t *reqs;
    int nreqs;
    uint32_t round;
    int posted, sent, busy, finished, error, waiting, free_with_req;
    int nrecv;         /* the round's receives: reqs[0, nrecv) */
    double backoff;    /* after a round this member opened failed: its next waits this long */
    double retry_at;
    int (*done)(rmpi_cid_agree_t *a);
    void *arg;
    uint32_t cid;
    rmpi_cid_agree_t *next; /* the queue for the main allocator */
    rmpi_cid_agree_t *anext; /* rmpi_eng.cid.idups */
    int idup; /* an idup (tag from the parent's collective numbers): in call order */
    int slot; /* its eager allocator */
};

/* Per-process allocator state. A leaf lock: taken under the engine lock or alone,
 * never held while waiting. */
/* Allocator s hands out the ids 2s modulo CID_MOD: 0 is the main one, 1..RMPI_CID_SLOTS
 * the eager ones; an agreement's round 0 uses the eager slot its key hashes to (the
 * same on every member), so concurrent agreements mostly take different ones. */
#define CID_MOD (2u * (RMPI_CID_SLOTS + 1))

/* Is an earlier idup on a's parent still running here? Overlapping idups on one
 * parent then take no allocator, so that they complete in call order. The members
 * call them in the same order, so the earlier one never waits for the later. */
static int cid_idup_behind(rmpi_engine_t *e, const rmpi_cid_agree_t *a)
{
    if (!a->idup)
        return 0;
    for (const rmpi_cid_agree_t *b = e->cid.idups; b; b = b->anext)
        if (b != a && b->key >> 32 == a->key >> 32 && b->key < a->key)
            return 1;
    return 0;
}

static void cid_idup_done(rmpi_engine_t *e, rmpi_cid_agree_t *a)
{
    if (!a->idup)
        return;
    for (rmpi_cid_agree_t **p = &e->cid.idups; *p; p = &(*p)->anext)
        if (*p == a) {
            *p = a->anext;
            break;
        }
    a->idup = 0;
}

/* The smallest id of allocator s at or above x. */
static uint32_t cid_round_up(uint32_t x, int s)
{
    return x + ((2u * (uint32_t)s - x) & (CID_MOD - 1));
}

/* Under rmpi_eng.cid.lock: the allocators' first ids (0/1 is the world's context). */
static void cid_init(rmpi_engine_t *e)
{
    if (e->cid.next[0])
        return;
    e->cid.next[0] = CID_MOD;
    for (int s = 1; s <= RMPI_CID_SLOTS; s++)
        e->cid.next[s] = 2u * (uint32_t)s;
}

uint32_t rmpi_comm_next_cid(rmpi_engine_t *e)
{
    pthread_mutex_lock(&e->cid.lock);
    cid_init(e);
    uint32_t x = 0;
    for (int s = 0; s <= RMPI_CID_SLOTS; s++)
        if (e->cid.next[s] > x)
            x = e->cid.next[s];
    pthread_mutex_unlock(&e->cid.lock);
    return cid_round_up(x, 0);
}

void rmpi_comm_cid_taken(rmpi_engine_t *e, uint32_t cid)
{
    pthread_mutex_lock(&e->cid.lock);
    cid_init(e);
    for (int s = 0; s <= RMPI_CID_SLOTS; s++)
        if (cid_round_up(cid, s) > e->cid.next[s])
            e->cid.next[s] = cid_round_up(cid, s);
    pthread_mutex_unlock(&e->cid.lock);
}

static void cid_unqueue(rmpi_engine_t *e, rmpi_cid_agree_t *a)
{
    if (!a->waiting)
        return;
    for (rmpi_cid_agree_t **p = &e->cid.queue; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    a->waiting = 0;
}

/* Could a take the allocator of its round now? Under rmpi_eng.cid.lock. */
static int cid_can_own(rmpi_engine_t *e, const rmpi_cid_agree_t *a)
{
    if (cid_idup_behind(e, a))
        return 0;
    cid_init(e);
    int s = a->round == 0 ? a->slot : 0;
    return !e->cid.owner[s] && (s != 0 || e->cid.queue == a);
}

/* This member's entry of the next round: under rmpi_eng.cid.lock. */
static void cid_propose(rmpi_engine_t *e, rmpi_cid_agree_t *a, cid_hdr_t *h)
{
    h->ok = 0;
    h->next = 0;
    if (!cid_can_own(e, a))
        return;
    int s = a->round == 0 ? a->slot : 0;
    e->cid.owner[s] = a;
    h->ok = 1;
    h->next = e->cid.next[s];
}

/* Release what round a->round owned; commit cid if the round agreed. Under rmpi_eng.cid.lock. */
static void cid_settle(rmpi_engine_t *e, rmpi_cid_agree_t *a, int agreed, uint32_t cid)
{
    for (int s = 0; s <= RMPI_CID_SLOTS; s++)
        if (e->cid.owner[s] == a) {
            if (agreed && cid + CID_MOD > e->cid.next[s])
                e->cid.next[s] = cid + CID_MOD;
            e->cid.owner[s] = NULL;
        }
}

static int cid_rank(const rmpi_cid_agree_t *a, int i)
{
    return a->members ? a->members[i] : i;
}

static cid_hdr_t *cid_entry(const rmpi_cid_agree_t *a, int i)
{
    return (cid_hdr_t *)(a->all + (size_t)i * a->esz);
}

/* The round's receives: posted at once, so that a member that opens the round is
 * answered whenever the others look. */
static int cid_post(rmpi_cid_agree_t *a)
{
    uint32_t cid = rmpi_cid_coll(a->parent);
    int rc = RMP_SUCCESS;
    for (int i = 0; i < a->n && rc == RMP_SUCCESS; i++) {
        if (i == a->me)
            continue;
        rc = rmpi_irecv_cid(cid_entry(a, i), a->esz, cid_rank(a, i), a->tag, a->parent, cid,
                            &a->reqs[a->nreqs]);
        if (rc == RMP_SUCCESS)
            a->nreqs++;
    }
    a->nrecv = a->nreqs;
    a->posted = 1;
    a->sent = 0;
    return rc;
}

/* Send this member's entry of the round, or wait (0). Round 0 goes at once: its
 * completion proves that every member started. Later rounds wait for the main
 * allocator: a member sends when it can take it (it opens the round) or when another
 * member opened the round (it answers, perhaps that it cannot). Before, every
 * waiting member re-ran failed rounds back to back, each a message to every member,
 * until the allocator came to it (threads/comm/idup_nb: 19 s). A member whose own
 * opening failed waits a little longer each time before the next (the others are
 * busy with an agreement queued before this one). */
static int cid_send(rmpi_engine_t *e, rmpi_cid_agree_t *a)
{
    int answer = a->round == 0 || a->error != RMP_SUCCESS;
    for (int i = 0; i < a->nrecv && !answer; i++)
        answer = rmpi_req_done(a->reqs[i]);
    pthread_mutex_lock(&e->cid.lock);
    int open = !answer && cid_can_own(e, a) && (a->backoff == 0 || rmpi_now() >= a->retry_at);
    if (answer || open)
        cid_propose(e, a, cid_entry(a, a->me));
    pthread_mutex_unlock(&e->cid.lock);
    if (!answer && !open)
        return 0;
    if (open) {
        a->backoff = a->backoff == 0 ? 20e-6 : a->backoff < 1e-3 ? 2 * a->backoff : a->backoff;
        a->retry_at = rmpi_now() + a->backoff;
    }
    cid_entry(a, a->me)->rank = a->parent->rank;
    cid_entry(a, a->me)->round = a->round;
    uint32_t cid = rmpi_cid_coll(a->parent);
    int rc = RMP_SUCCESS;
    for (int i = 0; i < a->n && rc == RMP_SUCCESS; i++) {
        if (i == a->me)
            continue;
        rc = rmpi_isend_cid(cid_entry(a, a->me), a->esz, cid_rank(a, i), a->tag, a->parent,
                            cid, &a->reqs[a->nreqs]);
        if (rc == RMP_SUCCESS)
            a->nreqs++;
    }
    a->sent = 1;
    if (rc != RMP_SUCCESS && a->error == RMP_SUCCESS)
        a->error = rc; /* the requests posted so far still complete; then stop */
    return 1;
}

/* The round's requests: freed; the first error. */
static int cid_collect(rmpi_cid_agree_t *a)
{
    int rc = RMP_SUCCESS;
    for (int i = 0; i < a->nreqs; i++) {
        rmp_request_t q = a->reqs[i];
        int e = q->status.error;
        if (e == RMP_SUCCESS && q->kind == RMPI_REQ_RECV && q->status.bytes != a->esz)
            e = RMP_ERR_TRANSPORT;
        if (e != RMP_SUCCESS && rc == RMP_SUCCESS)
            rc = e;
        rmpi_req_free(q);
    }
    a->nreqs = 0;
    return rc;
}

/* Judge a completed round: 1 when the agreement finished (a->error set). */
static int cid_judge(rmpi_engine_t *e, rmpi_cid_agree_t *a, int rc)
{
    int agreed = rc == RMP_SUCCESS;
    uint32_t cid = 0;
    for (int i = 0; i < a->n && rc == RMP_SUCCESS; i++) {
        cid_hdr_t *h = cid_entry(a, i);
        if (h->rank != cid_rank(a, i) || h->round != a->round) {
            rmpi_error("communicator creation: malformed entry from rank %d (the members "
                       "called different creations on the communicator)", cid_rank(a, i));
            rc = RMP_ERR_TRANSPORT;
            agreed = 0;
        } else if (!h->ok) {
            agreed = 0;
        } else if (h->next > cid) {
            cid = h->next;
        }
    }
    pthread_mutex_lock(&e->cid.lock);
    cid_settle(e, a, agreed, cid);
    if (agreed || rc != RMP_SUCCESS) {
        cid_unqueue(e, a);
        cid_idup_done(e, a);
    } else if (a->round == 0) {
        /* every member has started: wait for the main allocator in key order */
        rmpi_cid_agree_t **p = &e->cid.queue;
        while (*p && (*p)->key <= a->key)
            p = &(*p)->next;
        a->next = *p;
        *p = a;
        a->waiting = 1;
    }
    pthread_mutex_unlock(&e->cid.lock);
    if (rc != RMP_SUCCESS || agreed) {
        a->cid = cid;
        a->error = rc;
        return 1;
    }
    a->round++;
    a->posted = 0;
    return 0;
}

/* Advance a as far as it goes without waiting: 1 when it finished. Engine lock held. */
static int cid_step(rmpi_engine_t *e, rmpi_cid_agree_t *a)
{
    while (!a->finished) {
        if (!a->posted) {
            int rc = cid_post(a);
            if (rc != RMP_SUCCESS) {
                /* the requests posted so far still complete; then stop */
                a->error = rc;
            }
        }
        if (!a->sent && !cid_send(e, a))
            return 0;
        for (int i = 0; i < a->nreqs; i++)
            if (!rmpi_req_done(a->reqs[i]))
                return 0;
        int rc = cid_collect(a);
        if (a->error != RMP_SUCCESS)
            rc = a->error;
        if (!cid_judge(e, a, rc)) {
            if (a->n == 1)
                return 0; /* no messages to wait for: let progress run before retrying */
            continue;
        }
        a->finished = 1;
        if (a->error == RMP_SUCCESS && a->done)
            a->error = a->done(a);
    }
    return 1;
}

static int cid_poll(void *ctx, int *error)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_cid_agree_t *a = ctx;
    if (a->busy) /* re-entered from one of its own sends */
        return 0;
    a->busy = 1;
    int fin = cid_step(e, a);
    a->busy = 0;
    if (fin)
        *error = a->error;
    return fin;
}

static void cid_release(void *ctx)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_cid_agree_t *a = ctx;
    if (a && a->free_with_req)
        rmpi_cid_free(e, a);
}

void rmpi_cid_free(rmpi_engine_t *e, rmpi_cid_agree_t *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&e->cid.lock); /* nothing of it stays behind in the allocators */
    cid_settle(e, a, 0, 0);
    cid_unqueue(e, a);
    cid_idup_done(e, a);
    pthread_mutex_unlock(&e->cid.lock);
    if (a->parent)
        rmpi_comm_release(a->parent);
    free(a->members);
    free(a->all);
    free(a->reqs);
    free(a);
}

int rmpi_cid_start(rmpi_engine_t *e, rmp_comm_t parent, int n, const int *members, int me, int tag,
                   const void *mine, size_t bytes, int (*done)(rmpi_cid_agree_t *a),
                   void *arg, int free_with_req, rmp_request_t *req, rmpi_cid_agree_t **out)
{
    rmpi_cid_agree_t *a = calloc(1, sizeof(*a));
    if (!a)
        return RMP_ERR_NOMEM;
    rmpi_comm_retain(parent); /* an idup may outlive the caller's handle of parent */
    a->parent = parent;
    a->n = n;
    a->me = me;
    a->tag = tag;
    a->key = (uint64_t)parent->cid << 32 | (uint32_t)tag;
    a->esz = sizeof(cid_hdr_t) + bytes;
    a->done = done;
    a->arg = arg;
    a->free_with_req = free_with_req;
    a->all = calloc((size_t)n, a->esz);
    a->reqs = calloc((size_t)(2 * n), sizeof(*a->reqs));
    a->idup = tag < RMPI_TAG_CORE_GROUP;
    uint64_t h = a->key * 0x9e3779b97f4a7c15ull;
    a->slot = 1 + (int)((h >> 32) % RMPI_CID_SLOTS);
    if (members && (a->members = malloc((size_t)n * sizeof(int))))
        memcpy(a->members, members, (size_t)n * sizeof(int));
    if (!a->all || !a->reqs || (members && !a->members)) {
        rmpi_cid_free(e, a);
        return RMP_ERR_NOMEM;
    }
    if (bytes)
        memcpy(cid_entry(a, me) + 1, mine, bytes);
    if (a->idup) {
        pthread_mutex_lock(&e->cid.lock);
        a->anext = e->cid.idups;
        e->cid.idups = a;
        pthread_mutex_unlock(&e->cid.lock);
    }
    rmpi_mt_enter(e); /* no progress may poll it before it is complete */
    int rc = rmpi_req_gen(cid_poll, a, cid_release, req);
    if (rc == RMP_SUCCESS)
        cid_poll(a, &(int){0}); /* round 0's messages leave now */
    rmpi_mt_leave(e);
    if (rc != RMP_SUCCESS) {
        rmpi_cid_free(e, a);
        return rc;
    }
    if (out)
        *out = a;
    return RMP_SUCCESS;
}

int rmpi_cid_agree(rmp_comm_t parent, int n, const int *members, int me, int tag,
                   const void *mine, size_t bytes, rmpi_cid_agree_t **out)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmp_request_t req;
    rmpi_cid_agree_t *a;
    int rc = rmpi_cid_start(e, parent, n, members, me, tag, mine, bytes, NULL, NULL, 0, &req, &a);
    if (rc != RMP_SUCCESS)
        return rc;
    rmp_status_t st;
    rc = rmp_wait(&req, &st);
    if (req != RMP_REQUEST_NULL) { /* the wait gave up (RMP_TIMEOUT): let it finish alone */
        rmpi_mt_enter(e);
        a->free_with_req = 1;
        rmpi_mt_leave(e);
        rmp_request_free(&req);
        return rc != RMP_SUCCESS ? rc : RMP_ERR_INTERNAL;
    }
    if (rc == RMP_SUCCESS)
        rc = a->error;
    if (rc != RMP_SUCCESS) {
        rmpi_cid_free(e, a);
        return rc;
    }
    *out = a;
    return RMP_SUCCESS;
}

uint32_t rmpi_cid_value(const rmpi_cid_agree_t *a)
{
    return a->cid;
}

const void *rmpi_cid_payload(const rmpi_cid_agree_t *a, int i)
{
    return cid_entry(a, i) + 1;
}

void *rmpi_cid_arg(const rmpi_cid_agree_t *a)
{
    return a->arg;
}

rmp_comm_t rmpi_cid_parent(const rmpi_cid_agree_t *a)
{
    return a->parent;
}
