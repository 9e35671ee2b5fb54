/* SPDX-License-Identifier: BSD-3-Clause */
/* Every status code has its own sentence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rmp.h"

static void test_every_code(void **state)
{
    (void)state;
    for (int c = 0; c > RMP_ERR_LAST; c--) {
        const char *s = rmp_strerror(c);
        assert_non_null(s);
        assert_true(strlen(s) > 5);
        assert_null(strstr(s, "unknown rmp status"));
        for (int d = c + 1; d <= 0; d++)
            assert_string_not_equal(s, rmp_strerror(d));
    }
    assert_non_null(strstr(rmp_strerror(RMP_ERR_TRUNCATE), "truncated"));
    assert_non_null(strstr(rmp_strerror(RMP_ERR_PEER_FAILED), "peer"));
}

static void test_unknown(void **state)
{
    (void)state;
    assert_non_null(strstr(rmp_strerror(1), "unknown"));
    assert_non_null(strstr(rmp_strerror(RMP_ERR_LAST), "unknown"));
    assert_non_null(strstr(rmp_strerror(-1000), "unknown"));
}

static void test_not_initialized(void **state)
{
    (void)state;
    assert_int_equal(rmp_initialized(), 0);
    char b[4];
    assert_int_equal(rmp_send(b, 4, 0, 0, rmp_comm_world()), RMP_ERR_STATE);
    assert_int_equal(rmp_finalize(), RMP_ERR_STATE);
    rmp_comm_t nc;
    assert_int_equal(rmp_comm_split(rmp_comm_world(), 0, 0, &nc), RMP_ERR_STATE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_code),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_not_initialized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
