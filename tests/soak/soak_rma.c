/* SPDX-License-Identifier: BSD-3-Clause */
/* Soak, one-sided phase on one allocated window per rank:
 *   [SOAK_NCOUNTERS fetch-add counters][np compare-and-swap words][np put slots]
 * Each round every rank fetch-adds random amounts to random counters anywhere
 * (the values it gets back must grow), swaps its own word at one target (the
 * swap must always succeed: nobody else writes that word), and puts a random
 * block into its slot at one target and reads it back. After the round's
 * barrier each target checks its slots and words; at the end every counter
 * must equal exactly the sum of what the whole schedule added to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak.h"

static uint64_t *cas_state;         /* [target][writer]: value the word must hold */
static int *put_len;                /* [writer]: bytes put into my window this round */
static uint64_t *put_key;
static unsigned char *put_src, *get_dst;

static size_t off_cas(const soak_t *k, int writer)
{
    (void)k;
    return SOAK_NCOUNTERS * 8 + (size_t)writer * 8;
}

static size_t off_slot(const soak_t *k, int writer)
{
    return SOAK_NCOUNTERS * 8 + (size_t)k->np * 8 + (size_t)writer * SOAK_SLOT;
}

int soak_rma_init(soak_t *k)
{
    size_t bytes = off_slot(k, k->np);
    k->expect_ctr = calloc(SOAK_NCOUNTERS, sizeof(uint64_t));
    k->last_old = calloc((size_t)k->np * SOAK_NCOUNTERS, sizeof(uint64_t));
    cas_state = calloc((size_t)k->np * (size_t)k->np, sizeof(uint64_t));
    put_len = calloc((size_t)k->np, sizeof(int));
    put_key = calloc((size_t)k->np, sizeof(uint64_t));
    put_src = malloc(SOAK_SLOT);
    get_dst = malloc(SOAK_SLOT);
    if (!k->expect_ctr || !k->last_old || !cas_state || !put_len || !put_key || !put_src ||
        !get_dst)
        return RMP_ERR_NOMEM;
    void *base = NULL;
    int rc = rmp_win_allocate(bytes, k->world, &base, &k->win);
    if (rc != RMP_SUCCESS)
        return rc;
    k->wbase = base;
    memset(k->wbase, 0, bytes);
    memset(put_src, 1, SOAK_SLOT); /* resident from the start */
    memset(get_dst, 1, SOAK_SLOT);
    /* nobody touches a window before every rank has zeroed its own */
    return rmp_barrier(k->world);
}

void soak_rma_fini(soak_t *k)
{
    int rc = rmp_win_free(&k->win);
    if (rc != RMP_SUCCESS)
        SOAK_FAIL(k, "rma: win_free: %s", rmp_strerror(rc));
    free(k->expect_ctr);
    free(k->last_old);
    free(cas_state);
    free(put_len);
    free(put_key);
    free(put_src);
    free(get_dst);
}

static void rma_rc(soak_t *k, const char *what, int rc)
{
    if (rc != RMP_SUCCESS)
        SOAK_FAIL(k, "rma: %s: %s", what, rmp_strerror(rc));
}

void soak_rma_round(soak_t *k)
{
    soak_rng_t r;
    soak_rng_init(&r, k->seed, k->round, 4);
    int np = k->np;
    memset(put_len, 0, (size_t)np * sizeof(int));
    /* The whole job's schedule, in rank order; only my part is executed. */
    for (int a = 0; a < np; a++) {
        int nat = (int)soak_below(&r, 16);
        for (int i = 0; i < nat; i++) {
            int t = (int)soak_below(&r, (uint64_t)np), c = (int)soak_below(&r, SOAK_NCOUNTERS);
            uint64_t v = 1 + soak_below(&r, 1000);
            if (t == k->me)
                k->expect_ctr[c] += v;
            if (a != k->me)
                continue;
            uint64_t old = 0, *last = &k->last_old[(size_t)t * SOAK_NCOUNTERS + (size_t)c];
            rma_rc(k, "fetch_add", rmp_atomic_fetch_add(v, &old, t, (size_t)c * 8, k->win));
            if (old < *last)
                SOAK_FAIL(k, "rma: counter %d at %d went back: %llu after %llu", c, t,
                          (unsigned long long)old, (unsigned long long)*last);
            *last = old + v;
            k->atomics++;
        }
        int t = (int)soak_below(&r, (uint64_t)np);
        uint64_t nv = soak_rng(&r), *cur = &cas_state[(size_t)t * (size_t)np + (size_t)a];
        if (a == k->me) {
            uint64_t old = ~*cur;
            rma_rc(k, "cswap", rmp_atomic_cswap(*cur, nv, &old, t, off_cas(k, a), k->win));
            if (old != *cur)
                SOAK_FAIL(k, "rma: cswap of my word at %d found %llx, expected %llx", t,
                          (unsigned long long)old, (unsigned long long)*cur);
            k->atomics++;
        }
        *cur = nv;
        /* one put per rank and round, sometimes nonblocking, read back */
        t = (int)soak_below(&r, (uint64_t)np);
        size_t len = 1 + soak_below(&r, SOAK_SLOT);
        uint64_t key = soak_rng(&r);
        int nbi = (int)soak_below(&r, 2);
        if (t == k->me) {
            put_len[a] = (int)len;
            put_key[a] = key;
        }
        if (a != k->me)
            continue;
        soak_fill(put_src, len, key);
        if (nbi) {
            rma_rc(k, "put_nbi", rmp_put_nbi(put_src, len, t, off_slot(k, a), k->win));
            rma_rc(k, "flush", rmp_win_flush(t, k->win));
        } else {
            rma_rc(k, "put", rmp_put(put_src, len, t, off_slot(k, a), k->win));
        }
        memset(get_dst, 0, len);
        if (nbi) {
            rma_rc(k, "get_nbi", rmp_get_nbi(get_dst, len, t, off_slot(k, a), k->win));
            rma_rc(k, "flush_all", rmp_win_flush_all(k->win));
        } else {
            rma_rc(k, "get", rmp_get(get_dst, len, t, off_slot(k, a), k->win));
        }
        if (!soak_check_fill(get_dst, len, key))
            SOAK_FAIL(k, "rma: %zu bytes put to %d read back different", len, t);
        k->puts++;
    }
}

/* Window lifecycle under load, one round in eight: a window on a local
 * word, a fetch-add from the left neighbour, freed (its barrier orders the
 * add before the check). */
void soak_rma_churn(soak_t *k)
{
    soak_rng_t r;
    soak_rng_init(&r, k->seed, k->round, 5);
    if (soak_below(&r, 8) != 0)
        return;
    uint64_t cell = 0, old = 0;
    rmp_win_t w = RMP_WIN_NULL;
    rma_rc(k, "win_create", rmp_win_create(&cell, sizeof(cell), k->world, &w));
    if (w == RMP_WIN_NULL)
        return;
    rma_rc(k, "fetch_add (churn)", rmp_atomic_fetch_add(5, &old, (k->me + 1) % k->np, 0, w));
    rma_rc(k, "win_free", rmp_win_free(&w));
    if (cell != 5 || old != 0)
        SOAK_FAIL(k, "rma: short-lived window holds %llu (old %llu), expected 5 (0)",
                  (unsigned long long)cell, (unsigned long long)old);
    k->atomics++;
}

void soak_rma_check(soak_t *k)
{
    for (int a = 0; a < k->np; a++) {
        if (put_len[a] && !soak_check_fill(k->wbase + off_slot(k, a), (size_t)put_len[a],
                                           put_key[a]))
            SOAK_FAIL(k, "rma: the %d bytes rank %d put here are wrong", put_len[a], a);
        uint64_t w;
        memcpy(&w, k->wbase + off_cas(k, a), 8);
        if (w != cas_state[(size_t)k->me * (size_t)k->np + (size_t)a])
            SOAK_FAIL(k, "rma: rank %d's swap word here holds %llx", a, (unsigned long long)w);
    }
}

void soak_rma_final(soak_t *k)
{
    for (int c = 0; c < SOAK_NCOUNTERS; c++) {
        uint64_t v = __atomic_load_n((uint64_t *)(void *)(k->wbase + (size_t)c * 8),
                                     __ATOMIC_SEQ_CST);
        if (v != k->expect_ctr[c])
            SOAK_FAIL(k, "rma: counter %d ends at %llu, expected exactly %llu", c,
                      (unsigned long long)v, (unsigned long long)k->expect_ctr[c]);
    }
}
