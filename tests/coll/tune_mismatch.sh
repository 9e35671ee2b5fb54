#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/coll/tune_mismatch.sh RRUN TUNE_TEST FILE: ranks that read different tuning files
# must not start (collectives would hang): rmp_init fails on every rank whose table differs
# from rank 0's, naming the reason (tune_test exits 3 there). The job must fail: with 3, or
# with 1 when rank 0's own rmp_init notices first that rank 1 is gone (it connects to rank
# 1's shared memory right after the check, and rank 1 may already have exited).
set -u
out=$("$1" -n 2 --timeout 60 "$2" --mismatch "$3" 2>&1)
rc=$?
echo "$out"
if [[ $rc -ne 3 && $rc -ne 1 ]]; then
  echo "FAIL: rrun exit status $rc, want 3 (or 1)"; exit 1
fi
if ! grep -q "differs from rank 0's" <<<"$out"; then
  echo "FAIL: no 'differs from rank 0's' message"; exit 1
fi
echo "1 passed, 0 failed"
