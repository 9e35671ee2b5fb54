#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs one OSU benchmark under rrun and checks its output.
# usage: run_one.sh RRUN OSU_DIR BENCHMARK NP [ARGS...]
# Fails on a non-zero exit, on any "Fail" or "FAILED" (OSU's -c data validation; the
# one-sided atomics print "FAILED") and when the benchmark printed no result line.
rrun=$1 dir=$2 bench=$3 np=$4
shift 4
prog=$dir/osu-micro-benchmarks-7.4/c/mpi/$bench
if [ ! -x "$prog" ]; then
    echo "FAIL: $prog was not built"
    exit 1
fi
out=$("$rrun" --oversubscribe -n "$np" --timeout 240 "$prog" "$@" 2>&1)
status=$?
echo "$out"
# OSU 7.4's osu_latency_mt never calls MPI_Finalize outside its session mode (its
# omb_lat_mt_session_finalize only finalizes sessions): rrun reports each rank that exits
# without finalize and fails the job. For that benchmark only (OSU_NO_FINALIZE=1), such a
# report and nothing else is accepted.
if [ $status -ne 0 ] && [ "${OSU_NO_FINALIZE:-0}" = 1 ] &&
   echo "$out" | grep -q 'exited with status 0 without calling MPI_Finalize' &&
   ! echo "$out" | grep '^rrun:' | grep -v -q -E 'without calling MPI_Finalize'; then
    echo "note: $bench exits without MPI_Finalize (OSU 7.4 bug); accepted"
    status=0
fi
if [ $status -ne 0 ]; then
    echo "FAIL: $bench at $np ranks exited $status"
    exit 1
fi
if echo "$out" | grep -q -w -E "Fail|FAILED"; then
    echo "FAIL: $bench at $np ranks: data validation failed"
    exit 1
fi
# a result line starts with a number (size) or is one of the startup benchmarks' lines
if ! echo "$out" | grep -q -E '^ *[0-9]|^# OSU MPI Init Test|This is a test'; then
    echo "FAIL: $bench at $np ranks printed no result"
    exit 1
fi
echo "ok: $bench at $np ranks"
