#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/verbs/run-suite.sh BUILD_DIR
# Runs inside the Soft-RoCE guest (tests/verbs-vm/run BUILD_DIR -- tests/verbs/run-suite.sh
# BUILD_DIR): the point-to-point conformance suite, the soak test, the one-sided suite
# and the verbs-specific tests, all with RMP_TRANSPORTS=verbs. Prints one line per
# program and "N passed, M failed"; exits non-zero when anything failed.
set -u
B=$(cd "${1:?usage: run-suite.sh BUILD_DIR}" && pwd)
RRUN=$B/launcher/rrun
export RMP_TRANSPORTS=verbs
pass=0 fail=0 skip=0
. "$(dirname "$0")/../common/skip.sh"
if ! ls /sys/class/infiniband/ 2>/dev/null | grep -q .; then
  t_skip "run-suite: no RDMA device here (run it through tests/verbs-vm/run)"
fi
LOG=$(mktemp -d /tmp/verbs-suite.XXXXXX)

# run NAME TIMEOUT NRANKS PROGRAM [ARGS...]
run() {
  local name=$1 to=$2 n=$3; shift 3
  local prog=$1
  if [[ ! -x "$prog" ]]; then
    # tests/verbs is built with the verbs transport: a missing program is a broken build
    echo "FAIL $name: $prog not built"; fail=$((fail + 1)); return
  fi
  local t0=$SECONDS rc
  "$RRUN" --oversubscribe -n "$n" --timeout "$to" "$@" >"$LOG/$name.out" 2>&1
  rc=$?
  local summary
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG/$name.out" | tail -n1)
  if [[ $rc -eq 0 ]]; then
    pass=$((pass + 1)); echo "PASS $name ($((SECONDS - t0)) s) ${summary}"
  elif [[ $rc -eq 77 ]]; then
    skip=$((skip + 1)); echo "SKIP $name: $(grep -m1 SKIP "$LOG/$name.out")"
    [[ "${CI:-}" == true ]] && { fail=$((fail + 1)); echo "FAIL $name: CI=true: a skip is a failure"; }
  else
    fail=$((fail + 1)); echo "FAIL $name (exit $rc, $((SECONDS - t0)) s) ${summary}"
    grep -v -e 'invalid argument' -e 'called twice' "$LOG/$name.out" | tail -n 25 | sed 's/^/    /'
  fi
  grep -E '^(burst|rndv|coherence|rdma-window)[ :]' "$LOG/$name.out" | sed 's/^/    /'
}

# rmp_info (no job): rxe0's port state, link layer and GID table, and verbs usable.
info_check() {
  local out t0=$SECONDS
  out=$("$B/tools/rmp_info" 2>&1)
  if grep -q 'rxe0:1 state ACTIVE, link layer Ethernet (RoCE)' <<<"$out" &&
     grep -qE 'GID [0-9]+ +RoCEv2 +::ffff:10\.9\.0\.1' <<<"$out" &&
     grep -q 'verbs  built, usable here' <<<"$out"; then
    pass=$((pass + 1)); echo "PASS rmp-info ($((SECONDS - t0)) s)"
  else
    fail=$((fail + 1)); echo "FAIL rmp-info: rxe0 ACTIVE / RoCEv2 GID of 10.9.0.1 / verbs usable missing"
    grep -A12 '^  verbs' <<<"$out" | sed 's/^/    /'
  fi
  grep -E 'rxe0|GID' <<<"$out" | sed 's/^/    /'
}

T=$B/tests
info_check
run p2p-np2        300 2 "$T/p2p/p2p_test"
run p2p-np4        500 4 "$T/p2p/p2p_test"
run soak-np4       300 4 "$T/p2p/soak" 20000
# non-contiguous data (rmp_layout_t): fragments, and rendezvous by put over verbs
run layout-np2     300 2 "$T/p2p/layout_test"
run rma-np2        300 2 "$T/rma/rma_test"
run rma-np4        500 4 "$T/rma/rma_test"
run coll-np4       900 4 "$T/coll/coll_test"
# The same with the point-to-point algorithms forced: on one node the table picks the
# shared segment for allreduce, bcast, barrier and allgather, which bypasses verbs.
RMP_ALLREDUCE_ALGO=ring RMP_BCAST_ALGO=binomial RMP_BARRIER_ALGO=dissemination \
  RMP_ALLGATHER_ALGO=ring run coll-np4-flat 900 4 "$T/coll/coll_test" --quick
run lazy-np2       120 2 "$T/verbs/verbs_lazy"
run lazy-np4       120 4 "$T/verbs/verbs_lazy"
run lazy-np4-again 120 4 "$T/verbs/verbs_lazy"
run burst-np2      300 2 "$T/verbs/verbs_burst"
RMP_LOG=debug run rndv64m-np2 300 2 "$T/verbs/verbs_rndv"
run coherence-np2  120 2 "$T/verbs/verbs_coherence"
# put/get up to 8 MiB in pieces under a per-QP window (issue 27, transports/verbs/verbs_rdma.c)
run rdma-window-np2 180 2 "$T/verbs/verbs_rdma_window"
# Idle-connection probes (transports/verbs/verbs_live.c): a rank out of rmp for 3 x
# RMP_FAILURE_TIMEOUT is probed every T/3 by its blocked peer, its HCA answers, and it is
# not declared failed (tests/multinode/busy_peer.c).
RMP_FAILURE_TIMEOUT=2 run busy-peer-np2 120 2 "$T/multinode/busy_peer"
run badmem-np2     120 2 "$T/verbs/verbs_badmem"
# the registration cache's libc patch is in (verbs selected), and passed its self-test
run hooks-patched  60 2 "$T/rcache/hooks_selected" patched
# ibv_post_srq_recv failing half-way, 40 times per process: no receive buffer lost
RMPI_FAULT_SRQ_POST=40 run srq-fault-np2 120 2 "$T/verbs/verbs_srq_fault"
# RMP_THREAD_MULTIPLE over verbs (tests/threads/mt_test.c): threads on their own tags,
# ANY_SOURCE receivers competing, one-sided from several threads, a rank killed while
# every thread of the others is blocked on it.
run mt-pingpong-np2 300 2 "$T/threads/mt_test" pingpong 4
run mt-anysrc-np3   300 3 "$T/threads/mt_test" anysrc 4
run mt-rma-np2      300 2 "$T/threads/mt_test" rma 4
t0=$SECONDS
if "$(dirname "$0")/../threads/mt_kill.sh" "$RRUN" "$T/threads/mt_test" 3 4 >"$LOG/mt-kill.out" 2>&1; then
  pass=$((pass + 1)); echo "PASS mt-kill-np3 ($((SECONDS - t0)) s) $(tail -n1 "$LOG/mt-kill.out")"
else
  fail=$((fail + 1)); echo "FAIL mt-kill-np3 ($((SECONDS - t0)) s)"; tail -n 25 "$LOG/mt-kill.out" | sed 's/^/    /'
fi
# Failure handling on verbs (tests/faults): a rank killed mid-stream of eager
# sends, mid-rendezvous (both sides), inside allreduce, during a flush.
t0=$SECONDS
FAULTS_SUITE=verbs "$(dirname "$0")/../faults/faults_test.sh" "$B" >"$LOG/faults.out" 2>&1
rc=$?
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG/faults.out" | tail -n1)
if [[ $rc -eq 0 ]]; then
  pass=$((pass + 1)); echo "PASS faults-verbs ($((SECONDS - t0)) s) ${summary}"
else
  fail=$((fail + 1)); echo "FAIL faults-verbs (exit $rc, $((SECONDS - t0)) s) ${summary}"
  grep -A12 '^FAIL' "$LOG/faults.out" | head -n 60 | sed 's/^/    /'
fi
# the rcache counters at finalize (RMP_LOG=debug) of the 64 MiB test
grep -h 'verbs rcache' "$LOG/rndv64m-np2.out" 2>/dev/null | sed 's/^/    /'

rm -rf "$LOG"
echo "${pass} passed, ${fail} failed (${skip} skipped)"
[[ $fail -eq 0 && $pass -gt 0 ]]
