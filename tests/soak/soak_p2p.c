/* SPDX-License-Identifier: BSD-3-Clause */
/* Soak, point-to-point phase. Each round the job sends a random set of
 * messages (0 B .. 4 MiB, blocking and nonblocking, 4 tags, to any rank
 * including itself); every receiver picks one way to receive them (wildcard
 * source and tag, source only, exact, or a blocking wildcard loop). Every
 * message of 32 bytes or more carries (sender, tag, sequence, round) and a
 * checksum; shorter ones are checked against their known content. Per
 * (sender, tag) the sequence numbers must arrive exactly in order, so a lost,
 * duplicated, reordered or corrupted message is counted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak.h"

#define HDR 32
#define MAGIC 0x50414b53u

typedef struct {
    int src, dst, tag, blocking;
    uint32_t seq;
    size_t len;
} msg_t;

typedef struct {
    uint32_t magic;
    int32_t src, tag;
    uint32_t seq;
    uint64_t round, csum;
} hdr_t;

enum { RX_ANY, RX_SOURCE, RX_EXACT, RX_BLOCKING_ANY, RX_MODES };

static msg_t *p2p_sched;
static uint32_t *p2p_rx_next; /* next sequence expected here, per (src, tag) */

int soak_p2p_init(soak_t *k)
{
    size_t streams = (size_t)k->np * (size_t)k->np * SOAK_NTAGS;
    k->seq_tx = calloc(streams, sizeof(uint32_t));
    p2p_rx_next = calloc((size_t)k->np * SOAK_NTAGS, sizeof(uint32_t));
    p2p_sched = calloc((size_t)k->np * SOAK_MAX_MSGS, sizeof(msg_t));
    k->sarena = malloc(SOAK_ARENA);
    k->rarena = malloc(SOAK_ARENA);
    if (!k->seq_tx || !p2p_rx_next || !p2p_sched || !k->sarena || !k->rarena)
        return RMP_ERR_NOMEM;
    /* Touch the arenas now, so that resident memory is stable from here on
     * (not with zeros: malloc + memset 0 may become a calloc that touches nothing). */
    memset(k->sarena, 0xa5, SOAK_ARENA);
    memset(k->rarena, 0xa5, SOAK_ARENA);
    return RMP_SUCCESS;
}

void soak_p2p_fini(soak_t *k)
{
    free(k->seq_tx);
    free(p2p_rx_next);
    free(p2p_sched);
    free(k->sarena);
    free(k->rarena);
}

static size_t p2p_size(soak_rng_t *r)
{
    uint64_t c = soak_below(r, 100);
    if (c < 30)
        return soak_below(r, 65);                     /* tiny, incl. 0 B */
    if (c < 60)
        return 64 + soak_below(r, 8192);              /* eager */
    if (c < 80)
        return 8192 + soak_below(r, 128 << 10);       /* around tcp 32 KiB / shm 64 KiB */
    if (c < 95)
        return (128 << 10) + soak_below(r, 1 << 20);  /* rendezvous */
    return (1 << 20) + soak_below(r, SOAK_MAX_MSG - (1 << 20) + 1);
}

static uint64_t p2p_key(const soak_t *k, const msg_t *m)
{
    return soak_mix(k->seed ^ soak_mix(k->round) ^ soak_mix((uint64_t)m->src << 40 |
                    (uint64_t)m->tag << 32 | m->seq));
}

/* The round's messages, identical on every rank; returns their number. */
static int p2p_schedule(soak_t *k, int *mode)
{
    soak_rng_t r;
    soak_rng_init(&r, k->seed, k->round, 0);
    int np = k->np, n = np * (int)(1 + soak_below(&r, SOAK_MAX_MSGS / 2));
    size_t sent[64] = {0}, rcvd[64] = {0}, maxin[64] = {0};
    int nout[64] = {0}, nin[64] = {0}, used = 0;
    for (int i = 0; i < n; i++) {
        msg_t m = {.src = (int)soak_below(&r, (uint64_t)np)};
        m.dst = (int)soak_below(&r, (uint64_t)np);
        m.tag = (int)soak_below(&r, SOAK_NTAGS);
        m.blocking = (int)soak_below(&r, 2);
        m.len = p2p_size(&r);
        if (nout[m.src] == SOAK_MAX_MSGS || nin[m.dst] == SOAK_MAX_MSGS)
            continue;
        /* Bounded buffers: a message that does not fit this round gets small. */
        if (sent[m.src] + m.len > SOAK_ARENA || rcvd[m.dst] + m.len > SOAK_ARENA)
            m.len %= 4096;
        if (sent[m.src] + m.len > SOAK_ARENA || rcvd[m.dst] + m.len > SOAK_ARENA)
            m.len = 0;
        uint32_t *s = &k->seq_tx[((size_t)m.src * (size_t)np + (size_t)m.dst) * SOAK_NTAGS +
                                 (size_t)m.tag];
        m.seq = (*s)++;
        sent[m.src] += m.len;
        rcvd[m.dst] += m.len;
        nout[m.src]++;
        nin[m.dst]++;
        if (m.len > maxin[m.dst])
            maxin[m.dst] = m.len;
        p2p_sched[used++] = m;
    }
    for (int d = 0; d < np; d++) {
        mode[d] = (int)soak_below(&r, RX_MODES);
        /* Wildcard receives need every buffer as large as the largest message. */
        if ((mode[d] == RX_ANY || mode[d] == RX_BLOCKING_ANY) &&
            (size_t)nin[d] * maxin[d] > SOAK_ARENA)
            mode[d] = RX_EXACT;
    }
    /* A rank receiving in a blocking loop must reach that loop: it sends
     * nonblocking. Everyone else pre-posts all receives before sending, so
     * blocking sends (even rendezvous ones, even to itself) cannot deadlock. */
    for (int i = 0; i < used; i++)
        if (mode[p2p_sched[i].src] == RX_BLOCKING_ANY)
            p2p_sched[i].blocking = 0;
    return used;
}

static void p2p_build(soak_t *k, const msg_t *m, unsigned char *p)
{
    uint64_t key = p2p_key(k, m);
    if (m->len < HDR) {
        soak_fill(p, m->len, key);
        return;
    }
    hdr_t h = {MAGIC, m->src, m->tag, m->seq, k->round, 0};
    soak_fill(p + HDR, m->len - HDR, key);
    h.csum = soak_csum(p + HDR, m->len - HDR) ^ soak_mix(m->len);
    memcpy(p, &h, sizeof(h));
}

/* Check one received message against the next one expected on its stream. */
static void p2p_verify(soak_t *k, int n, const unsigned char *p, const rmp_status_t *st)
{
    if (st->error != RMP_SUCCESS || st->source < 0 || st->source >= k->np || st->tag < 0 ||
        st->tag >= SOAK_NTAGS) {
        SOAK_FAIL(k, "p2p: bad status (error %d, source %d, tag %d)", st->error, st->source,
                  st->tag);
        return;
    }
    uint32_t *next = &p2p_rx_next[(size_t)st->source * SOAK_NTAGS + (size_t)st->tag];
    const msg_t *m = NULL;
    for (int i = 0; i < n && !m; i++)
        if (p2p_sched[i].dst == k->me && p2p_sched[i].src == st->source &&
            p2p_sched[i].tag == st->tag && p2p_sched[i].seq == *next)
            m = &p2p_sched[i];
    if (!m) {
        SOAK_FAIL(k, "p2p: message from %d tag %d not expected (seq %u due): duplicate?",
                  st->source, st->tag, *next);
        return;
    }
    (*next)++;
    if (st->bytes != m->len) {
        SOAK_FAIL(k, "p2p: from %d tag %d seq %u: %zu bytes, expected %zu (lost/reordered)",
                  m->src, m->tag, m->seq, st->bytes, m->len);
        return;
    }
    if (m->len < HDR) {
        if (!soak_check_fill(p, m->len, p2p_key(k, m)))
            SOAK_FAIL(k, "p2p: %zu-byte message from %d tag %d seq %u corrupted", m->len,
                      m->src, m->tag, m->seq);
        return;
    }
    hdr_t h;
    memcpy(&h, p, sizeof(h));
    if (h.magic != MAGIC || h.src != m->src || h.tag != m->tag || h.round != k->round ||
        h.seq != m->seq) {
        SOAK_FAIL(k, "p2p: from %d tag %d: header says src %d tag %d seq %u round %llu, "
                     "expected seq %u (lost, duplicated or reordered)",
                  m->src, m->tag, h.src, h.tag, h.seq, (unsigned long long)h.round, m->seq);
        return;
    }
    if (h.csum != (soak_csum(p + HDR, m->len - HDR) ^ soak_mix(m->len)))
        SOAK_FAIL(k, "p2p: %zu-byte message from %d tag %d seq %u: checksum mismatch", m->len,
                  m->src, m->tag, m->seq);
}

/* Complete reqs[0..n) one of three ways; statuses into sts. */
static void p2p_complete(soak_t *k, soak_rng_t *r, size_t n, rmp_request_t *reqs,
                         rmp_status_t *sts)
{
    uint64_t how = soak_below(r, 3);
    if (how == 0) {
        int rc = rmp_waitall(n, reqs, sts);
        if (rc != RMP_SUCCESS)
            SOAK_FAIL(k, "p2p: waitall: %s", rmp_strerror(rc));
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int rc = RMP_SUCCESS, done = how == 1;
        if (how == 1)
            rc = rmp_wait(&reqs[i], &sts[i]);
        while (!done && rc == RMP_SUCCESS)
            rc = rmp_test(&reqs[i], &done, &sts[i]);
        if (rc != RMP_SUCCESS && rc != RMP_ERR_TRUNCATE)
            SOAK_FAIL(k, "p2p: completing request %zu: %s", i, rmp_strerror(rc));
    }
}

/* The schedule keeps every rank's bytes of a round within the arenas; a
 * change that breaks that must stop the run, not scribble past them. */
static void p2p_arena_overflow(soak_t *k, const char *which)
{
    SOAK_FAIL(k, "p2p: the round's %s buffers exceed SOAK_ARENA (schedule bug)", which);
    rmp_abort(k->world, 3);
}

void soak_p2p_round(soak_t *k)
{
    static int mode[64];
    static rmp_request_t rreq[SOAK_MAX_MSGS], sreq[SOAK_MAX_MSGS];
    static rmp_status_t rst[SOAK_MAX_MSGS], sst[SOAK_MAX_MSGS];
    static unsigned char *rbuf[SOAK_MAX_MSGS];
    int n = p2p_schedule(k, mode), nin = 0, nsend = 0, me = k->me;
    soak_rng_t r;
    soak_rng_init(&r, k->seed, k->round, 1);
    for (int i = 0; i < (int)(me + 1) * 7; i++)
        soak_rng(&r); /* a per-rank stream for local choices */
    size_t maxin = 0, off = 0;
    for (int i = 0; i < n; i++)
        if (p2p_sched[i].dst == me && p2p_sched[i].len > maxin)
            maxin = p2p_sched[i].len;
    /* Post receives (all but the blocking loop) before any send. */
    for (int i = 0; i < n; i++) {
        const msg_t *m = &p2p_sched[i];
        if (m->dst != me)
            continue;
        size_t cap = mode[me] == RX_ANY || mode[me] == RX_BLOCKING_ANY ? maxin : m->len;
        if (off + cap > SOAK_ARENA)
            p2p_arena_overflow(k, "receive");
        rbuf[nin] = k->rarena + off;
        off += cap;
        int src = mode[me] == RX_ANY || mode[me] == RX_BLOCKING_ANY ? RMP_ANY_SOURCE : m->src;
        int tag = mode[me] == RX_EXACT ? m->tag : RMP_ANY_TAG;
        rreq[nin] = RMP_REQUEST_NULL;
        if (mode[me] != RX_BLOCKING_ANY) {
            int rc = rmp_irecv(rbuf[nin], cap, src, tag, k->world, &rreq[nin]);
            if (rc != RMP_SUCCESS)
                SOAK_FAIL(k, "p2p: irecv: %s", rmp_strerror(rc));
        }
        nin++;
    }
    off = 0;
    for (int i = 0; i < n; i++) {
        const msg_t *m = &p2p_sched[i];
        if (m->src != me)
            continue;
        if (off + m->len > SOAK_ARENA)
            p2p_arena_overflow(k, "send");
        unsigned char *p = k->sarena + off;
        off += m->len;
        p2p_build(k, m, p);
        sreq[nsend] = RMP_REQUEST_NULL;
        int rc = m->blocking ? rmp_send(p, m->len, m->dst, m->tag, k->world)
                             : rmp_isend(p, m->len, m->dst, m->tag, k->world, &sreq[nsend]);
        if (rc != RMP_SUCCESS)
            SOAK_FAIL(k, "p2p: send of %zu bytes to %d: %s", m->len, m->dst, rmp_strerror(rc));
        nsend += !m->blocking;
        k->msgs++;
        k->bytes += m->len;
    }
    if (mode[me] == RX_BLOCKING_ANY) {
        for (int i = 0; i < nin; i++) {
            int rc = rmp_recv(rbuf[i], maxin, RMP_ANY_SOURCE, RMP_ANY_TAG, k->world, &rst[i]);
            if (rc != RMP_SUCCESS)
                SOAK_FAIL(k, "p2p: recv: %s", rmp_strerror(rc));
        }
    } else {
        p2p_complete(k, &r, (size_t)nin, rreq, rst);
    }
    /* Verify in completion order: that is the matching order on each stream. */
    for (int i = 0; i < nin; i++)
        p2p_verify(k, n, rbuf[i], &rst[i]);
    p2p_complete(k, &r, (size_t)nsend, sreq, sst);
}
