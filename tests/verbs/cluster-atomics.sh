#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/verbs/cluster-atomics.sh BUILD_DIR [ROUNDS]
# Runs on rmpn1 of the two-guest Soft-RoCE cluster:
#   tests/verbs-vm/cluster build -- $PWD/tests/verbs/cluster-atomics.sh build \
#     > benchmarks/results/cluster-atomics-DATE.txt
# Where an emulated fetch-add's time goes across the guests, under each RMP_POLL_YIELD
# (auto, always, sleep): rmp_latency 8 B and rmp_get_latency 8 B (1+1 ranks: a message
# one way, an RDMA read round trip), rmp_atomic_latency -t fadd (1+1: rank 0 on rmpn1
# fetch-adds on rank 1's word on rmpn2) and -t fadd-all (2+2: every rank on rank 0's
# word at once, tests/rma's pattern; the slowest rank's time per call). ROUNDS (3)
# interleaved rounds, each running every measure under every mode; the first round is
# cold (the guests just booted). Prints medians [min-max] in microseconds. No checks.
set -u
B=$(cd "${1:?usage: cluster-atomics.sh BUILD_DIR [ROUNDS]}" && pwd)
ROUNDS=${2:-3}
L=${RMP_CLUSTER_LAUNCH:?run it through tests/verbs-vm/cluster}
unset RMP_TRANSPORTS
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MODES="auto always sleep"
measure() { # NAME NRANKS PROGRAM ARGS...: the 8-byte row's microseconds
  local name=$1 n=$2; shift 2
  local out
  out=$(timeout -k 5 300 $L -n "$n" "$@" 2>&1) || { echo "$name: failed: $(tail -n 3 <<<"$out")" >&2; echo NaN; return; }
  awk '!/^#/ && $1 == 8 {v = $2} END {print v == "" ? "NaN" : v}' <<<"$out"
}
echo "# $(date -u "+%Y-%m-%d %H:%M") UTC: the two-guest Soft-RoCE cluster (QEMU TCG guests of 2 vCPUs, rxe0 over emulated e1000 NICs)"
echo "# tests/verbs/cluster-atomics.sh BUILD $ROUNDS (rounds interleaved; round 1 is cold)"
for ((r = 1; r <= ROUNDS; r++)); do
  for m in $MODES; do
    export RMP_POLL_YIELD=$m
    echo "$m latency $(measure latency 2 "$B/benchmarks/rmp_latency" -m 8:8 -i 300 -x 20)" >>"$TMP/raw"
    echo "$m get $(measure get 2 "$B/benchmarks/rmp_get_latency" -m 8:8 -i 300 -x 20)" >>"$TMP/raw"
    echo "$m fadd $(measure fadd 2 "$B/benchmarks/rmp_atomic_latency" -t fadd -i 300 -x 20)" >>"$TMP/raw"
    echo "$m fadd-all $(measure fadd-all 4 "$B/benchmarks/rmp_atomic_latency" -t fadd-all -i 300 -x 20)" >>"$TMP/raw"
  done
done
unset RMP_POLL_YIELD
echo "# raw (mode measure us), in the order measured:"
sed 's/^/#   /' "$TMP/raw"
printf '%-44s %-22s %-22s %-22s\n' "us, median [min-max] of $ROUNDS" $MODES
for k in "latency:rmp_latency 8 B (one way), 1+1" "get:rmp_get_latency 8 B (RDMA read), 1+1" \
         "fadd:fetch-add, rank 0 -> rank 1, 1+1" "fadd-all:fetch-add, all -> rank 0, 2+2"; do
  key=${k%%:*}
  line=$(printf '%-44s' "${k#*:}")
  for m in $MODES; do
    cell=$(awk -v m="$m" -v k="$key" '$1 == m && $2 == k {print $3}' "$TMP/raw" | sort -g |
           awk '{v[NR] = $1} END {if (NR == 0) {print "-"; exit}
                 med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                 printf "%.0f [%.0f-%.0f]", med, v[1], v[NR]}')
    line+=$(printf ' %-22s' "$cell")
  done
  echo "$line"
done
