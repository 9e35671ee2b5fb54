#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Surviving failures (docs/reliability.md "Surviving failures"): tests/faults/ulfm under
# rrun --enable-recovery on shm and tcp, and the default policy (the job ends) unchanged.
# Prints "N passed, M failed"; exit status 1 on any failure.
set -u
B=${1:?usage: ulfm_test.sh BUILD_DIR}
B=$(cd "$B" && pwd)
RRUN=$B/launcher/rrun
U=$B/tests/faults/ulfm
pass=0; fail=0
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
TMP=$(mktemp -d)
mkdir -m 700 "$TMP/run"
export TMPDIR=$TMP/run
trap 'rm -rf "$TMP"' EXIT

# run LABEL WANT_STATUS WANT_OKS [rrun args...]: the job's status and how many survivors
# said ok (-: any).
run() {
    local label=$1 want=$2 oks=$3; shift 3
    local out st n
    out=$(timeout 120 "$RRUN" --timeout 60 "$@" 2>&1); st=$?
    n=$(grep -c "^ulfm: rank [0-9]* ok" <<<"$out")
    if [ "$st" = "$want" ] && { [ "$oks" = - ] || [ "$n" = "$oks" ]; }; then ok; else
        ko "$label: status $st (want $want), $n survivors ok (want $oks):
$out"; return 1; fi
    LAST=$out
}

for tl in shm tcp; do
    export RMP_TRANSPORTS=$tl
    # One rank dies at step 5 of 12: the others finish with the right sum; the job's
    # status is the dead rank's (137: SIGKILL), named first by rrun.
    for v in 2 0; do
        if run "$tl iter np4 victim $v" 137 3 --enable-recovery -n 4 --oversubscribe \
               "$U" iter 12 5 $v; then
            if grep -q "rank $v (pid [0-9]* on .*) was killed by signal 9.*the others go on" \
                   <<<"$LAST"; then ok; else ko "$tl iter: no report of rank $v: $LAST"; fi
            r=$(grep -o "result=[0-9]*" <<<"$LAST" | sort -u | wc -l)
            if [ "$r" = 1 ]; then ok; else ko "$tl iter: different results: $LAST"; fi
        fi
    done
    # RMP_ON_FAILURE=continue given with -x works as the flag does.
    run "$tl iter -x" 137 2 -x RMP_ON_FAILURE=continue -n 3 --oversubscribe "$U" iter 8 3 1
    # Revoke while the others are blocked in a receive from a live rank.
    run "$tl revoke" 0 3 --enable-recovery -n 3 --oversubscribe "$U" revoke
    run "$tl revoke np4" 0 4 -n 4 --oversubscribe "$U" revoke
    # Agreement after a death: the survivors' AND, the same status on each.
    if run "$tl agree" 137 4 --enable-recovery -n 5 --oversubscribe "$U" agree 3; then
        r=$(grep -o "agree=0x[0-9a-f]*" <<<"$LAST" | sort -u | wc -l)
        if [ "$r" = 1 ]; then ok; else ko "$tl agree: different values: $LAST"; fi
    fi
    run "$tl agree victim 0" 137 3 --enable-recovery -n 4 --oversubscribe "$U" agree 0
    # Without recovery the job ends as before (rrun kills the survivors; one fast
    # enough may have finished first).
    if run "$tl default" 137 - -n 3 --oversubscribe "$U" iter 8 3 1; then
        if grep -q "rank 1 (pid [0-9]* on .*) was killed by signal 9.*ending the job" \
               <<<"$LAST"; then ok; else ko "$tl default: $LAST"; fi
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
