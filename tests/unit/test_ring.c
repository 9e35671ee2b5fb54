/* SPDX-License-Identifier: BSD-3-Clause */
/* The shm ring's index arithmetic: wrap-around with pad records, full
 * detection, records of every size, many laps. Single process, two views. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "transports/shm/shm_ring.h"

typedef struct {
    shm_ring_ctl_t ctl;
    shm_line_t *lines;
    shm_tx_t tx;
    shm_rx_t rx;
} ring_t;

static void ring_make(ring_t *r, uint64_t nlines)
{
    memset(r, 0, sizeof(*r));
    r->lines = aligned_alloc(SHM_LINE, nlines * SHM_LINE);
    memset(r->lines, 0, nlines * SHM_LINE);
    r->tx = (shm_tx_t){&r->ctl, r->lines, nlines, 0, 0};
    r->rx = (shm_rx_t){&r->ctl, r->lines, nlines, 0, 0};
}

static void test_lines(void **state)
{
    (void)state;
    assert_int_equal(shm_rec_lines(16, 0), 1);
    assert_int_equal(shm_rec_lines(16, 32), 1);
    assert_int_equal(shm_rec_lines(16, 33), 2);
    assert_int_equal(shm_rec_lines(48, 0), 1);
    assert_int_equal(shm_rec_lines(16, 64 * 10), 11);
    assert_int_equal(shm_ring_max_msg(64), 32 * 64 - 16);
}

static void test_empty_and_full(void **state)
{
    (void)state;
    ring_t r;
    ring_make(&r, 8);
    assert_null(shm_ring_peek(&r.rx));
    char h[16] = "hdr";
    for (int i = 0; i < 8; i++)
        assert_int_equal(shm_ring_push(&r.tx, h, 16, NULL, 0), 0);
    assert_int_equal(shm_ring_push(&r.tx, h, 16, NULL, 0), 1); /* full */
    shm_rec_t *rec = shm_ring_peek(&r.rx);
    assert_non_null(rec);
    shm_ring_pop(&r.rx, rec);
    assert_int_equal(shm_ring_push(&r.tx, h, 16, NULL, 0), 0); /* room again */
    free(r.lines);
}

/* Random sizes over many laps: every record comes out intact, in order. */
static void test_wrap_many_laps(void **state)
{
    (void)state;
    ring_t r;
    ring_make(&r, 64);
    size_t maxp = shm_ring_max_msg(64) - 16;
    unsigned char payload[4096], hdr[16];
    uint64_t sent = 0, recvd = 0;
    srand(7);
    while (recvd < 20000) {
        /* push while it fits */
        for (;;) {
            size_t plen = (size_t)rand() % (maxp + 1);
            memset(hdr, 0, sizeof(hdr));
            memcpy(hdr, &sent, sizeof(sent));
            for (size_t i = 0; i < plen; i++)
                payload[i] = (unsigned char)(sent * 31 + i);
            if (shm_ring_push(&r.tx, hdr, 16, payload, plen) != 0)
                break;
            sent++;
            if (rand() % 3 == 0)
                break;
        }
        shm_rec_t *rec;
        while ((rec = shm_ring_peek(&r.rx)) != NULL) {
            const unsigned char *d = (const unsigned char *)(rec + 1);
            uint64_t seq;
            memcpy(&seq, d, sizeof(seq));
            assert_int_equal(seq, recvd);
            assert_int_equal(rec->hlen, 16);
            for (size_t i = 0; i < rec->plen; i++)
                assert_int_equal(d[16 + i], (unsigned char)(seq * 31 + i));
            shm_ring_pop(&r.rx, rec);
            recvd++;
            if (rand() % 4 == 0)
                break;
        }
    }
    assert_true(r.tx.head > 64 * 100); /* many laps */
    free(r.lines);
}

/* A producer's record whose lengths overrun its lines, or a pad of 0 lines
 * (which used to spin the consumer forever): refused, the ring marked. */
static void test_corrupt_records(void **state)
{
    (void)state;
    ring_t r;
    char h[16] = "hdr";
    ring_make(&r, 8);
    assert_int_equal(shm_ring_push(&r.tx, h, 16, NULL, 0), 0);
    shm_rec_t *rec = (shm_rec_t *)&r.lines[0];
    rec->plen = 1000; /* more than its one line */
    assert_null(shm_ring_peek(&r.rx));
    assert_int_equal(r.rx.corrupt, 1);
    free(r.lines);

    ring_make(&r, 8);
    assert_int_equal(shm_ring_push(&r.tx, h, 16, NULL, 0), 0);
    rec = (shm_rec_t *)&r.lines[0];
    rec->flags = SHM_REC_PAD;
    rec->nlines = 0;
    assert_null(shm_ring_peek(&r.rx));
    assert_int_equal(r.rx.corrupt, 1);
    free(r.lines);

    /* A record running past the ring's end instead of a pad. */
    ring_make(&r, 8);
    r.tx.head = r.rx.tail = r.tx.tail_cache = 7;
    r.ctl.tail = 7;
    assert_int_equal(shm_ring_push(&r.tx, h, 16, NULL, 0), 0);
    rec = (shm_rec_t *)&r.lines[7];
    rec->plen = 100;
    rec->nlines = 2;
    assert_null(shm_ring_peek(&r.rx));
    assert_int_equal(r.rx.corrupt, 1);
    assert_int_equal(shm_frame_check(rec, 7, 8), -1);
    rec->plen = 0;
    rec->nlines = 1;
    assert_int_equal(shm_frame_check(rec, 7, 8), 0);
    free(r.lines);
}

/* Payload that sat at the start of a line and equals that line's position
 * in the next lap + 1 looked like a record there (found by fuzz_shm_ring). */
static void test_stale_payload_is_no_record(void **state)
{
    (void)state;
    ring_t r;
    ring_make(&r, 8);
    unsigned char pl[96];
    memset(pl, 0xab, sizeof(pl));
    uint64_t fake = 8 + 1 + 1; /* line 1 in the next lap is position 9 */
    memcpy(pl + 32, &fake, sizeof(fake)); /* record byte 64: line 1's first word */
    char h[16] = "hdr";
    assert_int_equal(shm_ring_push(&r.tx, h, 16, pl, sizeof(pl)), 0);
    shm_rec_t *rec = shm_ring_peek(&r.rx);
    assert_non_null(rec);
    assert_int_equal(rec->nlines, 2);
    shm_ring_pop(&r.rx, rec);
    for (int i = 0; i < 7; i++) { /* one-line records up to position 9 */
        assert_int_equal(shm_ring_push(&r.tx, h, 16, NULL, 0), 0);
        rec = shm_ring_peek(&r.rx);
        assert_non_null(rec);
        shm_ring_pop(&r.rx, rec);
    }
    assert_int_equal(r.rx.tail, 9);
    assert_null(shm_ring_peek(&r.rx)); /* nothing was sent */
    assert_int_equal(r.rx.corrupt, 0);
    free(r.lines);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_empty_and_full),
        cmocka_unit_test(test_wrap_many_laps),
        cmocka_unit_test(test_corrupt_records),
        cmocka_unit_test(test_stale_payload_is_no_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
