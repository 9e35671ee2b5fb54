/* SPDX-License-Identifier: BSD-3-Clause */
/* Matching queues: wildcards, FIFO order, context separation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/match.h"

static rmpi_mq_elem_t mk(uint32_t cid, int src, int tag)
{
    rmpi_mq_elem_t e = {NULL, NULL, cid, src, tag};
    return e;
}

static void test_posted_wildcards(void **state)
{
    (void)state;
    rmpi_mq_t q;
    rmpi_mq_init(&q);
    rmpi_mq_elem_t a = mk(0, 1, 5), b = mk(0, RMP_ANY_SOURCE, 7), c = mk(0, 2, RMP_ANY_TAG),
                   d = mk(2, RMP_ANY_SOURCE, RMP_ANY_TAG);
    rmpi_mq_push(&q, &a);
    rmpi_mq_push(&q, &b);
    rmpi_mq_push(&q, &c);
    rmpi_mq_push(&q, &d);
    assert_null(rmpi_mq_match_posted(&q, 0, 3, 9));  /* nothing for (3, 9) on cid 0 */
    assert_ptr_equal(rmpi_mq_match_posted(&q, 0, 2, 7), &b); /* b before c: FIFO */
    assert_ptr_equal(rmpi_mq_match_posted(&q, 0, 2, 7), &c);
    assert_ptr_equal(rmpi_mq_match_posted(&q, 2, 9, 9), &d);
    assert_null(rmpi_mq_match_posted(&q, 0, 1, 6));
    assert_ptr_equal(rmpi_mq_match_posted(&q, 0, 1, 5), &a);
    assert_true(rmpi_mq_empty(&q));
    assert_int_equal(q.len, 0);
    assert_int_equal(q.high_water, 4);
}

static void test_unexpected_order(void **state)
{
    (void)state;
    rmpi_mq_t q;
    rmpi_mq_init(&q);
    rmpi_mq_elem_t m[6] = {mk(0, 1, 1), mk(0, 2, 1), mk(0, 1, 2),
                           mk(0, 1, 1), mk(4, 1, 1), mk(0, 2, 2)};
    for (int i = 0; i < 6; i++)
        rmpi_mq_push(&q, &m[i]);
    /* probe does not remove */
    assert_ptr_equal(rmpi_mq_match_unexp(&q, 0, 1, RMP_ANY_TAG, 0), &m[0]);
    assert_ptr_equal(rmpi_mq_match_unexp(&q, 0, 1, RMP_ANY_TAG, 1), &m[0]);
    assert_ptr_equal(rmpi_mq_match_unexp(&q, 0, RMP_ANY_SOURCE, 1, 1), &m[1]);
    assert_ptr_equal(rmpi_mq_match_unexp(&q, 0, 1, 1, 1), &m[3]);
    assert_ptr_equal(rmpi_mq_match_unexp(&q, 4, RMP_ANY_SOURCE, RMP_ANY_TAG, 1), &m[4]);
    assert_null(rmpi_mq_match_unexp(&q, 4, RMP_ANY_SOURCE, RMP_ANY_TAG, 1));
    assert_ptr_equal(rmpi_mq_match_unexp(&q, 0, RMP_ANY_SOURCE, RMP_ANY_TAG, 1), &m[2]);
    assert_ptr_equal(rmpi_mq_match_unexp(&q, 0, RMP_ANY_SOURCE, RMP_ANY_TAG, 1), &m[5]);
    assert_true(rmpi_mq_empty(&q));
}

static void test_remove_middle(void **state)
{
    (void)state;
    rmpi_mq_t q;
    rmpi_mq_init(&q);
    rmpi_mq_elem_t m[3] = {mk(0, 0, 0), mk(0, 0, 1), mk(0, 0, 2)};
    for (int i = 0; i < 3; i++)
        rmpi_mq_push(&q, &m[i]);
    rmpi_mq_remove(&q, &m[1]);
    assert_int_equal(q.len, 2);
    assert_ptr_equal(q.head.next, &m[0]);
    assert_ptr_equal(m[0].next, &m[2]);
    assert_ptr_equal(m[2].prev, &m[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_posted_wildcards),
        cmocka_unit_test(test_unexpected_order),
        cmocka_unit_test(test_remove_middle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
