#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A user's first hour (issue 28), replayed: configuration refused before launch, the
# right rank blamed, a backtrace on a crash, pkg-config from the build tree, mpicxx,
# mpiexec --help, rmp_info --parsable. Prints "N passed, M failed".
set -u
B=${1:?usage: firsthour_test.sh BUILD_DIR SOURCE_DIR}
S=${2:?usage: firsthour_test.sh BUILD_DIR SOURCE_DIR}
B=$(cd "$B" && pwd)
RRUN=$B/launcher/rrun
INFO=$B/tools/rmp_info
BIN=$B/mpi/bin-mpi
BEH=$B/tests/launcher/behave
SRC=$S/tests/launcher/firsthour
pass=0; fail=0
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else ko "$2"; fi; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
# The scripts' own variables must not disturb what is checked here.
unset RMP_LOG RMP_TRANSPORTS RMP_SHM_BUFS RMP_SHM_BUF_BYTES RMP_ALLREDUCE_ALGO RMP_BACKTRACE

"$BIN/mpicc" -g -rdynamic -o "$TMP/nofin" "$SRC/nofin.c" || ko "mpicc nofin.c"
"$BIN/mpicc" -g -rdynamic -o "$TMP/segv" "$SRC/segv.c" || ko "mpicc segv.c"

# ---- configuration checked once, before launch --------------------------------------
out=$(RMP_ALLREDUCE_ALGO=fastest RMP_SHM_BUF_BYTES=1g RMP_SHM_BUFS=5000 RMP_LGO=info \
      RMP_RNDV_THRESHOLD=lots RMP_TRANSPORTS=shm,bogus \
      "$RRUN" -n 2 --timeout 20 sh -c "touch $TMP/started" 2>&1); rc=$?
check "[ $rc -eq 2 ] && [ ! -e $TMP/started ]" "bad configuration: rc $rc (want 2, no rank started): $out"
for want in 'RMP_ALLREDUCE_ALGO=fastest is not one of auto|recursive_doubling|rabenseifner|ring|direct|shm|hier$' \
            'RMP_SHM_BUF_BYTES=1g is out of range: accepted 4k..16m$' \
            'RMP_SHM_BUFS=5000 is out of range: accepted 1..1024$' \
            'RMP_LGO=info: unknown variable (did you mean RMP_LOG?)$' \
            'RMP_RNDV_THRESHOLD=lots is malformed: expected a size in bytes' \
            "RMP_TRANSPORTS=shm,bogus names an unknown transport 'bogus'"; do
    check "[ \$(grep -c -- \"\$want\" <<<\"\$out\") -eq 1 ]" "want once: '$want' in: $out"
done
check "[ \$(wc -l <<<\"\$out\") -eq 7 ]" "one line per problem and one summary: $out"
out=$("$RRUN" -n 2 -x RMP_SHM_BUFS=5000 sh -c "touch $TMP/started" 2>&1); rc=$?
check "[ $rc -eq 2 ] && [ ! -e $TMP/started ] && grep -q 'RMP_SHM_BUFS=5000 is out of range' <<<\"\$out\"" "-x refused: rc $rc: $out"
out=$(RMP_SHM_BUF_BYTES=16m RMP_SHM_BUFS=1 RMP_ALLREDUCE_ALGO=ring "$RRUN" -n 2 --timeout 30 "$B/examples/hello" 2>&1); rc=$?
check "[ $rc -eq 0 ]" "the edges of the ranges run: rc $rc: $out"
# under srun or mpirun the ranks check: one line (rank 0's), exit 2, the MPI program ends in MPI_Init
out=$(RMP_ALLREDUCE_ALGO=fastest "$TMP/nofin" 2>&1); rc=$?
check "[ $rc -eq 2 ] && [ \"\$out\" = '[rmp] error: RMP_ALLREDUCE_ALGO=fastest is not one of auto|recursive_doubling|rabenseifner|ring|direct|shm|hier' ]" "singleton MPI_Init with a bad variable: rc $rc: $out"
out=$(RMP_TRANSPORTS=bogus "$TMP/nofin" 2>&1); rc=$?
check "[ $rc -eq 2 ] && ! grep -q -e 'invalid argument' -e 'before MPI_Init' <<<\"\$out\"" "no generic sentence after a failed MPI_Init: $out"
if command -v mpirun.openmpi >/dev/null; then
    out=$(mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 -x RMP_SHM_BUFS=5000 "$TMP/nofin" 2>&1); rc=$?
    check "[ $rc -ne 0 ] && [ \$(grep -c 'RMP_SHM_BUFS=5000 is out of range' <<<\"\$out\") -eq 1 ]" "under mpirun: rank 0 says it once: rc $rc: $out"
fi
# rmp_info: each problem once, the values in force, non-zero
out=$(RMP_SHM_BUF_BYTES=1g RMP_ALLREDUCE_ALGO=fastest "$INFO" --explain 2>&1); rc=$?
check "[ $rc -ne 0 ] && [ \$(grep -c 'RMP_ALLREDUCE_ALGO=fastest' <<<\"\$out\") -eq 1 ] && [ \$(grep -c 'RMP_SHM_BUF_BYTES=1g' <<<\"\$out\") -eq 1 ]" "rmp_info --explain: rc $rc: $out"
out=$(RMP_SHM_BUF_BYTES=1g "$INFO" 2>/dev/null)
check "grep -q \"RMP_SHM_BUF_BYTES .*current '65536'\" <<<\"\$out\" && ! grep -q 1073741824 <<<\"\$out\"" "rmp_info shows the value in force"
RMP_SHM_BUFS=5000 "$INFO" --check 2>/dev/null; rc=$?
check "[ $rc -eq 2 ]" "rmp_info --check on a bad variable gave $rc"
RMP_SHM_BUFS=16 RMP_OSU_MPICC=x "$INFO" --check; rc=$?
check "[ $rc -eq 0 ]" "rmp_info --check on good variables gave $rc"

# ---- the right rank blamed ---------------------------------------------------------
for i in 1 2 3; do
    out=$("$RRUN" -n 2 --timeout 30 "$TMP/nofin" 2>&1); rc=$?
    first=$(grep -m1 -e '^rrun:' -e '^\[rmp' -e '^rmp MPI' <<<"$out")
    check "[ $rc -eq 1 ] && grep -q '^rrun: rank 1 (pid [0-9]* on .*) exited with status 0 without calling MPI_Finalize$' <<<\"\$first\"" "run $i: rank 1 named first, rc $rc: $out"
    check "! grep -q -e 'rmp_abort' -e 'rmp_finalize' -e 'rank 0 (.*) called' -e 'fence abandoned' <<<\"\$out\"" "run $i: no native names, rank 0 not blamed: $out"
done
check "grep -q 'rank 0 called MPI_Abort(.*) (a consequence of rank 1' <<<\"\$out\"" "the survivor's abort marked as a consequence: $out"

# ---- a crash prints its backtrace ---------------------------------------------------
out=$("$RRUN" -n 2 --timeout 30 "$TMP/segv" 2>&1); rc=$?
check "[ $rc -eq 139 ] && grep -q '^\[rmp 1\] fatal: signal 11 (SEGV) in pid [0-9]*; backtrace' <<<\"\$out\"" "segv: rc $rc: $out"
check "grep -q 'segv(firsthour_crash+0x' <<<\"\$out\" && grep -q 'segv(main+0x' <<<\"\$out\"" "backtrace names the frames: $out"
check "grep -q 'rank 1 (pid [0-9]* on .*) was killed by signal 11' <<<\"\$out\"" "rrun names the crashed rank: $out"
out=$(RMP_BACKTRACE=0 "$RRUN" -n 2 --timeout 30 "$TMP/segv" 2>&1); rc=$?
check "[ $rc -eq 139 ] && ! grep -q 'fatal: signal' <<<\"\$out\"" "RMP_BACKTRACE=0: rc $rc: $out"

# ---- pkg-config from the build tree -------------------------------------------------
export PKG_CONFIG_PATH=$B/meson-uninstalled
if cc -Wall -Werror $(pkg-config --cflags rmp-uninstalled) -o "$TMP/hello_pc" "$S/examples/hello.c" \
      $(pkg-config --libs rmp-uninstalled) 2>"$TMP/pc.err"; then
    ok
    check "ldd '$TMP/hello_pc' | grep -q '$B/librmp.so'" "rpath to the build tree: $(ldd "$TMP/hello_pc")"
    out=$(env -u LD_LIBRARY_PATH "$RRUN" -n 2 --timeout 30 "$TMP/hello_pc" 2>&1); rc=$?
    check "[ $rc -eq 0 ] && grep -q 'rank 1 of 2' <<<\"\$out\"" "hello from rmp-uninstalled.pc: rc $rc: $out"
else
    ko "cc with rmp-uninstalled.pc: $(cat "$TMP/pc.err")"
fi
unset PKG_CONFIG_PATH

# ---- C++ --------------------------------------------------------------------------
for w in mpicxx mpic++; do
    if "$BIN/$w" -Wall -Wextra -Werror -o "$TMP/hello_$w" "$SRC/hello.cpp" 2>"$TMP/cxx.err"; then
        out=$("$BIN/mpiexec" -n 2 --timeout 30 "$TMP/hello_$w" 2>&1); rc=$?
        check "[ $rc -eq 0 ] && grep -q 'c++ ok: 2 ranks, sum 3' <<<\"\$out\"" "$w program: rc $rc: $out"
    else
        ko "$w: $(cat "$TMP/cxx.err")"
    fi
done
check "'$B/mpi/mpicxx_abi' -show x.cpp | grep -q '^c++ .*-lmpi_abi'" "mpicxx_abi -show: $("$B/mpi/mpicxx_abi" -show x.cpp)"

# ---- mpiexec speaks for itself ------------------------------------------------------
out=$("$BIN/mpiexec" --help 2>&1); rc=$?
check "[ $rc -eq 0 ] && grep -q '^usage: mpiexec' <<<\"\$out\" && grep -q -- '-genv' <<<\"\$out\" && ! grep -q 'rrun \[' <<<\"\$out\"" "mpiexec --help: $out"
out=$("$BIN/mpiexec" -n 2 --frobnicate "$BEH" ok 2>&1); rc=$?
check "[ $rc -eq 2 ] && grep -q \"^mpiexec: unknown option '--frobnicate'\" <<<\"\$out\" && ! grep -q 'rrun' <<<\"\$out\"" "mpiexec refusal: rc $rc: $out"
out=$("$BIN/mpiexec" -n 1 -genv FIRSTHOUR_VAR here "$BEH" env FIRSTHOUR_VAR 2>&1)
check "grep -q 'FIRSTHOUR_VAR=here' <<<\"\$out\"" "mpiexec -genv: $out"

# ---- rmp_info ---------------------------------------------------------------------
out=$("$INFO" --parsable); rc=$?
check "[ $rc -eq 0 ] && ! grep -v -E '^[a-z_]+(:[^:]+)*:[^:]*' <<<\"\$out\" | grep -q ." "parsable: every line key:value: $out"
check "[ \$(grep -c '^version:' <<<\"\$out\") -eq 1 ] && grep -q '^param:RMP_LOG:value:warn$' <<<\"\$out\" && grep -q '^param:RMP_SHM_BUFS:range:1..1024$' <<<\"\$out\" && grep -q '^transport:shm:usable:yes$' <<<\"\$out\" && grep -q '^algorithms:allreduce:recursive_doubling,' <<<\"\$out\"" "parsable keys: $out"
check "[ -z \"\$(sort <<<\"\$out\" | uniq -d)\" ]" "parsable: duplicate lines $(sort <<<"$out" | uniq -d)"
check "grep -q '^mpi:abi_version:1.0$' <<<\"\$out\" && grep -q '^mpi:area:one_sided:implemented:[0-9]*$' <<<\"\$out\" && grep -q '^mpi:functions:total:[0-9]*$' <<<\"\$out\"" "parsable MPI section: $(grep '^mpi:' <<<"$out")"
check "'$INFO' | grep -q '^MPI: libmpi_abi.so, MPI 5.0 standard ABI 1.0; [0-9]* of [0-9]* functions implemented$'" "rmp_info MPI section"
check "'$INFO' --version | grep -q '^rmp_info (rmp) [0-9]'" "rmp_info --version"
out=$("$INFO" --frobnicate 2>&1); rc=$?
check "[ $rc -eq 2 ] && grep -q '^usage: rmp_info' <<<\"\$out\"" "rmp_info unknown option: rc $rc: $out"
out=$("$INFO" 2>&1)
check "[ -z \"\$(grep -v '^ *$' <<<\"\$out\" | sort | uniq -d)\" ]" "rmp_info: duplicate lines: $(grep -v '^ *$' <<<"$out" | sort | uniq -d)"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
