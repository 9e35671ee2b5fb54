/* SPDX-License-Identifier: BSD-3-Clause */
/* The shm inbox (multi-producer cells), the medium-buffer pool and the
 * segment address check: wrap-around over many laps, the full inbox and the
 * exhausted pool, publication out of claim order, malformed cells, and
 * concurrent producers in real processes on real shared memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transports/shm/shm_seg.h"

typedef struct {
    shm_inbox_ctl_t *ctl;
    shm_cell_t *cells;
    shm_inbox_rx_t rx;
    size_t len;
} inbox_t;

/* A shared anonymous mapping: forked producers write the parent's cells. */
static void inbox_make(inbox_t *ib, uint64_t ncells)
{
    ib->len = SHM_CELL + ncells * SHM_CELL;
    char *p = mmap(NULL, ib->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    ib->ctl = (shm_inbox_ctl_t *)p;
    ib->cells = (shm_cell_t *)(p + SHM_CELL);
    shm_inbox_init(ib->ctl, ib->cells, ncells);
    ib->rx = (shm_inbox_rx_t){ib->ctl, ib->cells, ncells, 0};
}

static void inbox_free(inbox_t *ib)
{
    munmap(ib->ctl, ib->len);
}

static int post(inbox_t *ib, uint16_t src, uint32_t v, size_t plen)
{
    unsigned char pay[SHM_CELL_DATA];
    for (size_t i = 0; i < plen; i++)
        pay[i] = (unsigned char)(v + i);
    return shm_inbox_post(ib->ctl, ib->cells, ib->rx.ncells, src, &v, sizeof(v), pay, plen);
}

/* Pop one cell and check it carries v with plen payload bytes. */
static void expect(inbox_t *ib, uint16_t src, uint32_t v, size_t plen)
{
    shm_cell_t *c = shm_inbox_peek(&ib->rx);
    assert_non_null(c);
    assert_int_equal(shm_cell_check(c, 64, 1, 4096), 0);
    assert_int_equal(c->src, src);
    assert_int_equal(c->hlen, sizeof(v));
    assert_int_equal(c->plen, plen);
    uint32_t got;
    memcpy(&got, c->data, sizeof(got));
    assert_int_equal(got, v);
    for (size_t i = 0; i < plen; i++)
        assert_int_equal(c->data[sizeof(v) + i], (unsigned char)(v + i));
    shm_inbox_pop(&ib->rx, c);
}

static void test_wrap(void **state)
{
    (void)state;
    inbox_t ib;
    inbox_make(&ib, 8);
    /* 100 laps, with a varying number in flight so every cell index is the
     * head of a batch at some point. */
    uint32_t sent = 0, got = 0;
    for (int round = 0; round < 300; round++) {
        int k = 1 + round % 8;
        for (int i = 0; i < k; i++, sent++)
            assert_int_equal(post(&ib, 3, sent, sent % (SHM_CELL_DATA - 3)), 0);
        for (int i = 0; i < k; i++, got++)
            expect(&ib, 3, got, got % (SHM_CELL_DATA - 3));
        assert_null(shm_inbox_peek(&ib.rx));
    }
    assert_true(ib.rx.tail > 100 * 8);
    inbox_free(&ib);
}

static void test_full(void **state)
{
    (void)state;
    inbox_t ib;
    inbox_make(&ib, 16);
    for (int lap = 0; lap < 3; lap++) {
        for (uint32_t i = 0; i < 16; i++)
            assert_int_equal(post(&ib, 1, lap * 100 + i, 8), 0);
        /* Full: nothing goes in, and the failed attempt claims nothing. */
        assert_int_equal(post(&ib, 1, 999, 8), 1);
        assert_int_equal(post(&ib, 2, 999, 0), 1);
        expect(&ib, 1, lap * 100, 8);
        assert_int_equal(post(&ib, 1, lap * 100 + 16, 8), 0);
        assert_int_equal(post(&ib, 1, 999, 8), 1);
        for (uint32_t i = 1; i <= 16; i++)
            expect(&ib, 1, lap * 100 + i, 8);
        assert_null(shm_inbox_peek(&ib.rx));
    }
    inbox_free(&ib);
}

/* Two producers claim in one order and publish in the other: the consumer
 * waits for the first claim, so cells come out in claim order. */
static void test_publish_order(void **state)
{
    (void)state;
    inbox_t ib;
    inbox_make(&ib, 8);
    uint64_t pa = 0, pb = 0;
    shm_cell_t *a = shm_inbox_claim(ib.ctl, ib.cells, 8, &pa);
    shm_cell_t *b = shm_inbox_claim(ib.ctl, ib.cells, 8, &pb);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(pb == pa + 1 && a != b);
    uint32_t va = 1, vb = 2;
    *b = (shm_cell_t){.plen = 0, .src = 2, .hlen = 4, .kind = SHM_CELL_INLINE};
    memcpy(b->data, &vb, 4);
    shm_inbox_publish(b, pb);
    assert_null(shm_inbox_peek(&ib.rx));
    a->plen = 0;
    a->src = 1;
    a->hlen = 4;
    a->kind = SHM_CELL_INLINE;
    memcpy(a->data, &va, 4);
    shm_inbox_publish(a, pa);
    expect(&ib, 1, 1, 0);
    expect(&ib, 2, 2, 0);
    assert_null(shm_inbox_peek(&ib.rx));
    inbox_free(&ib);
}

static void test_cell_check(void **state)
{
    (void)state;
    shm_cell_t c;
    memset(&c, 0, sizeof(c));
    c.src = 1;
    c.hlen = 16;
    c.plen = SHM_CELL_DATA - 16;
    assert_int_equal(shm_cell_check(&c, 2, 4, 4096), 0);
    c.plen++;
    assert_int_equal(shm_cell_check(&c, 2, 4, 4096), -1); /* past the cell */
    c.plen = 0;
    c.src = 2;
    assert_int_equal(shm_cell_check(&c, 2, 4, 4096), -1); /* no such rank */
    c.src = 0;
    c.hlen = 0;
    assert_int_equal(shm_cell_check(&c, 2, 4, 4096), -1); /* no header */
    c.hlen = 16;
    c.kind = 7;
    assert_int_equal(shm_cell_check(&c, 2, 4, 4096), -1); /* unknown kind */
    c.kind = SHM_CELL_POOL;
    uint32_t idx = 3;
    memcpy(c.data, &idx, 4);
    c.plen = 4096 - 16;
    assert_int_equal(shm_cell_check(&c, 2, 4, 4096), 0);
    c.plen = 0xffffffffu; /* hlen + plen must not wrap */
    assert_int_equal(shm_cell_check(&c, 2, 4, 4096), -1);
    c.plen = 4096 - 15;
    assert_int_equal(shm_cell_check(&c, 2, 4, 4096), -1);
    c.plen = 0;
    idx = 4;
    memcpy(c.data, &idx, 4);
    assert_int_equal(shm_cell_check(&c, 2, 4, 4096), -1); /* no such buffer */
}

static void test_pool(void **state)
{
    (void)state;
    shm_pool_state_t st[4];
    memset(st, 0, sizeof(st));
    shm_pool_t p = {st, NULL, 4, 4096, 0};
    /* A ping-pong keeps reusing one buffer. */
    for (int i = 0; i < 10; i++) {
        assert_int_equal(shm_pool_get(&p), 0);
        shm_pool_put(st, 0);
    }
    /* A burst: the buffer used last, then the lowest free ones. */
    for (int i = 0; i < 4; i++)
        assert_int_equal(shm_pool_get(&p), i);
    assert_int_equal(shm_pool_get(&p), -1); /* exhausted */
    shm_pool_put(st, 2);
    shm_pool_put(st, 1);
    assert_int_equal(shm_pool_get(&p), 1); /* the lowest free, not the next on round (2) */
    shm_pool_put(st, 0);
    assert_int_equal(shm_pool_get(&p), 0); /* last used (1) busy: the lowest free */
    assert_int_equal(shm_pool_get(&p), 2);
    assert_int_equal(shm_pool_get(&p), -1);
    shm_pool_put(st, 2);
    assert_int_equal(shm_pool_get(&p), 2); /* the one used last, free again */
}

static void test_addr(void **state)
{
    (void)state;
    shm_addr_t a;
    memset(&a, 0, sizeof(a));
    strcpy(a.name, "12:5");
    a.pid = 12;
    a.nlocal = 4;
    a.ncells = 128;
    a.nbufs = 8;
    a.buf_bytes = 65536;
    a.seg_bytes = shm_seg_bytes(128, 8, 65536);
    const char *why;
    assert_int_equal(shm_addr_check(&a, sizeof(a), 4, &why), RMP_SUCCESS);
    /* The pool lies in the segment, after the inbox and the state lines. */
    assert_true(shm_seg_bufs_off(128, 8) >= shm_seg_state_off(128) + 8 * SHM_LINE);
    assert_true(shm_seg_bufs_off(128, 8) + 8 * 65536 <= a.seg_bytes);
    assert_int_equal(shm_addr_check(&a, sizeof(a), 5, &why), RMP_ERR_BOOTSTRAP);
    a.ncells = 100;
    assert_int_equal(shm_addr_check(&a, sizeof(a), 4, &why), RMP_ERR_BOOTSTRAP);
    a.ncells = 128;
    a.seg_bytes--;
    assert_int_equal(shm_addr_check(&a, sizeof(a), 4, &why), RMP_ERR_BOOTSTRAP);
    assert_non_null(why);
    a.seg_bytes++;
    a.nbufs = 0;
    assert_int_equal(shm_addr_check(&a, sizeof(a), 4, &why), RMP_ERR_BOOTSTRAP);
}

/* NPROC processes post NMSG messages each, inline and through their own
 * pool, into one small inbox (it is full most of the time); the parent
 * checks that every message arrives exactly once, intact and in order per
 * sender, and returns each pool buffer. */
#define NPROC 4
#define NMSG 20000
#define NBUF 4
#define BUFB 4096

typedef struct {
    shm_pool_state_t state[NPROC][NBUF];
    unsigned char bufs[NPROC][NBUF][BUFB];
} pools_t;

static void producer(inbox_t *ib, pools_t *pools, uint16_t me)
{
    shm_pool_t p = {pools->state[me], &pools->bufs[me][0][0], NBUF, BUFB, 0};
    unsigned char pay[BUFB];
    for (uint32_t v = 0; v < NMSG; v++) {
        size_t plen = v % 7 == 0 ? 200 + v % 3000 : v % 90;
        for (size_t i = 0; i < plen; i++)
            pay[i] = (unsigned char)(v * 13 + me + i);
        if (plen + 4 <= SHM_CELL_DATA) {
            while (shm_inbox_post(ib->ctl, ib->cells, ib->rx.ncells, me, &v, 4, pay, plen))
                sched_yield();
            continue;
        }
        int64_t b;
        while ((b = shm_pool_get(&p)) < 0)
            sched_yield();
        unsigned char *d = shm_pool_buf(p.bufs, BUFB, (uint32_t)b);
        memcpy(d, &v, 4);
        memcpy(d + 4, pay, plen);
        uint64_t pos;
        shm_cell_t *c;
        while (!(c = shm_inbox_claim(ib->ctl, ib->cells, ib->rx.ncells, &pos)))
            sched_yield();
        uint32_t idx = (uint32_t)b;
        c->plen = (uint32_t)plen;
        c->src = me;
        c->hlen = 4;
        c->kind = SHM_CELL_POOL;
        memcpy(c->data, &idx, 4);
        shm_inbox_publish(c, pos);
    }
}

static void test_processes(void **state)
{
    (void)state;
    inbox_t ib;
    inbox_make(&ib, 16);
    pools_t *pools = mmap(NULL, sizeof(pools_t), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(pools != MAP_FAILED);
    memset(pools, 0, sizeof(*pools));
    pid_t pids[NPROC];
    for (int i = 0; i < NPROC; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            producer(&ib, pools, (uint16_t)i);
            _exit(0);
        }
    }
    uint32_t next[NPROC] = {0};
    for (uint64_t n = 0; n < (uint64_t)NPROC * NMSG;) {
        shm_cell_t *c = shm_inbox_peek(&ib.rx);
        if (!c) {
            sched_yield();
            continue;
        }
        assert_int_equal(shm_cell_check(c, NPROC, NBUF, BUFB), 0);
        uint16_t src = c->src;
        const unsigned char *d = c->data;
        uint32_t idx = 0;
        if (c->kind == SHM_CELL_POOL) {
            memcpy(&idx, c->data, 4);
            d = pools->bufs[src][idx];
        }
        uint32_t v;
        memcpy(&v, d, 4);
        assert_int_equal(v, next[src]);
        size_t plen = v % 7 == 0 ? 200 + v % 3000 : v % 90;
        assert_int_equal(c->plen, plen);
        for (size_t i = 0; i < plen; i++)
            if (d[4 + i] != (unsigned char)(v * 13 + src + i))
                fail_msg("sender %u message %u byte %zu corrupt", src, v, i);
        if (c->kind == SHM_CELL_POOL)
            shm_pool_put(pools->state[src], idx);
        shm_inbox_pop(&ib.rx, c);
        next[src]++;
        n++;
    }
    for (int i = 0; i < NPROC; i++) {
        int st;
        assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        assert_int_equal(next[i], NMSG);
    }
    assert_null(shm_inbox_peek(&ib.rx));
    munmap(pools, sizeof(*pools));
    inbox_free(&ib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrap),          cmocka_unit_test(test_full),
        cmocka_unit_test(test_publish_order), cmocka_unit_test(test_cell_check),
        cmocka_unit_test(test_pool),          cmocka_unit_test(test_addr),
        cmocka_unit_test(test_processes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
