#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A rank dies while every thread of the other ranks is blocked in a receive from it
# (RMP_THREAD_MULTIPLE): each of those threads returns RMP_ERR_PEER_FAILED and
# rrun reports the death (exit 137) within 30 s, and nothing hangs.
#   mt_kill.sh RRUN MT_TEST NP THREADS [rrun args...]
set -u
RRUN=$1 MT=$2 NP=$3 T=$4; shift 4
PF='a peer process failed or its connection broke'
start=$(date +%s.%N)
out=$(timeout 60 "$RRUN" --oversubscribe -n "$NP" "$@" "$MT" kill "$T" 2>&1); rc=$?
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.2f", e - s}')
bad=0
fail() { echo "mt_kill: $*"; bad=1; }
[ $rc -eq 137 ] || fail "rrun exit $rc (want 137, the victim's SIGKILL)"
awk -v t="$took" 'BEGIN{exit !(t < 30)}' || fail "the job took $took s"
for ((r = 0; r < NP - 1; r++)); do
  for ((t = 0; t < T; t++)); do
    grep -qx "rank $r thread $t: $PF" <<<"$out" || fail "rank $r thread $t did not report $PF"
  done
done
if [ $bad -ne 0 ]; then echo "$out"; exit 1; fi
echo "mt_kill: $((NP - 1)) ranks x $T threads got RMP_ERR_PEER_FAILED; job ended in $took s"
