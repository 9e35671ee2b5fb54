#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every function of mpi.h is a symbol of libmpi_abi.so: PMPI_Name defined
# (T) and MPI_Name a weak alias (W) that a profiler can interpose on.
# usage: symbols.sh python3 gen_stubs.py mpi.h libmpi_abi.so
set -eu
py=$1 gen=$2 header=$3 lib=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$gen" --header "$header" --symbols | sort > "$tmp/want"
nm -D --defined-only "$lib" | awk '$2 == "T" && $3 ~ /^PMPI_/ {print $3} $2 == "W" && $3 ~ /^MPI_/ {print $3}' |
    sort > "$tmp/have"
n=$(wc -l < "$tmp/want")
if ! cmp -s "$tmp/want" "$tmp/have"; then
    echo "symbols of $lib differ from $header (< missing or of the wrong kind, > extra):"
    diff "$tmp/want" "$tmp/have" | head -40
    exit 1
fi
# nothing but the MPI interface (and mpi-ext.h's MPIX_ extensions) leaves the library
extra=$(nm -D --defined-only "$lib" | awk '$3 !~ /^P?MPIX?_/ && $3 !~ /^_/ {print $3}')
if [ -n "$extra" ]; then
    echo "unexpected exported symbols: $extra"
    exit 1
fi
# mpi-ext.h's functions (ULFM): PMPIX_Name defined, MPIX_Name its weak alias
ext=$(dirname "$header")/mpi-ext.h
for f in $(sed -n 's/^int \(MPIX_[A-Za-z_]*\)(.*/\1/p' "$ext"); do
    if ! nm -D --defined-only "$lib" | grep -q " W $f\$" ||
       ! nm -D --defined-only "$lib" | grep -q " T P$f\$"; then
        echo "mpi-ext.h's $f is not exported as W $f and T P$f"
        exit 1
    fi
done
echo "$n MPI_/PMPI_ symbols present, and mpi-ext.h's"
