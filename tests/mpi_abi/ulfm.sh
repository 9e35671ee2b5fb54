#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The ULFM program through mpi-ext.h's MPIX_ names (tests/mpi_abi/ulfm.c) on shm and
# tcp: a rank dies and the survivors finish (status: the dead rank's, 137), and a revoke
# reaches ranks blocked in MPI_Recv, a nonblocking collective started after a death
# completes with it, and a receive from MPI_ANY_SOURCE after a death fails (blocking) or
# stays pending (MPIX_ERR_PROC_FAILED_PENDING) until MPIX_Comm_failure_ack.
# usage: ulfm.sh RRUN PROGRAM
set -u
RRUN=$1 P=$2
fail=0
# run LABEL WANT_STATUS WANT_OKS ARGS...
run() {
    local label=$1 want=$2 oks=$3; shift 3
    local out st n
    out=$(timeout 120 "$RRUN" --timeout 60 --enable-recovery --oversubscribe "$@" 2>&1); st=$?
    n=$(grep -c "^ulfm: rank [0-9]* ok" <<<"$out")
    if [ "$st" != "$want" ] || [ "$n" != "$oks" ]; then
        echo "FAIL: $label: status $st (want $want), $n ok (want $oks):"; echo "$out"
        fail=1
    elif [ "$(grep -o 'result=[0-9]*' <<<"$out" | sort -u | wc -l)" -gt 1 ]; then
        echo "FAIL: $label: survivors disagree:"; echo "$out"; fail=1
    else
        echo "ok: $label"
    fi
}
for tl in shm tcp; do
    export RMP_TRANSPORTS=$tl
    run "$tl iter np4 victim 1" 137 3 -n 4 "$P" iter 10 4 1
    run "$tl iter np3 victim 0" 137 2 -n 3 "$P" iter 10 6 0
    run "$tl revoke np3" 0 3 -n 3 "$P" revoke
    run "$tl nbc np3" 137 2 -n 3 "$P" nbc
    run "$tl anysrc np3" 137 2 -n 3 "$P" anysrc
    run "$tl anysrc np4" 137 3 -n 4 "$P" anysrc
done
exit $fail
