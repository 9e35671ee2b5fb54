#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/verbs/cluster-rma-repeat.sh BUILD_DIR [N [DEADLINE]]
# Runs on rmpn1 of the two-guest Soft-RoCE cluster, N (10) full rma_test runs in a row
# at 4 ranks (2+2) as the cluster suite's rma-np4 runs it (RMP_POLL_YIELD=sleep, 900 s
# each), and prints each run's verdict, time and when its two fetch-add phases ended:
#   RMP_VM_TIMEOUT=3600 tests/verbs-vm/cluster build -- $PWD/tests/verbs/cluster-rma-repeat.sh build
# (the harness's own limit, 1200 s by default, is shorter than 10 runs). DEADLINE (epoch
# seconds, optional): start no run after it. Exits non-zero when a run failed.
set -u
B=$(cd "${1:?usage: cluster-rma-repeat.sh BUILD_DIR [N [DEADLINE]]}" && pwd)
N=${2:-10} DL=${3:-0}
L=${RMP_CLUSTER_LAUNCH:?run it through tests/verbs-vm/cluster}
unset RMP_TRANSPORTS
export RMP_POLL_YIELD=sleep
OUT=$(mktemp -d /tmp/rma-repeat.XXXXXX)
pass=0 fail=0
for ((i = 1; i <= N; i++)); do
  if [ "$DL" != 0 ] && [ "$(date +%s)" -gt "$DL" ]; then echo "deadline reached before run $i"; break; fi
  t0=$SECONDS
  timeout -k 5 900 $L -n 4 "$B/tests/rma/rma_test" >"$OUT/$i.out" 2>&1
  rc=$?
  sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/$i.out" | tail -n1)
  ph=$(sed -nE 's/^rank 0: test_atomics\(.\) done at ([0-9.]+) s$/\1/p' "$OUT/$i.out" | tr '\n' ' ')
  if [ $rc = 0 ]; then
    pass=$((pass + 1))
    echo "run $i: PASS $((SECONDS - t0)) s ($sum; fetch-add phases done at ${ph}s)"
  else
    fail=$((fail + 1))
    echo "run $i: FAIL exit $rc $((SECONDS - t0)) s ($sum)"
    grep -v 'warn:' "$OUT/$i.out" | tail -n 20 | sed 's/^/    /'
  fi
done
echo "cluster-rma-repeat: $pass passed, $fail failed"
[ $fail = 0 ]
