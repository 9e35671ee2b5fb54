/* SPDX-License-Identifier: BSD-3-Clause */
/* The one rule for a test that cannot run here: print why, and exit with meson's skip
 * code 77 -- except under CI=true, where a skip is a failure (exit 1): CI must run every
 * test, so a missing tool, privilege or device is a broken CI machine, not a pass.
 * The shell counterpart is tests/common/skip.sh. */
#ifndef RMP_TEST_SKIP_H
#define RMP_TEST_SKIP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exit status for a skip, after printing the reason (printf-style). */
#define T_SKIP_CODE(...)                                                                \
    (printf("SKIP: " __VA_ARGS__), printf("\n"), t_skip_ci_code())

static inline int t_skip_ci_code(void)
{
    const char *ci = getenv("CI");
    if (ci && strcmp(ci, "true") == 0) {
        printf("CI=true: a skipped test is a failure\n");
        fflush(stdout);
        return 1;
    }
    fflush(stdout);
    return 77;
}

#endif
