#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rrun behaviour: exit statuses, failure propagation, timeouts, output
# forwarding, bad invocations, other launchers. Prints "N passed, M failed".
set -u
B=${1:?usage: rrun_test.sh BUILD_DIR}
B=$(cd "$B" && pwd)
RRUN=$B/launcher/rrun
BEH=$B/tests/launcher/behave
HELLO=$B/examples/hello
pass=0; fail=0
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else ko "$2"; fi; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
ls /dev/shm | grep '^rmp-' | sort > "$TMP/shm.before"
# No rank process may survive a job.
no_leftovers() {
    sleep 0.2
    if pgrep -f "$BEH" >/dev/null; then ko "processes left behind: $(pgrep -af "$BEH")"; pkill -9 -f "$BEH"; else ok; fi
}

for n in 1 2 4 8; do
    out=$("$RRUN" --oversubscribe -n $n "$BEH" ok 2>&1); rc=$?
    check "[ $rc -eq 0 ]" "np=$n exit $rc"
    check "[ \$(grep -c ' ok$' <<<\"\$out\") -eq $n ]" "np=$n printed $(grep -c ' ok$' <<<"$out") lines"
    check "grep -q 'rank $((n-1)) of $n ok' <<<\"\$out\"" "np=$n last rank"
done

# a rank exits 3: status 3, names the rank, within 2 s
s=$(date +%s.%N); out=$("$RRUN" -n 2 "$BEH" exit 1 3 2>&1); rc=$?; e=$(date +%s.%N)
check "[ $rc -eq 3 ]" "exit 3 gave $rc"
check "grep -q \"rank 1 (pid [0-9]* on $(hostname)) exited with status 3\" <<<\"\$out\"" "exit message: $out"
check "awk 'BEGIN{exit !($e - $s < 3.0)}'" "exit propagation took $(awk "BEGIN{print $e-$s}") s"
no_leftovers

# exit 0 without rmp_finalize while others wait: a failure, not a hang
out=$("$RRUN" -n 2 --timeout 20 "$BEH" exit 0 0 2>&1); rc=$?
check "[ $rc -eq 1 ] && grep -q 'without calling rmp_finalize' <<<\"\$out\"" "unfinalized exit gave $rc: $out"
no_leftovers

# killed by SIGKILL: 128+9
out=$("$RRUN" -n 2 "$BEH" kill 0 2>&1); rc=$?
check "[ $rc -eq 137 ]" "SIGKILL gave $rc"
check "grep -q 'rank 0 .*signal 9' <<<\"\$out\"" "kill message: $out"
no_leftovers

# a killed rank and a survivor that left unfinalized, found in one wake (the
# survivor first in fork order): the death is the cause, 137, not 1
out=$("$RRUN" -n 2 --timeout 20 "$BEH" reap-order 2>&1); rc=$?
check "[ $rc -eq 137 ] && grep -q 'rank 1 .*signal 9' <<<\"\$out\"" "reap-order gave $rc: $out"
no_leftovers

# a survivor that left unfinalized before rrun saw a rank's death (its death reaped
# 0.3 s later): still the death's 137, within rrun's grace for unfinalized exits
out=$("$RRUN" -n 2 --timeout 20 "$BEH" exit-then-kill 2>&1); rc=$?
check "[ $rc -eq 137 ] && grep -q 'rank 1 .*signal 9' <<<\"\$out\"" "exit-then-kill gave $rc: $out"
no_leftovers

# survivors see RMP_ERR_PEER_FAILED before rrun ends the job
out=$("$RRUN" --oversubscribe -n 3 "$BEH" detect 1 2>&1); rc=$?
check "[ $rc -eq 137 ]" "detect gave $rc"
check "[ \$(grep -c 'receive from dead rank 1 returned \"a peer process failed' <<<\"\$out\") -eq 2 ]" "survivors' receives: $out"
check "[ \$(grep -c 'later send returned \"a peer process failed' <<<\"\$out\") -eq 2 ]" "survivors' sends: $out"
no_leftovers

# a rank killed inside collectives: every survivor's collective fails, the job ends promptly
s=$(date +%s.%N); out=$("$RRUN" --oversubscribe -n 4 "$BEH" coll-kill 2 2>&1); rc=$?; e=$(date +%s.%N)
check "[ $rc -eq 137 ]" "coll-kill gave $rc"
check "[ \$(grep -c 'collective returned \"a peer process failed' <<<\"\$out\") -eq 3 ]" "survivors' collectives: $out"
check "awk 'BEGIN{exit !($e - $s < 4.0)}'" "coll-kill took $(awk "BEGIN{print $e-$s}") s"
no_leftovers

# rmp_abort(5)
out=$("$RRUN" --oversubscribe -n 3 "$BEH" abort 2 5 2>&1); rc=$?
check "[ $rc -eq 5 ]" "abort gave $rc"
check "grep -q 'rank 2 .*called rmp_abort(5)' <<<\"\$out\"" "abort message: $out"
no_leftovers

# a rank's forked child is killed too
out=$("$RRUN" -n 2 "$BEH" hang-child 2>&1); rc=$?
check "[ $rc -eq 4 ]" "hang-child gave $rc"
no_leftovers

# --timeout: 124, promptly
s=$(date +%s.%N); out=$("$RRUN" -n 2 --timeout 1 "$BEH" sleep 2>&1); rc=$?; e=$(date +%s.%N)
check "[ $rc -eq 124 ]" "timeout gave $rc"
check "grep -q 'timed out' <<<\"\$out\"" "timeout message"
check "awk 'BEGIN{exit !($e - $s < 4.0)}'" "timeout took $(awk "BEGIN{print $e-$s}") s"
no_leftovers

# 10 MB per rank through the pipes, tagged: no lost, torn or interleaved lines
"$RRUN" -n 2 --tag-output "$BEH" spew 100000 > "$TMP/spew" 2>"$TMP/spew.err"; rc=$?
check "[ $rc -eq 0 ]" "spew exit $rc"
for r in 0 1; do
    c=$(grep -c "^\[$r\] rank $r line [0-9]* x" "$TMP/spew")
    check "[ $c -eq 100000 ]" "rank $r lines: $c"
done
bad=$(grep -vcE '^\[([01])\] rank \1 line [0-9]+ x[a-z]+$' "$TMP/spew")
short=$(awk 'length($0) != 103' "$TMP/spew" | wc -l)
check "[ $short -eq 0 ]" "$short torn lines"
check "[ $bad -eq 0 ]" "$bad malformed lines"
seq_ok=$(awk '{split($0,a," "); r=a[3]; if (a[5] != n[r]+0) bad++; n[r]=a[5]+1} END{print bad+0}' "$TMP/spew")
check "[ $seq_ok -eq 0 ]" "out-of-order lines: $seq_ok"

# two jobs of the same user at once: separate namespaces, segments, sockets
"$RRUN" -n 2 "$B/tests/p2p/p2p_test" > "$TMP/job1" 2>&1 & j1=$!
RMP_TRANSPORTS=shm,tcp "$RRUN" -n 2 "$B/tests/p2p/p2p_test" > "$TMP/job2" 2>&1 & j2=$!
wait $j1; r1=$?; wait $j2; r2=$?
check "[ $r1 -eq 0 ] && grep -q ' 0 failed' '$TMP/job1'" "concurrent job 1: $(tail -2 "$TMP/job1")"
check "[ $r2 -eq 0 ] && grep -q ' 0 failed' '$TMP/job2'" "concurrent job 2: $(tail -2 "$TMP/job2")"

# -x
out=$(FOO=outer "$RRUN" -n 1 -x FOO -x BAR=baz "$BEH" env BAR 2>&1)
check "grep -q 'BAR=baz' <<<\"\$out\"" "-x NAME=VALUE: $out"
out=$(FOO=outer "$RRUN" -n 1 -x FOO "$BEH" env FOO 2>&1)
check "grep -q 'FOO=outer' <<<\"\$out\"" "-x NAME: $out"
out=$("$RRUN" -n 2 "$HELLO" 2>&1)
check "grep -q 'bound to core' <<<\"\$out\"" "binding reported: $out"
out=$("$RRUN" -n 2 --bind-to none "$HELLO" 2>&1)
check "grep -q 'bound to none' <<<\"\$out\"" "bind-to none: $out"
# --verbose: rrun's launch steps and every rank's set-up steps, each with a time
out=$("$RRUN" -n 2 --verbose "$HELLO" 2>&1)
check "grep -q '^rrun: [0-9.]* ms: PMIx server up' <<<\"\$out\"" "--verbose launch steps: $out"
for r in 0 1; do
  for step in 'PMIx client up' 'transports open: self' 'endpoints exchanged' 'peers per transport: self 1, shm 1' 'ready'; do
    check "grep -q '^\[rmp $r\] init [0-9.]* ms: $step' <<<\"\$out\"" "--verbose rank $r step '$step': $out"
  done
done
out=$("$RRUN" -n 2 "$HELLO" 2>&1)
check "! grep -q 'init [0-9.]* ms' <<<\"\$out\"" "set-up steps printed without --verbose: $out"

# a rank gets the descriptors rrun was given (here also the caller's own
# extras, e.g. a CI runner's pipe) and none of rrun's: no pipe, socket or file
# (listed by the shell itself: a pipeline would show its own pipe descriptors, or not)
fds='cd /proc/self/fd && echo *'
want=$(sh -c "$fds")
got=$("$RRUN" -n 2 sh -c "$fds" 2>&1 | sort -u)
check "[ \"\$got\" = \"\$want\" ]" "rank descriptors '$got', rrun's caller had '$want'"

# bad invocations: status 2 and a message
for args in "" "-n 2" "-n 0 $BEH ok" "-n -1 $BEH ok" "-n 2 /nonexistent/prog" "-n 2 $TMP" \
            "--frobnicate -n 2 $BEH ok" "-n 2 --bind-to socket $BEH ok" "-n 999 $BEH ok" \
            "-n 2 --timeout -3 $BEH ok" "-n 2 no-such-program-in-path"; do
    out=$("$RRUN" $args 2>&1); rc=$?
    check "[ $rc -eq 2 ]" "'rrun $args' gave $rc"
    check "grep -q '^rrun: ' <<<\"\$out\"" "'rrun $args' message: $out"
done
touch "$TMP/notexec"
out=$("$RRUN" -n 1 "$TMP/notexec" 2>&1); rc=$?
check "[ $rc -eq 2 ] && grep -q 'not executable' <<<\"\$out\"" "non-executable gave $rc: $out"
check "\"$RRUN\" --version | grep -q rrun" "--version"
check "\"$RRUN\" --help | grep -q -- --bind-to" "--help"

# singleton: no launcher at all
out=$(env -u PMIX_NAMESPACE "$HELLO" 2>&1); rc=$?
check "[ $rc -eq 0 ] && grep -q 'rank 0 of 1' <<<\"\$out\"" "singleton: $out"
# a launcher that expected more ranks but serves no PMIx
out=$(SLURM_NTASKS=4 "$HELLO" 2>&1); rc=$?
check "[ $rc -ne 0 ] && grep -q 'mpi=pmix' <<<\"\$out\"" "orphaned singleton: rc $rc $out"

# Open MPI's mpirun serves PMIx: the same binary runs under it
if command -v mpirun.openmpi >/dev/null; then
    out=$(mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 "$HELLO" 2>&1); rc=$?
    check "[ $rc -eq 0 ] && grep -q 'rank 1 of 2' <<<\"\$out\"" "under mpirun: rc $rc: $out"
    out=$(mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 "$BEH" abort 1 6 2>&1); rc=$?
    check "[ $rc -eq 6 ]" "abort under mpirun gave $rc"
    out=$(mpirun.openmpi --allow-run-as-root --oversubscribe -n 3 $B/tests/p2p/p2p_test 2>&1); rc=$?
    check "[ $rc -eq 0 ] && grep -q ' 0 failed' <<<\"\$out\"" "p2p under mpirun: rc $rc: $(tail -3 <<<"$out")"
else
    ko "mpirun.openmpi not installed (tools/install-deps installs it)"
fi
# segments left by this test's jobs (other jobs running on the machine may own live ones)
stale=$(ls /dev/shm | grep '^rmp-' | sort | comm -13 "$TMP/shm.before" - |
        while read -r f; do pid=$(cut -d- -f3 <<<"$f"); kill -0 "$pid" 2>/dev/null || echo "$f"; done)
check "[ -z \"\$stale\" ]" "stale segments: $stale"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
