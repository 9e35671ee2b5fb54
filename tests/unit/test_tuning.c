/* SPDX-License-Identifier: BSD-3-Clause */
/* Tuning files (core/tuning.c) and the data-driven collective table (collectives/
 * coll_tune.c): a good file, every kind of error with its file:line, the table a file
 * installs, the precedence of thresholds, and that the built-in table is exactly what
 * the parser reads from tools/tuning/default.tune. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "collectives/coll_tune.h"
#include "core/config.h"
#include "core/tl_registry.h"
#include "core/tuning.h"
#include "rmp.h"
#include "transport.h"

static char tmpdir[] = "/tmp/rmp-tuning-XXXXXX";

/* Write text to a fresh file; returns its path (static buffer per call site). */
static const char *write_file(const char *name, const char *text)
{
    static char path[8][256];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, 256, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static int setup(void **state)
{
    (void)state;
    char err[256];
    char *env[] = {NULL};
    if (!mkdtemp(tmpdir))
        return -1;
    return rmpi_config_load_from(env, &rmpi_eng.cfg, err, sizeof(err), NULL);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    return system(cmd);
}

static int algo(coll_kind_t kind, const char *name)
{
    int a = -1;
    assert_int_equal(coll_algo_by_name(kind, name, &a), RMP_SUCCESS);
    return a;
}

static void test_good_file(void **state)
{
    (void)state;
    static rmpi_tuning_t t;
    char err[512] = "";
    const char *path = write_file("good.tune",
                                  "# a comment\n"
                                  "version 1\n"
                                  "\n"
                                  "shm rndv_threshold 16k   # trailing comment\n"
                                  "tcp rndv_threshold 65536\n"
                                  "shm buf_bytes 256k\n"
                                  "allreduce ranks<=4 nodes=1 bytes<=256k ring\n"
                                  "allreduce\tbytes<=1m  ppn<=8 nodes>=2 rabenseifner\n"
                                  "bcast ranks<=2 nodes<=3 linear\n"
                                  "barrier direct\n");
    assert_int_equal(rmpi_tuning_parse(path, &t, err, sizeof(err)), RMP_SUCCESS);
    assert_string_equal(t.path, path);
    assert_int_equal(t.rndv[RMPI_TL_ID_shm], 16384);
    assert_int_equal(t.rndv[RMPI_TL_ID_tcp], 65536);
    assert_int_equal(t.rndv[RMPI_TL_ID_verbs], 0);
    assert_int_equal(t.nsets, 1);
    assert_int_equal(t.sets[0].tl, RMPI_TL_ID_shm);
    assert_string_equal(t.sets[0].param->name, "RMP_SHM_BUF_BYTES");
    assert_string_equal(t.sets[0].value, "256k");
    size_t nrows;
    const coll_row_t *r = coll_tune_file_rows(&nrows);
    assert_int_equal(nrows, 4);
    assert_int_equal(r[0].kind, COLL_ALLREDUCE);
    assert_int_equal(r[0].max_ranks, 4);
    assert_int_equal(r[0].min_nodes, 1);
    assert_int_equal(r[0].max_nodes, 1);
    assert_int_equal(r[0].max_ppn, INT_MAX);
    assert_int_equal(r[0].max_bytes, 256 << 10);
    assert_int_equal(r[0].algo, algo(COLL_ALLREDUCE, "ring"));
    assert_int_equal(r[1].max_ranks, INT_MAX);
    assert_int_equal(r[1].min_nodes, 2);
    assert_int_equal(r[1].max_nodes, INT_MAX);
    assert_int_equal(r[1].max_ppn, 8);
    assert_int_equal(r[1].max_bytes, 1 << 20);
    assert_int_equal(r[1].algo, algo(COLL_ALLREDUCE, "rabenseifner"));
    assert_int_equal(r[2].kind, COLL_BCAST);
    assert_int_equal(r[2].min_nodes, 1);
    assert_int_equal(r[2].max_nodes, 3);
    assert_int_equal(r[3].kind, COLL_BARRIER);
    assert_int_equal(r[3].max_bytes, SIZE_MAX);
    assert_int_equal(r[3].algo, algo(COLL_BARRIER, "direct"));
}

/* Each bad file must fail with "path:line: " and a phrase saying what is wrong. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int line;
        const char *phrase;
    } bad[] = {
        {"version 1\nallreduce ring\nfrobnicate 3\n", 3, "unknown keyword 'frobnicate'"},
        {"allreduce bytes<=4k bogus\n", 1,
         "unknown allreduce algorithm 'bogus' (valid: recursive_doubling, rabenseifner, ring, "
         "direct, shm, hier)"},
        {"\n\nbcast ranks<=4 fastest\n", 3, "valid: binomial, scatter_allgather, linear"},
        {"allreduce bytes<=4q ring\n", 1, "'4q' is not a size"},
        {"allreduce ranks<=0 ring\n", 1, "at least 1"},
        {"allreduce ranks<=two ring\n", 1, "'two' is not a whole number"},
        {"allreduce big ring\n", 1, "'big' is not a condition"},
        {"allreduce colour<=3 ring\n", 1, "unknown condition 'colour'"},
        {"allreduce ranks>=3 ring\n", 1, "only nodes takes = and >="},
        {"allreduce ranks<=2 ranks<=4 ring\n", 1, "ranks is limited twice"},
        {"allreduce nodes=1 nodes<=2 ring\n", 1, "nodes is limited twice"},
        {"allreduce nodes>=3 nodes<=2 ring\n", 1, "never both hold"},
        {"allreduce\n", 1, "without an algorithm"},
        {"allreduce ring bytes<=4k\n", 1, "ends with the condition 'bytes<=4k'"},
        {"tcp buf_bytes 1m\n", 1, "unknown tcp setting 'buf_bytes'"},
        {"shm rndv_threshold\n", 1, "expected 'shm KEY SIZE'"},
        {"verbs rndv_threshold 0\n", 1, "not a size above 0"},
        {"version 2\n", 1, "unsupported version"},
        {"alltoall ranks<=8 linear\nalltoall pairwise\nbcast linear\nalltoall bruck\n", 4,
         "never applies: the row on line 2"},
    };
    static rmpi_tuning_t t;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char err[512] = "", want[300];
        const char *path = write_file("bad.tune", bad[i].text);
        assert_int_equal(rmpi_tuning_parse(path, &t, err, sizeof(err)), RMP_ERR_ARG);
        snprintf(want, sizeof(want), "%s:%d: ", path, bad[i].line);
        if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, bad[i].phrase))
            fail_msg("case %zu: got \"%s\", want \"%s\" ... \"%s\"", i, err, want,
                     bad[i].phrase);
        assert_int_equal(t.path[0], '\0'); /* nothing half-loaded counts as loaded */
    }
}

static void test_io_errors(void **state)
{
    (void)state;
    static rmpi_tuning_t t;
    char err[512] = "", path[300], line[700];
    snprintf(path, sizeof(path), "%s/missing.tune", tmpdir);
    assert_int_equal(rmpi_tuning_parse(path, &t, err, sizeof(err)), RMP_ERR_ARG);
    assert_non_null(strstr(err, "missing.tune: cannot open: No such file"));
    memset(line, 'x', sizeof(line) - 2);
    line[sizeof(line) - 2] = '\n';
    line[sizeof(line) - 1] = '\0';
    const char *p = write_file("long.tune", line);
    assert_int_equal(rmpi_tuning_parse(p, &t, err, sizeof(err)), RMP_ERR_ARG);
    assert_non_null(strstr(err, "long.tune:1: line longer than"));
}

/* A file's rows go in front of the built-in ones, which still decide what they miss.
 * What the built-in rows choose is the sweep's business: compare with them, not with
 * fixed names, so that this test holds for any regenerated default.tune. */
static void test_install_and_pick(void **state)
{
    size_t nf;
    const coll_row_t *fr;
    (void)state;
    static rmpi_tuning_t t;
    char err[512] = "";
    coll_layout_t one4 = {4, 1, 4}, two4 = {4, 2, 2}, one64 = {64, 1, 64}, two8 = {8, 2, 4};
    static const size_t sizes[] = {8, 1024, 1025, 64 << 10, 1 << 20, 4 << 20};
    enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
    int two4_ar[NS], one64_ar[NS], two8_a2a[NS];
    assert_int_equal(coll_tune_install(NULL, 0, err, sizeof(err)), RMP_SUCCESS);
    for (int i = 0; i < NS; i++) {
        two4_ar[i] = coll_tune_pick(COLL_ALLREDUCE, sizes[i], &two4);
        one64_ar[i] = coll_tune_pick(COLL_ALLREDUCE, sizes[i], &one64);
        two8_a2a[i] = coll_tune_pick(COLL_ALLTOALL, sizes[i], &two8);
    }
    const char *path = write_file("pick.tune", "allreduce ranks<=4 nodes=1 bytes<=1k direct\n"
                                               "allreduce ranks<=4 nodes=1 ring\n"
                                               "alltoall nodes>=2 ppn<=2 bruck\n");
    assert_int_equal(rmpi_tuning_parse(path, &t, err, sizeof(err)), RMP_SUCCESS);
    fr = coll_tune_file_rows(&nf);
    assert_int_equal(coll_tune_install(fr, nf, err, sizeof(err)), RMP_SUCCESS);
    assert_int_equal(coll_tune_pick(COLL_ALLREDUCE, 8, &one4), algo(COLL_ALLREDUCE, "direct"));
    assert_int_equal(coll_tune_pick(COLL_ALLREDUCE, 1024, &one4), algo(COLL_ALLREDUCE, "direct"));
    assert_int_equal(coll_tune_pick(COLL_ALLREDUCE, 1025, &one4), algo(COLL_ALLREDUCE, "ring"));
    assert_int_equal(coll_tune_pick(COLL_ALLREDUCE, 4 << 20, &one4), algo(COLL_ALLREDUCE, "ring"));
    assert_int_equal(coll_tune_pick(COLL_ALLTOALL, 1 << 20, &two4), algo(COLL_ALLTOALL, "bruck"));
    for (int i = 0; i < NS; i++) {
        /* two nodes: the file's nodes=1 rows do not apply; 64 ranks: no file row does;
         * ppn 4 > 2: the file's alltoall row does not apply */
        assert_int_equal(coll_tune_pick(COLL_ALLREDUCE, sizes[i], &two4), two4_ar[i]);
        assert_int_equal(coll_tune_pick(COLL_ALLREDUCE, sizes[i], &one64), one64_ar[i]);
        assert_int_equal(coll_tune_pick(COLL_ALLTOALL, sizes[i], &two8), two8_a2a[i]);
    }
    /* A file row without conditions replaces the built-in rows of its collective. */
    path = write_file("all.tune", "bcast scatter_allgather\n");
    assert_int_equal(rmpi_tuning_parse(path, &t, err, sizeof(err)), RMP_SUCCESS);
    fr = coll_tune_file_rows(&nf);
    assert_int_equal(coll_tune_install(fr, nf, err, sizeof(err)), RMP_SUCCESS);
    for (int i = 0; i < NS; i++)
        assert_int_equal(coll_tune_pick(COLL_BCAST, sizes[i], &one4),
                         algo(COLL_BCAST, "scatter_allgather"));
    /* back to the built-in table alone */
    assert_int_equal(coll_tune_install(NULL, 0, err, sizeof(err)), RMP_SUCCESS);
    for (int i = 0; i < NS; i++)
        assert_int_equal(coll_tune_pick(COLL_ALLREDUCE, sizes[i], &two4), two4_ar[i]);
}

/* RMP_RNDV_THRESHOLD > tuning file > the transport's built-in default. */
static void test_threshold_precedence(void **state)
{
    (void)state;
    char err[512] = "";
    rmpi_from_t from;
    const char *path = write_file("thr.tune", "shm rndv_threshold 8k\n");
    assert_int_equal(rmpi_tuning_parse(path, &rmpi_eng.tuning, err, sizeof(err)), RMP_SUCCESS);
    assert_int_equal(rmpi_tuning_rndv(&rmpi_eng, "shm", 65536, &from), 8192);
    assert_int_equal(from, RMPI_FROM_FILE);
    assert_int_equal(rmpi_tuning_rndv(&rmpi_eng, "tcp", 32768, &from), 32768);
    assert_int_equal(from, RMPI_FROM_DEFAULT);
    rmpi_eng.cfg.rndv_threshold = 4096;
    assert_int_equal(rmpi_tuning_rndv(&rmpi_eng, "shm", 65536, &from), 4096);
    assert_int_equal(from, RMPI_FROM_ENV);
    rmpi_eng.cfg.rndv_threshold = 0;
    memset(&rmpi_eng.tuning, 0, sizeof(rmpi_eng.tuning));
}

/* The generated built-in table is what the C parser reads from the committed file, row for
 * row, and the transports' defaults are its thresholds: the defaults come from the file. */
static void test_builtin_is_default_tune(void **state)
{
    (void)state;
    static rmpi_tuning_t t;
    char err[512] = "";
    assert_int_equal(rmpi_tuning_parse(TUNE_DEFAULT_PATH, &t, err, sizeof(err)), RMP_SUCCESS);
    assert_int_equal(coll_tune_install(NULL, 0, err, sizeof(err)), RMP_SUCCESS);
    size_t n, nf;
    const coll_row_t *b = coll_tune_rows(&n);
    const coll_row_t *f = coll_tune_file_rows(&nf);
    assert_int_equal(n, nf);
    for (size_t i = 0; i < n; i++) {
        /* the table is grouped by kind; the file is too */
        assert_memory_equal(&b[i].kind, &f[i].kind, sizeof(b[i].kind));
        assert_int_equal(b[i].max_ranks, f[i].max_ranks);
        assert_int_equal(b[i].min_nodes, f[i].min_nodes);
        assert_int_equal(b[i].max_nodes, f[i].max_nodes);
        assert_int_equal(b[i].max_ppn, f[i].max_ppn);
        assert_int_equal(b[i].max_bytes, f[i].max_bytes);
        assert_int_equal(b[i].algo, f[i].algo);
    }
    assert_int_equal(rmpi_tl_shm.default_rndv, t.rndv[RMPI_TL_ID_shm]);
    assert_non_null(strstr(TUNE_DEFAULT_PATH, rmpi_tuning_default_file));
    /* every collective ends with a row that matches everything */
    for (int k = 0; k < COLL_NKINDS; k++) {
        const coll_row_t *last = NULL;
        for (size_t i = 0; i < n; i++)
            if (b[i].kind == (coll_kind_t)k)
                last = &b[i];
        assert_non_null(last);
        assert_int_equal(last->max_ranks, INT_MAX);
        assert_int_equal(last->max_bytes, SIZE_MAX);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_io_errors),
        cmocka_unit_test(test_install_and_pick),
        cmocka_unit_test(test_threshold_precedence),
        cmocka_unit_test(test_builtin_is_default_tune),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
