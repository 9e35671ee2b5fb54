#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/verbs/bench.sh BUILD_DIR
# Runs inside the Soft-RoCE guest (tests/verbs-vm/run BUILD_DIR -- tests/verbs/bench.sh
# BUILD_DIR): rmp_latency and rmp_bw with RMP_TRANSPORTS=verbs beside perftest's
# ib_send_lat, ib_write_lat and ib_write_bw on the same device in the same boot, printed
# as one table with ratios, plus the registration-cache counters of the rmp_bw run.
# Env: BENCH_LAT_ITERS (default 2000), BENCH_BW_ITERS (default 4, each = a window of 64),
# BENCH_ROUNDS (latency rounds, default 3; the best of each is compared).
set -u
B=$(cd "${1:?usage: bench.sh BUILD_DIR}" && pwd)
REPO=$(cd "$(dirname "$0")/../.." && pwd)
RRUN=$B/launcher/rrun
LI=${BENCH_LAT_ITERS:-2000}
BI=${BENCH_BW_ITERS:-4}
export RMP_TRANSPORTS=verbs
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Three interleaved rounds (the 2-core host is noisy under TCG): best of each.
ROUNDS=${BENCH_ROUNDS:-3}
for ((r = 1; r <= ROUNDS; r++)); do
  RMP_PERFTEST_ITERS=$LI RMP_PERFTEST_TESTS="ib_send_lat:8 ib_write_lat:8" \
    "$REPO/tests/verbs-vm/perftest-baseline" >>"$TMP/perf" || { cat "$TMP/perf"; exit 1; }
  "$RRUN" -n 2 --timeout 300 "$B/benchmarks/rmp_latency" -m 8:8 -i "$LI" -x 200 >>"$TMP/lat" 2>&1 ||
    { cat "$TMP/lat"; exit 1; }
done
RMP_PERFTEST_BW_ITERS=200 RMP_PERFTEST_TESTS="ib_write_bw:1048576" \
  "$REPO/tests/verbs-vm/perftest-baseline" >>"$TMP/perf" || { cat "$TMP/perf"; exit 1; }
RMP_LOG=debug "$RRUN" -n 2 --timeout 600 "$B/benchmarks/rmp_bw" -m 1M:1M -i "$BI" -x 1 \
  >"$TMP/bw" 2>&1 || { cat "$TMP/bw"; exit 1; }
min() { sort -g | head -n1; }
pf() { awk -v t="$1" '$1 == "perftest" && $2 == t {print $4}' "$TMP/perf" | min; }
lat=$(awk '!/^#/ && $1 == 8 {print $2}' "$TMP/lat" | min)
bw=$(awk '!/^#/ && $1 == 1048576 {print $2}' "$TMP/bw")
echo "rounds: rmp_latency $(awk '!/^#/ && $1 == 8 {printf "%s ", $2}' "$TMP/lat")us;" \
     "ib_send_lat $(awk '$2 == "ib_send_lat" {printf "%s ", $4}' "$TMP/perf")us (typical)"

printf '%-34s %12s %12s %8s  %s\n' "measure (Soft-RoCE, same boot)" rmp perftest ratio target
row() { # name rmp perf unit target better(lower|higher)
  awk -v n="$1" -v r="$2" -v p="$3" -v u="$4" -v t="$5" 'BEGIN {
    ratio = (p > 0) ? r / p : 0
    printf "%-34s %12s %12s %8.2f  %s\n", n, r " " u, p " " u, ratio, t }'
}
row "latency 8 B vs ib_send_lat" "$lat" "$(pf ib_send_lat)" us "<= 1.30"
row "latency 8 B vs ib_write_lat" "$lat" "$(pf ib_write_lat)" us "-"
row "bandwidth 1 MiB vs ib_write_bw" "$bw" "$(pf ib_write_bw)" MB/s ">= 0.90"
echo "registration cache during rmp_bw (RMP_LOG=debug at finalize):"
grep 'verbs rcache' "$TMP/bw" | sed 's/^/  /'
