#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-smoke: runs every rmp benchmark under BUILD_DIR/launcher/rrun with tiny iteration
# counts (2 ranks; collectives also 3 ranks oversubscribed) and checks that each exits 0
# and prints at least one "size value" row. Exit status: 0 all passed, 1 some failed,
# 77 (meson skip) when rrun or the benchmarks are not built.
# Usage: benchmarks/smoke.sh BUILD_DIR
set -u
build=${1:?usage: smoke.sh BUILD_DIR}
rrun="$build/launcher/rrun"
bdir="$build/benchmarks"
opts="-i 10 -x 2 -m 1:65536"
if [ ! -x "$rrun" ] || [ ! -x "$bdir/rmp_latency" ]; then
    echo "smoke: $rrun or $bdir/rmp_latency not built: skipped"
    exit 77
fi

fail=0 total=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

# run NP EXTRA_RRUN_OPTS PROGRAM [ARGS...]
run() {
    np=$1 extra=$2 prog=$3
    shift 3
    total=$((total + 1))
    # shellcheck disable=SC2086
    "$rrun" --timeout 120 $extra -n "$np" "$bdir/$prog" "$@" >"$out" 2>&1
    rc=$?
    # a size and one value (point-to-point) or avg, min, max and iterations (collectives)
    rows=$(grep -cE '^[0-9]+([[:space:]]+[0-9.]+)+[[:space:]]*$' "$out")
    if [ "$rc" -eq 0 ] && [ "$rows" -gt 0 ]; then
        echo "ok   -n $np $prog $* ($rows rows)"
    else
        echo "FAIL -n $np $prog $* (exit $rc, $rows rows)"
        sed 's/^/     | /' "$out" | tail -n 20
        fail=$((fail + 1))
    fi
}

for p in rmp_latency rmp_bw rmp_bibw rmp_put_latency rmp_get_latency rmp_put_bw rmp_get_bw; do
    run 2 "" "$p" $opts
done
run 2 "" rmp_atomic_latency -i 10 -x 2
run 2 "" rmp_atomic_latency -i 10 -x 2 -t cswap
for p in rmp_allreduce rmp_bcast rmp_barrier rmp_allgather rmp_reduce_scatter rmp_alltoall; do
    run 2 "" "$p" $opts
    run 3 --oversubscribe "$p" $opts
done
run 3 --oversubscribe rmp_allreduce $opts -T bfloat16
run 2 "" rmp_allreduce $opts -T int8 -o max
run 2 "" rmp_mt_rate -t 1,2 -r 1 -i 20

echo "bench-smoke: $((total - fail))/$total passed"
[ "$fail" -eq 0 ]
