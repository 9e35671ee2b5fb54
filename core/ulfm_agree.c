/* SPDX-License-Identifier: BSD-3-Clause */
/* The fault-tolerant agreement (rmp_comm_agree, rmp_comm_shrink; core/ulfm.h).
 *
 * Coordinator-based, assuming fail-stop members and a failure detector that eventually
 * tells every live member of every death (core/failure.c): each member sends its part
 * to the coordinator it follows, the lowest member it does not know to have failed; the
 * coordinator waits for the part of every member it believes alive, combines them (flag:
 * AND, failed set and unacknowledged failures: OR, next context: max) and sends the
 * decision to each. A member whose coordinator dies follows the next lowest live one,
 * which first asks every member (QUERY): a member that already has the decision answers
 * with it and the new coordinator adopts it, so no two members decide differently. A
 * member ignores decisions from any coordinator but the one it follows now, and it
 * follows only upwards (failures are permanent, so the lowest live member only grows).
 * Limits: a member that already returned must keep calling rmp (any blocking call
 * progresses) until the others finish; a member wrongly believed dead is left out. */
#include <stdlib.h>
#include <string.h>

#include "failure.h"
#include "log.h"
#include "mt.h"
#include "peer.h"
#include "progress.h"
#include "request.h"
#include "send.h"
#include "ulfm.h"

static size_t agree_bytes(int size)
{
    return ((size_t)size + 7) / 8;
}

static int agree_val_init(rmpi_ulfm_val_t *v, int size)
{
    free(v->failed);
    v->failed = calloc(agree_bytes(size), 1);
    v->flag = ~0;
    v->unacked = 0;
    v->next_cid = 0;
    return v->failed ? RMP_SUCCESS : RMP_ERR_NOMEM;
}

static void agree_merge(rmpi_ulfm_val_t *acc, int32_t flag, int unacked, uint32_t next_cid,
                        const uint8_t *failed, int size)
{
    acc->flag &= flag;
    acc->unacked |= (uint8_t)(unacked != 0);
    if (next_cid > acc->next_cid)
        acc->next_cid = next_cid;
    for (size_t i = 0; i < agree_bytes(size); i++)
        acc->failed[i] |= failed[i];
}

static void agree_set(rmpi_ulfm_val_t *dst, int32_t flag, int unacked, uint32_t next_cid,
                      const uint8_t *failed, int size)
{
    dst->flag = flag;
    dst->unacked = (uint8_t)(unacked != 0);
    dst->next_cid = next_cid;
    memcpy(dst->failed, failed, agree_bytes(size));
}

static const rmpi_ulfm_val_t *agree_decided(const rmpi_ulfm_st_t *s, uint32_t seq)
{
    int i = (int)(seq & 1);
    return s->dec_seq[i] == seq && s->dec[i].failed ? &s->dec[i] : NULL;
}

static int agree_decide(rmpi_ulfm_st_t *s, uint32_t seq, const rmpi_ulfm_val_t *v)
{
    int i = (int)(seq & 1);
    if (agree_val_init(&s->dec[i], s->size) != RMP_SUCCESS)
        return RMP_ERR_NOMEM;
    agree_set(&s->dec[i], v->flag, v->unacked, v->next_cid, v->failed, s->size);
    s->dec_seq[i] = seq;
    if (s->active && s->seq == seq)
        s->active = 0;
    return RMP_SUCCESS;
}

static void agree_msg(rmpi_ftmsg_t *m, const rmpi_ulfm_st_t *s, int op, uint32_t seq, int from,
                      const rmpi_ulfm_val_t *v, int decided)
{
    memset(m, 0, sizeof(*m));
    m->type = RMPI_MSG_FT;
    m->op = (uint8_t)op;
    m->decided = (uint8_t)decided;
    m->cid = s->cid;
    m->seq = seq;
    m->size = (uint32_t)s->size;
    m->from = from;
    if (v) {
        m->flag = v->flag;
        m->unacked = v->unacked;
        m->next_cid = v->next_cid;
    }
}

/* A reply to world rank w (the sender of what is answered). */
static void agree_reply(rmpi_engine_t *e, int w, const rmpi_ftmsg_t *m, const uint8_t *failed,
                        int size)
{
    if (!rmpi_peer_lost(e, w))
        (void)rmpi_send_ctrl(w, m, sizeof(*m), failed, failed ? agree_bytes(size) : 0);
}

/* The collection for seq, emptied when it held an older agreement's parts. */
static rmpi_ulfm_coll_t *agree_coll(rmpi_ulfm_st_t *s, uint32_t seq)
{
    rmpi_ulfm_coll_t *c = &s->coll[seq & 1];
    if (c->seq == seq)
        return c;
    if (c->seq > seq)
        return NULL; /* a stale part */
    free(c->got);
    c->got = calloc((size_t)s->size, 1);
    if (!c->got || agree_val_init(&c->val, s->size) != RMP_SUCCESS)
        return NULL;
    c->seq = seq;
    c->adopt = 0;
    return c;
}

void rmpi_ulfm_agree_on_msg(rmpi_engine_t *e, int src, const rmpi_ftmsg_t *m, const uint8_t *bitmap)
{
    rmpi_ulfm_st_t *s = rmpi_ulfm_get(e, m->cid, (int)m->size);
    if (!s || m->seq == 0) {
        rmpi_error("agreement message from rank %d for context %u: no memory, or a size "
                   "(%u) that differs from this rank's", src, m->cid, m->size);
        return;
    }
    const rmpi_ulfm_val_t *d = agree_decided(s, m->seq);
    rmpi_ftmsg_t r;
    switch (m->op) {
    case RMPI_FT_CONTRIB: {
        if (d) { /* it follows this rank, which has the answer */
            agree_msg(&r, s, RMPI_FT_RESULT, m->seq, s->self, d, 1);
            agree_reply(e, src, &r, d->failed, s->size);
            break;
        }
        rmpi_ulfm_coll_t *c = agree_coll(s, m->seq);
        if (!c || c->adopt)
            break;
        if (m->decided) {
            c->adopt = 1;
            agree_set(&c->val, m->flag, m->unacked, m->next_cid, bitmap, s->size);
        } else {
            c->got[m->from] = 1;
            agree_merge(&c->val, m->flag, m->unacked, m->next_cid, bitmap, s->size);
        }
        break;
    }
    case RMPI_FT_QUERY:
        if (d) {
            agree_msg(&r, s, RMPI_FT_CONTRIB, m->seq, s->self, d, 1);
        } else if (s->active && s->seq == m->seq) {
            if (m->from > s->cur)
                s->cur = m->from; /* it found the one this rank followed dead */
            s->sent_to = s->cur;
            agree_msg(&r, s, RMPI_FT_CONTRIB, m->seq, s->self, &s->mine, 0);
            d = &s->mine;
        } else if (m->seq > s->seq) {
            s->query_from = m->from;
            s->query_seq = m->seq;
            break;
        } else {
            break;
        }
        agree_reply(e, src, &r, d->failed, s->size);
        break;
    case RMPI_FT_RESULT:
        /* Only from the coordinator followed now; one not started yet takes any. */
        if ((s->active && s->seq == m->seq && m->from == s->cur) || m->seq > s->seq) {
            rmpi_ulfm_val_t v = {m->flag, m->unacked, m->next_cid, (uint8_t *)bitmap};
            (void)agree_decide(s, m->seq, &v);
        }
        break;
    }
}

static int agree_lowest_live(rmpi_engine_t *e, rmp_comm_t comm)
{
    for (int r = 0; r < comm->size; r++)
        if (r == comm->rank || !rmpi_peer_lost(e, rmpi_comm_world_rank(comm, r)))
            return r;
    return comm->rank;
}

/* This rank's part: its flag, the members it knows failed, whether it acknowledged them. */
static int agree_mine(rmpi_engine_t *e, rmp_comm_t comm, rmpi_ulfm_st_t *s, int flag)
{
    if (agree_val_init(&s->mine, s->size) != RMP_SUCCESS)
        return RMP_ERR_NOMEM;
    s->mine.flag = flag;
    s->mine.next_cid = rmpi_comm_next_cid(e);
    for (int r = 0; r < comm->size; r++)
        if (r != comm->rank && rmpi_peer_lost(e, rmpi_comm_world_rank(comm, r))) {
            s->mine.failed[r / 8] |= (uint8_t)(1u << (r % 8));
            if (!s->acked[r])
                s->mine.unacked = 1;
        }
    return RMP_SUCCESS;
}

/* One step as coordinator of seq: ask once, decide when every live member answered. */
static int agree_coordinate(rmpi_engine_t *e, rmp_comm_t comm, rmpi_ulfm_st_t *s, uint32_t seq)
{
    rmpi_ftmsg_t m;
    if (!s->queried) {
        s->queried = 1;
        /* Rank 0 alive: the first coordinator, nobody can have an earlier decision. */
        if (comm->rank != 0) {
            agree_msg(&m, s, RMPI_FT_QUERY, seq, comm->rank, NULL, 0);
            for (int r = 0; r < comm->size; r++)
                rmpi_ulfm_send(e, comm, r, &m, NULL);
        }
    }
    rmpi_ulfm_coll_t *c = agree_coll(s, seq);
    if (!c)
        return RMP_ERR_NOMEM;
    if (!c->adopt) {
        for (int r = 0; r < comm->size; r++)
            if (r != comm->rank && !c->got[r] && !rmpi_peer_lost(e, rmpi_comm_world_rank(comm, r)))
                return RMP_SUCCESS; /* not yet */
        /* What this rank learnt while it waited counts too: a death it waited out is
         * then reported as unacknowledged on every member. */
        for (int r = 0; r < comm->size; r++)
            if (r != comm->rank && rmpi_peer_lost(e, rmpi_comm_world_rank(comm, r))) {
                s->mine.failed[r / 8] |= (uint8_t)(1u << (r % 8));
                if (!s->acked[r])
                    s->mine.unacked = 1;
            }
        agree_merge(&c->val, s->mine.flag, s->mine.unacked, s->mine.next_cid, s->mine.failed,
                    s->size);
    }
    int rc = agree_decide(s, seq, &c->val);
    if (rc != RMP_SUCCESS)
        return rc;
    const rmpi_ulfm_val_t *d = agree_decided(s, seq);
    agree_msg(&m, s, RMPI_FT_RESULT, seq, comm->rank, d, 0);
    for (int r = 0; r < comm->size; r++)
        rmpi_ulfm_send(e, comm, r, &m, d->failed);
    return RMP_SUCCESS;
}

/* Run agreement number ++s->seq with this rank's flag; *out: the decision (owned by s). */
static int agree_run(rmpi_engine_t *e, rmp_comm_t comm, int flag, const rmpi_ulfm_val_t **out)
{
    int rc = RMP_ERR_NOMEM;
    rmpi_mt_enter(e);
    rmpi_ulfm_st_t *s = rmpi_ulfm_get(e, comm->cid, comm->size);
    if (!s || agree_mine(e, comm, s, flag) != RMP_SUCCESS) {
        rmpi_mt_leave(e);
        return rc;
    }
    s->self = comm->rank;
    uint32_t seq = ++s->seq;
    s->active = !agree_decided(s, seq);
    s->sent_to = -1;
    s->queried = 0;
    s->cur = agree_lowest_live(e, comm);
    if (s->query_seq == seq && s->query_from > s->cur)
        s->cur = s->query_from;
    rmpi_mt_leave(e);
    rmpi_waiter_t w;
    rmpi_waiter_init(&w);
    rc = RMP_SUCCESS;
    for (;;) {
        rmpi_mt_enter(e);
        if (s->active) {
            int lo = agree_lowest_live(e, comm);
            if (lo > s->cur)
                s->cur = lo;
            if (s->cur == comm->rank) {
                rc = agree_coordinate(e, comm, s, seq);
            } else if (s->sent_to != s->cur) {
                rmpi_ftmsg_t m;
                agree_msg(&m, s, RMPI_FT_CONTRIB, seq, comm->rank, &s->mine, 0);
                s->sent_to = s->cur;
                rmpi_ulfm_send(e, comm, s->cur, &m, s->mine.failed);
            }
        }
        int done = !s->active;
        rmpi_mt_leave(e);
        if (done || rc != RMP_SUCCESS)
            break;
        rmpi_progress();
        rc = rmpi_waiter_poll(&w);
        if (rc != RMP_SUCCESS)
            break;
    }
    if (rc != RMP_SUCCESS) {
        s->active = 0;
        return rc;
    }
    const rmpi_ulfm_val_t *d = agree_decided(s, seq);
    if (!d)
        return RMP_ERR_INTERNAL;
    /* The decision's failed members are failed here too: after an agreement every
     * survivor knows the same deaths (rmp_comm_failure_ack acknowledges them). */
    for (int r = 0; r < comm->size; r++) {
        int w = rmpi_comm_world_rank(comm, r);
        if ((d->failed[r / 8] & (1u << (r % 8))) && r != comm->rank && !rmpi_peer_lost(e, w))
            rmpi_peer_failed(w, "counted as failed by an agreement");
    }
    *out = d;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_comm_agree(rmp_comm_t comm, int *flag)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_comm_check_local(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!flag)
        return RMP_ERR_ARG;
    const rmpi_ulfm_val_t *d;
    rc = agree_run(e, comm, *flag, &d);
    if (rc != RMP_SUCCESS)
        return rc;
    *flag = d->flag;
    return d->unacked ? RMP_ERR_PEER_FAILED : RMP_SUCCESS;
}

RMP_EXPORT int rmp_comm_shrink(rmp_comm_t comm, rmp_comm_t *newcomm)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_comm_check_local(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!newcomm)
        return RMP_ERR_ARG;
    const rmpi_ulfm_val_t *d;
    rc = agree_run(e, comm, ~0, &d);
    if (rc != RMP_SUCCESS)
        return rc;
    /* Every survivor proposed its next context id: the largest is free on all of them. */
    struct rmp_comm *c;
    rc = rmpi_comm_new(e, (d->next_cid + 1u) & ~1u, comm->size, -1, 1, &c);
    if (rc != RMP_SUCCESS)
        return rc;
    c->size = 0; /* the survivors, counted below */
    for (int r = 0; r < comm->size; r++) {
        if (d->failed[r / 8] & (1u << (r % 8)))
            continue;
        if (r == comm->rank)
            c->rank = c->size;
        c->world[c->size++] = rmpi_comm_world_rank(comm, r);
    }
    if (c->rank < 0) { /* the others believe this rank dead: it cannot join them */
        rmpi_error("comm_shrink: the survivors count this rank as failed");
        rmpi_comm_destroy(c);
        return RMP_ERR_PEER_FAILED;
    }
    rmpi_comm_cid_taken(e, c->cid + 2);
    *newcomm = c;
    return RMP_SUCCESS;
}
