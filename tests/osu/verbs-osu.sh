#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/osu/verbs-osu.sh BUILD_DIR OSU_DIR
# Inside the Soft-RoCE guest (tests/verbs-vm/run BUILD_DIR -- tests/osu/verbs-osu.sh ...):
# a subset of the real OSU 7.4 benchmarks, built with mpicc_abi, with RMP_TRANSPORTS=verbs
# (every pair of ranks on verbs): point-to-point, one-sided and collectives, OSU's -c data
# validation where it has it. Prints PASS/FAIL per run and "N passed, M failed".
set -u
B=$(cd "${1:?usage: verbs-osu.sh BUILD_DIR OSU_DIR}" && pwd)
OSU=${2:?usage: verbs-osu.sh BUILD_DIR OSU_DIR}
export RMP_TRANSPORTS=verbs
ONE=$(dirname "$0")/run_one.sh
small=(-i 10 -x 2 -m 1:65536)
pass=0 fail=0
run() { # BENCH NP ARGS...
  local t0=$SECONDS out
  if out=$("$ONE" "$B/launcher/rrun" "$OSU" "$@" 2>&1); then
    pass=$((pass + 1)); echo "PASS $1 np$2 ($((SECONDS - t0)) s)"
  else
    fail=$((fail + 1)); echo "FAIL $1 np$2 ($((SECONDS - t0)) s)"; tail -n 20 <<<"$out" | sed 's/^/    /'
  fi
}
run pt2pt/standard/osu_latency 2 -c "${small[@]}"
# bw and bibw: fewer iterations of the same 64-message window (TCG: 12 iterations took 46-51 s)
run pt2pt/standard/osu_bw 2 -c "${small[@]}" -i 4 -x 1
run pt2pt/standard/osu_bibw 2 -c "${small[@]}" -i 4 -x 1
run pt2pt/standard/osu_multi_lat 4 -c "${small[@]}"
run one-sided/osu_put_latency 2 "${small[@]}"
run one-sided/osu_get_bw 2 "${small[@]}"
run one-sided/osu_acc_latency 2 -c "${small[@]}"
run one-sided/osu_fop_latency 2 "${small[@]}"
run one-sided/osu_fop_latency 2 -c -i 1 -x 0 -m 1:65536 # one op: OSU's check races (meson.build)
run one-sided/osu_put_latency 2 -w dynamic "${small[@]}"
run collective/blocking/osu_allreduce 4 -c "${small[@]}"
run collective/blocking/osu_bcast 3 -c "${small[@]}"
run collective/blocking/osu_alltoallv 4 -c "${small[@]}"
run collective/non_blocking/osu_iallgather 4 -c "${small[@]}"
echo "${pass} passed, ${fail} failed"
[[ $fail -eq 0 && $pass -gt 0 ]]
