#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/verbs/cluster-bench.sh BUILD_DIR
# Benchmark (figures, no checks) on rmpn1 of the two-guest cluster:
#   tests/verbs-vm/cluster BUILD_DIR -- tests/verbs/cluster-bench.sh BUILD_DIR
# rmp_latency 8 B and rmp_bw 1 MiB between rmpn1 and rmpn2 (1+1 ranks, verbs) beside
# perftest's ib_send_lat / ib_write_lat (8 B) and ib_write_bw (1 MiB) between the same two
# guests in the same boot (server on rmpn2 through rmp_rsh, client here), interleaved;
# then allreduce at 4 ranks (2+2), hierarchical against flat (ring), interleaved.
# Env: CB_LAT_ITERS (200), CB_BW_ITERS (4 windows of 64), CB_ROUNDS (2), CB_AR_ITERS (50).
set -u
B=$(cd "${1:?usage: cluster-bench.sh BUILD_DIR}" && pwd)
L=${RMP_CLUSTER_LAUNCH:?run through tests/verbs-vm/cluster}
RSH=$(cat /etc/rmp-vm/rsh)
LI=${CB_LAT_ITERS:-200} BI=${CB_BW_ITERS:-4} ROUNDS=${CB_ROUNDS:-2} AI=${CB_AR_ITERS:-50}
unset RMP_TRANSPORTS
port=18600

# perf TEST SIZE ITERS: perftest server on rmpn2, client here; prints the typical latency
# (usec) or the average bandwidth (MB/s)
perf() {
  local t=$1 s=$2 n=$3 srv out
  port=$((port + 1))
  "$RSH" rmpn2 "$t -d rxe0 -x 1 -s $s -n $n -p $port" >/tmp/cb-srv.out 2>&1 &
  srv=$!
  for _ in $(seq 100); do
    out=$(timeout 300 "$t" -d rxe0 -x 1 -s "$s" -n "$n" -p "$port" rmpn2 2>&1) && break
    grep -q 'Couldn.t connect\|Unable to\|failed to connect' <<<"$out" || break
    sleep 0.3
  done
  wait "$srv"
  case $t in
    *_bw) awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 4 {v = $4} END {print v}' <<<"$out" ;;
    *)    awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 5 {v = $5} END {print v}' <<<"$out" ;;
  esac
}
rmpcol() { awk -v s="$1" '!/^#/ && $1 == s {print $2}'; }

for ((r = 1; r <= ROUNDS; r++)); do
  echo "round $r:" \
    "ib_send_lat $(perf ib_send_lat 8 "$LI") us," \
    "ib_write_lat $(perf ib_write_lat 8 "$LI") us," \
    "rmp_latency $($L -n 2 "$B/benchmarks/rmp_latency" -m 8:8 -i "$LI" -x 20 2>&1 | rmpcol 8) us," \
    "ib_write_bw $(perf ib_write_bw 1048576 20) MB/s," \
    "rmp_bw $($L -n 2 "$B/benchmarks/rmp_bw" -m 1M:1M -i "$BI" -x 1 2>&1 | rmpcol 1048576) MB/s"
done
for ((r = 1; r <= ROUNDS; r++)); do
  for a in hier ring; do
    echo "round $r: allreduce 2+2 $a:" \
      "$(RMP_ALLREDUCE_ALGO=$a $L -n 4 "$B/benchmarks/rmp_allreduce" -m 8:65536 -i "$AI" -x 5 2>&1 |
         awk '!/^#/ && $1 ~ /^[0-9]+$/ {printf "%s B %s us; ", $1, $2}')"
  done
done
