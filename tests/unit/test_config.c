/* SPDX-License-Identifier: BSD-3-Clause */
/* Parsing of RMP_* variables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "core/tl_registry.h"
#include "rmp.h"

static void test_sizes(void **state)
{
    (void)state;
    size_t v;
    assert_int_equal(rmpi_parse_size("0", &v), RMP_SUCCESS);
    assert_int_equal(v, 0);
    assert_int_equal(rmpi_parse_size("4096", &v), RMP_SUCCESS);
    assert_int_equal(v, 4096);
    assert_int_equal(rmpi_parse_size("16k", &v), RMP_SUCCESS);
    assert_int_equal(v, 16384);
    assert_int_equal(rmpi_parse_size("2M", &v), RMP_SUCCESS);
    assert_int_equal(v, 2u << 20);
    assert_int_equal(rmpi_parse_size("1gb", &v), RMP_SUCCESS);
    assert_int_equal(v, 1u << 30);
    const char *bad[] = {"", "-1", "12x", "k", "1.5k", "99999999999999999999", "17179869184g", " 4"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(rmpi_parse_size(bad[i], &v), RMP_ERR_ARG);
}

static void test_bool_int_double_enum(void **state)
{
    (void)state;
    bool b;
    assert_int_equal(rmpi_parse_bool("yes", &b), RMP_SUCCESS);
    assert_true(b);
    assert_int_equal(rmpi_parse_bool("OFF", &b), RMP_SUCCESS);
    assert_false(b);
    assert_int_equal(rmpi_parse_bool("2", &b), RMP_ERR_ARG);
    int i;
    assert_int_equal(rmpi_parse_int("-1", &i), RMP_SUCCESS);
    assert_int_equal(i, -1);
    assert_int_equal(rmpi_parse_int("3e", &i), RMP_ERR_ARG);
    assert_int_equal(rmpi_parse_int("99999999999", &i), RMP_ERR_ARG);
    double d;
    assert_int_equal(rmpi_parse_double("2.5", &d), RMP_SUCCESS);
    assert_true(d == 2.5);
    assert_int_equal(rmpi_parse_double("-1", &d), RMP_ERR_ARG);
    assert_int_equal(rmpi_parse_double("nan", &d), RMP_ERR_ARG);
    assert_int_equal(rmpi_parse_enum("info", "error|warn|info", &i), RMP_SUCCESS);
    assert_int_equal(i, 2);
    assert_int_equal(rmpi_parse_enum("inf", "error|warn|info", &i), RMP_ERR_ARG);
    assert_int_equal(rmpi_parse_enum("", "error|warn|info", &i), RMP_ERR_ARG);
}

static int unknown_count;
static char unknown_suggestion[64];
static void on_unknown(const char *name, const char *sugg)
{
    (void)name;
    unknown_count++;
    snprintf(unknown_suggestion, sizeof(unknown_suggestion), "%s", sugg ? sugg : "");
}

/* The current value of any registered parameter (core or a transport's), as text. */
static const char *param_text(rmpi_config_t *cfg, const char *name)
{
    static char buf[256];
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int n = rmpi_config_sets(cfg, sets);
    for (int s = 0; s < n; s++)
        for (const rmpi_param_t *p = sets[s].params; p->name; p++)
            if (strcmp(p->name, name) == 0) {
                rmpi_config_format(sets[s].values, p, buf, sizeof(buf));
                return buf;
            }
    return NULL;
}

static void test_load(void **state)
{
    (void)state;
    rmpi_config_t cfg;
    char err[256];
    char *env1[] = {"PATH=/bin", "RMP_LOG=debug", "RMP_RNDV_THRESHOLD=32k",
                    "RMP_TRANSPORTS=shm", "RMP_TIMEOUT=1.5", NULL};
    assert_int_equal(rmpi_config_load_from(env1, &cfg, err, sizeof(err), on_unknown),
                     RMP_SUCCESS);
    assert_int_equal(cfg.log_level, 3);
    assert_int_equal(cfg.rndv_threshold, 32768);
    assert_string_equal(cfg.transports, "shm");
    assert_true(cfg.timeout == 1.5);
    /* defaults */
    assert_string_equal(param_text(&cfg, "RMP_SHM_RING_BYTES"), "1048576");
    if (rmpi_tl_lookup("verbs", 5)->iface)
        assert_string_equal(param_text(&cfg, "RMP_VERBS_GID_INDEX"), "-1");
    /* what came from the environment (a tuning file may fill in only the rest) */
    assert_true(rmpi_config_from_env(&cfg, "RMP_RNDV_THRESHOLD"));
    assert_true(rmpi_config_from_env(&cfg, "RMP_TIMEOUT"));
    assert_false(rmpi_config_from_env(&cfg, "RMP_SHM_RING_BYTES"));
    assert_false(rmpi_config_from_env(&cfg, "RMP_NO_SUCH_THING"));

    char *env2[] = {"RMP_RNDV_THRESHOLD=lots", NULL};
    assert_int_equal(rmpi_config_load_from(env2, &cfg, err, sizeof(err), on_unknown),
                     RMP_ERR_ARG);
    assert_non_null(strstr(err, "RMP_RNDV_THRESHOLD"));

    unknown_count = 0;
    char *env3[] = {"RMP_RNDV_TRESHOLD=1", "RMP_RRUN_BINDING=core 0", NULL};
    assert_int_equal(rmpi_config_load_from(env3, &cfg, err, sizeof(err), on_unknown),
                     RMP_SUCCESS);
    assert_int_equal(unknown_count, 1);
    assert_string_equal(unknown_suggestion, "RMP_RNDV_THRESHOLD");

    /* Transport parameters live in the transport's table: parsed into its values,
     * marked as set, and suggested for typos like the core's. */
    unknown_count = 0;
    char *env4[] = {"RMP_SHM_RING_BYTES=256k", "RMP_TCP_IF=lo", "RMP_SHM_RING_BYTE=1", NULL};
    assert_int_equal(rmpi_config_load_from(env4, &cfg, err, sizeof(err), on_unknown),
                     RMP_SUCCESS);
    assert_string_equal(param_text(&cfg, "RMP_SHM_RING_BYTES"), "262144");
    assert_string_equal(param_text(&cfg, "RMP_TCP_IF"), "lo");
    assert_true(rmpi_config_from_env(&cfg, "RMP_SHM_RING_BYTES"));
    assert_false(rmpi_config_from_env(&cfg, "RMP_SHM_CMA"));
    assert_int_equal(unknown_count, 1);
    assert_string_equal(unknown_suggestion, "RMP_SHM_RING_BYTES");
    char *env5[] = {"RMP_SHM_CMA=sometimes", NULL};
    assert_int_equal(rmpi_config_load_from(env5, &cfg, err, sizeof(err), on_unknown),
                     RMP_ERR_ARG);
    assert_non_null(strstr(err, "RMP_SHM_CMA=sometimes is malformed"));
}

static void test_format_every_param(void **state)
{
    (void)state;
    rmpi_config_t cfg;
    char err[256], buf[256];
    char *env[] = {NULL};
    assert_int_equal(rmpi_config_load_from(env, &cfg, err, sizeof(err), NULL), RMP_SUCCESS);
    int n = 0;
    rmpi_param_set_t sets[RMPI_PARAM_SETS_MAX];
    int nsets = rmpi_config_sets(&cfg, sets);
    for (int s = 0; s < nsets; s++) {
        for (const rmpi_param_t *p = sets[s].params; p->name; p++, n++) {
            assert_non_null(p->help);
            rmpi_config_format(sets[s].values, p, buf, sizeof(buf));
            if (p->type == RMPI_PT_ENUM || p->type == RMPI_PT_STRING)
                assert_string_equal(buf, p->defval);
        }
    }
    assert_true(n >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_bool_int_double_enum),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_format_every_param),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
