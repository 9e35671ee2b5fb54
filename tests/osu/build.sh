#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the OSU micro-benchmarks 7.4 from their release tarball with rmp's
# compiler wrapper, as a user would: ./configure CC=mpicc_abi && make.
# usage: build.sh TARBALL OUTDIR MPICC_ABI STAMP
# OSU links libmpi_abi dynamically: a rebuilt libmpi_abi needs no OSU rebuild
# (that is the point of the standard ABI), so the build is done once per
# build directory (STAMP).
set -eu
tarball=$1 out=$2 mpicc=$3 stamp=$4
mpicc=$(cd "$(dirname "$mpicc")" && pwd)/$(basename "$mpicc") # configure runs elsewhere
if [ -f "$stamp" ] && [ -x "$out/osu-micro-benchmarks-7.4/c/mpi/startup/osu_init" ]; then
    exit 0
fi
rm -rf "$out"
mkdir -p "$out"
tar xzf "$tarball" -C "$out"
cd "$out/osu-micro-benchmarks-7.4"
log=$out/build.log
if ! ./configure CC="$mpicc" CXX="$mpicc" >"$log" 2>&1 || ! make -j2 -C c >>"$log" 2>&1; then
    tail -40 "$log"
    echo "OSU build failed: see $log"
    exit 1
fi
touch "$stamp"
