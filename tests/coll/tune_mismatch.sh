#!/bin/bash
# tests/coll/tune_mismatch.sh RRUN TUNE_TEST FILE: ranks that read different tuning files
# must not start (collectives would hang): rmp_init fails on every rank whose table differs
# from rank 0's, naming the reason; tune_test exits 3 there, so rrun must end with 3.
set -u
out=$("$1" -n 2 --timeout 60 "$2" --mismatch "$3" 2>&1)
rc=$?
echo "$out"
if [[ $rc -ne 3 ]]; then
  echo "FAIL: rrun exit status $rc, want 3"; exit 1
fi
if ! grep -q "differs from rank 0's" <<<"$out"; then
  echo "FAIL: no 'differs from rank 0's' message"; exit 1
fi
echo "1 passed, 0 failed"
