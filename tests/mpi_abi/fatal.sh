#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: fatal.sh RRUN PROGRAM [abort]: the job must fail, with the line
# "rmp MPI: MPI_Group_incl on rank 1: MPI_ERR_RANK: ..." and nobody surviving.
rrun=$1 prog=$2 mode=${3:-fatal}
out=$("$rrun" --oversubscribe -n 3 --timeout 60 "$prog" "$mode" 2>&1)
status=$?
echo "$out"
if [ "$status" -eq 0 ]; then
    echo "FAIL: the job exited 0 after a fatal error"
    exit 1
fi
if ! echo "$out" | grep -q "rmp MPI: MPI_Group_incl on rank 1: MPI_ERR_RANK: invalid rank 7 (group size 3)"; then
    echo "FAIL: no line naming the function, the rank and the error class"
    exit 1
fi
if echo "$out" | grep -q "survived\|left the collective"; then
    echo "FAIL: a rank went on after the fatal error"
    exit 1
fi
echo "ok: exit status $status"
