# SPDX-License-Identifier: BSD-3-Clause
# Sourced by test scripts: the one rule for a test that cannot run here (tests/common/skip.h
# is the C counterpart). t_skip REASON... prints "SKIP: REASON" and exits 77 (meson's skip),
# or 1 under CI=true, where a skip is a failure: CI must run every test.
t_skip() {
    echo "SKIP: $*"
    if [ "${CI:-}" = true ]; then
        echo "CI=true: a skipped test is a failure"
        exit 1
    fi
    exit 77
}
