#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Failure handling end to end (docs/reliability.md): the kill matrix on shm and
# tcp, RMP_TIMEOUT per call kind, hang reports, isolation from another user
# and clean-up. Runs tests/faults/faults under rrun; prints "N passed, M failed".
# FAULTS_KILL_BOUND (default 2.0 s) is the bound from a rank's death to rrun's
# exit; FAULTS_QUICK=1 runs the matrix on shm only; FAULTS_SUITE=verbs runs
# only the verbs subset (eager, mid-rendezvous, allreduce, flush) with
# RMP_TRANSPORTS=verbs, in the Soft-RoCE guest (tests/verbs/run-suite.sh).
set -u
B=${1:?usage: faults_test.sh BUILD_DIR}
B=$(cd "$B" && pwd)
RRUN=$B/launcher/rrun
F=$B/tests/faults/faults
BOUND=${FAULTS_KILL_BOUND:-2.0}
HOST=$(hostname)
PF='a peer process failed or its connection broke'
ARGERR='invalid argument$' # RMP_ERR_ARG's text (rmp_strerror), the whole rest of the line
TO='operation timed out'
pass=0; fail=0
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else ko "$2"; fi; }
TMP=$(mktemp -d)
# rrun's private directories (PMIx rendezvous) go under $TMP/run: empty after every job.
mkdir -m 700 "$TMP/run"
export TMPDIR=$TMP/run
cleanup() {
    rm -rf "$TMP"
}
trap cleanup EXIT
ls /dev/shm > "$TMP/shm.before"
now() { date +%s.%N; }
# running PID...: those of PIDS that still run. Not kill -0: it counts zombies, and an
# orphan's zombie waits for the reaper (PID 1), which may take seconds (a VM's init
# here reaps every ~2 s), while the process is long dead.
running() {
    local p st
    for p; do
        st=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) || continue
        [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && echo -n "$p "
    done
}

# Nothing of a finished job may remain: processes, listening sockets, rrun's
# directory, /dev/shm files.
no_leftovers() {
    local what=$1 i
    for i in $(seq 50); do pgrep -f "^$F " >/dev/null || break; sleep 0.1; done
    if pgrep -f "^$F " >/dev/null; then
        ko "$what: processes left: $(pgrep -af "^$F ")"
        kill -9 $(pgrep -f "^$F ") 2>/dev/null # ours: this build's binary, by pid
    else ok; fi
    check "[ -z \"\$(ls -A '$TMP/run')\" ]" "$what: rrun left $(ls -A "$TMP/run")"
    if command -v ss >/dev/null; then
        check "! ss -ltnpH 2>/dev/null | grep -q '\"faults\"'" "$what: listening sockets left"
    fi
    local shm; shm=$(ls /dev/shm | comm -13 "$TMP/shm.before" - | grep -i rmp)
    check "[ -z \"$shm\" ]" "$what: /dev/shm files left: $shm"
}

# line LABEL OUT REGEX: OUT has a line matching REGEX
line() {
    if grep -qE -- "$3" <<<"$2"; then ok; else ko "$1: no line /$3/ in:
$2"; fi
}

# kill_case LABEL NP VICTIM MODE [rrun args...]
kill_case() {
    local label=$1 np=$2 v=$3 mode=$4; shift 4
    local out rc end t r
    out=$("$RRUN" --oversubscribe -n "$np" --timeout 60 "$@" "$F" "$mode" "$v" 2>&1); rc=$?
    end=$(now)
    check "[ $rc -eq 137 ]" "$label: rrun exit $rc (want 137):
$out"
    line "$label" "$out" "^rrun: rank $v \\(pid [0-9]+ on $HOST\\) was killed by signal 9"
    t=$(grep -oE "(dying|killing rank $v) at [0-9.]+" <<<"$out" | head -1 | awk '{print $NF}')
    if [ -n "$t" ]; then
        check "awk 'BEGIN{exit !($end - $t < $BOUND)}'" \
              "$label: rrun exited $(awk "BEGIN{print $end - $t}") s after the kill (bound $BOUND s)"
    fi
    local late=$(( (v + 1) % np )) later
    for ((r = 0; r < np; r++)); do
        [ $r -eq $v ] && continue
        line "$label" "$out" "^rank $r: done$"
        case $mode in
        init)
            # Died before the fence: init fails; after: init may succeed, later calls fail.
            if ! grep -q "^rank $r: init init: $PF" <<<"$out"; then
                for later in pending-recv later-send later-recv later-barrier; do
                    line "$label" "$out" "^rank $r: init $later: $PF"
                done
            else ok; fi
            continue ;;
        finalize)
            # Whether the fence still completes depends on when the server saw the death.
            line "$label" "$out" "^rank $r: finalize finalize: ($PF|success)$"
            continue ;;
        esac
        for later in pending-recv later-send later-recv later-barrier; do
            line "$label" "$out" "^rank $r: $mode $later: $PF$"
        done
        case $mode in
        eager) line "$label" "$out" "^rank $r: eager stream: $PF$" ;;
        rndv-killed*) [ $r -eq $late ] && line "$label" "$out" "^rank $r: $mode rndv-recv: $PF$" ;;
        rndv-dies*) [ $r -eq $late ] && line "$label" "$out" "^rank $r: $mode rndv-send: $PF$" ;;
        coll-reduce|coll-gather)
            # Rooted at the victim: a non-root rank's part is done once sent.
            if [ $r -eq $late ]; then line "$label" "$out" "^rank $r: $mode late: $PF$"
            else line "$label" "$out" "^rank $r: $mode inside: ($PF|success)$"; fi ;;
        coll-*)
            if [ $r -eq $late ]; then line "$label" "$out" "^rank $r: $mode late: $PF$"
            else line "$label" "$out" "^rank $r: $mode inside: $PF$"; fi ;;
        flush-*)
            for later in flush later-put later-flush later-free later-create; do
                line "$label" "$out" "^rank $r: $mode $later: $PF$"
            done
            line "$label" "$out" "^rank $r: $mode handle after the failed create: null$"
            line "$label" "$out" "^rank $r: $mode atomic on it: $ARGERR" ;;
        esac
    done
    no_leftovers "$label"
}

matrix() {
    local tr=$1 v=$2; shift 2
    kill_case "$tr eager" 3 "$v" eager "$@"
    kill_case "$tr rndv-killed" 3 "$v" rndv-killed "$@"
    kill_case "$tr rndv-dies" 3 "$v" rndv-dies "$@"
    kill_case "$tr rndv-killed-seg" 3 "$v" rndv-killed-seg "$@"
    kill_case "$tr rndv-dies-seg" 3 "$v" rndv-dies-seg "$@"
    for c in barrier bcast reduce allreduce allgather reduce_scatter alltoall gather scatter \
             iallreduce; do
        kill_case "$tr coll-$c" 4 "$v" "coll-$c" "$@"
    done
    kill_case "$tr flush-direct" 3 "$v" flush-direct "$@"
    kill_case "$tr flush-emul" 3 "$v" flush-emul "$@"
    for p in init-before-fence init-after-fence finalize-before-fence finalize-after-fence; do
        kill_case "$tr $p" 3 "$v" "${p%%-*}" -x "RMPI_FAULT=$p:$v" "$@"
    done
}

# ---- 2. verbs subset (in the guest) ----
if [ "${FAULTS_SUITE:-all}" = verbs ]; then
    for v in 1 0; do
        kill_case "verbs eager" 3 $v eager -x RMP_TRANSPORTS=verbs
        kill_case "verbs rndv-killed" 3 $v rndv-killed -x RMP_TRANSPORTS=verbs
        kill_case "verbs rndv-dies" 3 $v rndv-dies -x RMP_TRANSPORTS=verbs
        kill_case "verbs coll-allreduce" 4 $v coll-allreduce -x RMP_TRANSPORTS=verbs
        # created window: RDMA writes in flight; allocated: mapped (same node)
        kill_case "verbs flush-rdma" 3 $v flush-emul -x RMP_TRANSPORTS=verbs
        kill_case "verbs flush-direct" 3 $v flush-direct -x RMP_TRANSPORTS=verbs
    done
    echo "$pass passed, $fail failed"
    [ $fail -eq 0 ]
    exit
fi

# ---- 1. kill matrix ----
matrix shm 1
kill_case "shm-nocma flush-emul" 3 2 flush-emul -x RMP_SHM_CMA=off
# A launcher that sends no failure notices (mpirun across nodes): the ranks that saw the
# death through their transport tell the others (core/failure.c).
kill_case "tcp coll-allreduce, no launcher notices" 4 1 coll-allreduce \
    -x RMP_TRANSPORTS=tcp -x RMPI_FAULT_NO_NOTICES=1
kill_case "tcp coll-barrier, no launcher notices" 4 2 coll-barrier \
    -x RMP_TRANSPORTS=tcp -x RMPI_FAULT_NO_NOTICES=1
kill_case "shm-nocma rndv-killed" 3 2 rndv-killed -x RMP_SHM_CMA=off
if [ "${FAULTS_QUICK:-0}" != 1 ]; then
    matrix tcp 0 -x RMP_TRANSPORTS=tcp
fi

# Two jobs at once, one losing a rank: the other never notices.
"$RRUN" --oversubscribe -n 3 --timeout 60 "$F" eager 2 > "$TMP/j1" 2>&1 & j1=$!
RMP_TRANSPORTS=shm,tcp "$RRUN" -n 2 --timeout 200 "$B/tests/p2p/p2p_test" > "$TMP/j2" 2>&1 &
j2=$!
wait $j1; r1=$?; wait $j2; r2=$?
# (its survivors' lines are checked in the matrix: here rrun may SIGKILL them
# before they report, the machine being busy with the other job)
check "[ $r1 -eq 137 ] && grep -q '^rrun: rank 2 (pid [0-9]* on $HOST) was killed by signal 9' '$TMP/j1'" \
      "concurrent: the failing job: $r1 $(cat "$TMP/j1")"
check "[ $r2 -eq 0 ] && grep -q ' 0 failed' '$TMP/j2' && ! grep -q 'failed (' '$TMP/j2'" \
      "concurrent: the other job: $r2 $(tail -3 "$TMP/j2")"
no_leftovers concurrent

# ---- 3. RMP_TIMEOUT per call kind ----
for tr in shm shm-cma shm-nocma tcp; do
    case $tr in
    shm) x=() ;;
    shm-cma) x=(-x RMP_SHM_RMA_MSG_MAX=0) ;;
    shm-nocma) x=(-x RMP_SHM_CMA=off) ;;
    tcp) x=(-x RMP_TRANSPORTS=tcp) ;;
    esac
    rm -f "$TMP/done"
    out=$("$RRUN" -n 2 --timeout 120 -x RMP_TIMEOUT=1 -x FAULTS_DONE="$TMP/done" "${x[@]}" \
          "$F" timeouts 2>&1); rc=$?
    check "[ $rc -eq 0 ]" "timeouts $tr: exit $rc: $out"
    for k in recv send-rndv wait probe barrier allreduce put-flush atomic win-free; do
        if [ $tr = shm-cma ] && [ $k = put-flush ]; then
            # Cross-memory attach writes without the target's help: nothing to wait for.
            # By default (shm) an 8-byte put goes as a message the target must apply.
            line "timeouts $tr" "$out" "^rank 0: timeout $k: success after"
            continue
        fi
        t=$(sed -nE "s/^rank 0: timeout $k: $TO after ([0-9.]+) s$/\\1/p" <<<"$out")
        check "[ -n \"$t\" ] && awk 'BEGIN{exit !($t >= 0.95 && $t < 3.0)}'" \
              "timeouts $tr $k: '${t:-no result}' (want RMP_ERR_TIMEOUT after about 1 s)"
    done
    line "timeouts $tr" "$out" "warn: $TO after 1 s \\(RMP_TIMEOUT\\)"
    line "timeouts $tr" "$out" "^rank 0: finalize: success$"
    line "timeouts $tr" "$out" "^rank 1: finalize: success$"
    no_leftovers "timeouts $tr"
done
# Unset: a receive waits for ever (still blocked when rrun --timeout ends the job).
s=$(now); out=$("$RRUN" -n 2 --timeout 3 "$F" block-recv 2>&1); rc=$?; e=$(now)
check "[ $rc -eq 124 ]" "block-recv: exit $rc"
check "! grep -q 'block-recv recv:' <<<\"\$out\"" "block-recv: the receive returned: $out"
line block-recv "$out" "^\\[rmp 0\\] blocked: in a receive from world rank 1 \\(tag 3, context 0\\)"
check "awk 'BEGIN{exit !($e - $s >= 3.0)}'" "block-recv: ended after $(awk "BEGIN{print $e-$s}") s"
no_leftovers block-recv

# ---- 4. hang reports ----
out=$("$RRUN" --oversubscribe -n 4 --timeout 2 "$F" hang-coll 2 2>&1); rc=$?
check "[ $rc -eq 124 ]" "hang-coll: exit $rc"
line hang-coll "$out" "^rrun: job timed out after 2 s; where each rank is blocked:"
line hang-coll "$out" "^\\[rmp 2\\] blocked: not in a blocking rmp call"
for r in 0 1 3; do
    line hang-coll "$out" "^\\[rmp $r\\] blocked: in rmp_allreduce \\(collective #[0-9]+ phase [0-9]+ on context 0(, shared segment)?\\), receiving from world rank [0-9]"
done
line hang-coll "$out" "blocked: in rmp_allreduce .*receiving from world rank 2$"
no_leftovers hang-coll

# kill -USR1 to rrun: every rank reports, the job goes on.
"$RRUN" --oversubscribe -n 3 --timeout 60 "$F" hang-p2p > "$TMP/usr1" 2>&1 & rp=$!
for i in $(seq 100); do [ "$(grep -c waiting "$TMP/usr1")" -eq 3 ] && break; sleep 0.1; done
for i in $(seq 20); do
    kill -USR1 $rp; sleep 0.5
    [ "$(grep -c 'blocked: in' "$TMP/usr1")" -ge 3 ] && break
done
out=$(cat "$TMP/usr1")
line usr1 "$out" "^\\[rmp 0\\] blocked: in a receive from world rank 1 \\(tag 3, context 0\\)"
line usr1 "$out" "^\\[rmp 1\\] blocked: in rmp_probe, peer world rank 2 \\(tag 4, context 0\\)"
line usr1 "$out" "^\\[rmp 2\\] blocked: in a send to world rank 0 \\(rendezvous"
check "kill -0 $rp 2>/dev/null" "usr1: the job ended on SIGUSR1"
kill -TERM $rp; wait $rp; rc=$?
check "[ $rc -eq 143 ]" "usr1: exit $rc after SIGTERM"
no_leftovers usr1

# ---- 5. isolation from another user ----
if ! setpriv --reuid nobody --regid nogroup --clear-groups true 2>/dev/null; then
    ko "isolation: cannot run as nobody (setpriv; run as root)"
else
    as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups "$@"; }
    RMP_TRANSPORTS=tcp,shm "$RRUN" -n 2 --timeout 60 "$F" idle > "$TMP/idle" 2>&1 & rp=$!
    for i in $(seq 100); do [ "$(grep -c 'ready pid' "$TMP/idle")" -eq 2 ] && break; sleep 0.1; done
    pids=$(awk '/ready pid/{print $5}' "$TMP/idle")
    # Ranks print in any order: pick each by its rank number.
    p0=$(awk '/^rank 0: ready pid/{print $5}' "$TMP/idle")
    check "[ -n \"$p0\" ]" "isolation: the job did not start: $(cat "$TMP/idle")"
    for p in $pids; do
        check "grep -q 'memfd:rmp' /proc/$p/maps" "isolation: rank pid $p maps no rmp segment"
        # Segments are nameless memfds: nothing in any namespace. The shm segment's stays
        # open (peers map it at their first message to this rank, docs/protocols.md); the
        # others are closed once mapped...
        check "[ \"\$(ls -l /proc/$p/fd | grep memfd | grep -vc 'memfd:rmp-shm ')\" = 0 ]" \
              "isolation: rank pid $p keeps a memfd other than its shm segment open"
        check "[ \"\$(ls -l /proc/$p/fd | grep -c 'memfd:rmp-shm ')\" -le 1 ]" \
              "isolation: rank pid $p keeps more than one shm segment open"
        check "! ls /dev/shm | grep -q -- '-$p-'" "isolation: rank pid $p has a /dev/shm file"
        # ...and the mappings are not reachable by another user.
        check "! as_nobody cat /proc/$p/maps >/dev/null 2>&1" "isolation: nobody reads /proc/$p/maps"
        check "! as_nobody sh -c 'ls /proc/$p/map_files/' >/dev/null 2>&1" \
              "isolation: nobody lists /proc/$p/map_files"
        for fd in /proc/$p/fd/*; do
            check "! as_nobody sh -c 'exec 3<>$fd' 2>/dev/null" "isolation: nobody opens $fd"
        done
        # The tcp listener: a stranger's handshake is refused, the rank lives on.
        port=$(ss -ltnpH | grep "pid=$p," | awk '{print $4}' | sed 's/.*://' | head -1)
        check "[ -n \"$port\" ]" "isolation: no tcp listener for pid $p"
        if [ -n "$port" ]; then
            res=$(as_nobody /usr/bin/python3 - "$port" <<'PY'
import os, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(os.urandom(64))  # a HELLO with a token it cannot know
s.settimeout(5)
try:
    print("answered" if s.recv(64) else "closed")
except ConnectionResetError:
    print("closed")
except socket.timeout:
    print("silent")
PY
)
            check "[ \"$res\" = closed ]" "isolation: stranger on pid $p's tcp port: '$res'"
        fi
    done
    # (tcp first: its listener is served; shm made its segments and closed them)
    # PMIx server (PMIx 4 listens on loopback tcp): another user's client is refused.
    mapfile -t E < <(tr '\0' '\n' < /proc/$p0/environ | grep -E '^(PMIX_|RMP_TRANSPORTS)')
    # The build tree may be private (a 0700 checkout): give nobody its own copy of the
    # program and the library.
    nb=$(mktemp -d /tmp/rmp-nobody.XXXXXX)
    cp "$F" "$nb/" && cp -L "$B"/librmp.so.0 "$nb/" && chmod 755 "$nb" && chmod 755 "$nb"/*
    out=$(timeout 20 setpriv --reuid nobody --regid nogroup --clear-groups \
          env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$nb" "${E[@]}" "$nb/faults" idle 2>&1)
    rm -rf "$nb"
    line "isolation pmix" "$out" "idle init: bootstrap \\(PMIx\\) error"
    rd=$(ls -d "$TMP"/run/rrun.* 2>/dev/null | head -1)
    check "[ -n \"$rd\" ] && [ \"\$(stat -c %a '$rd')\" = 700 ]" "isolation: rrun's directory $rd not 0700"
    check "! as_nobody ls '$rd' >/dev/null 2>&1" "isolation: nobody lists rrun's directory"
    check "[ -n \"$(running $p0)\" ]" "isolation: rank 0 died from the strangers"
    # SIGKILL of a rank: rrun removes everything (checked by no_leftovers).
    p1=$(awk '/^rank 1: ready pid/{print $5}' "$TMP/idle")
    s=$(now); kill -9 "$p1"; wait $rp; rc=$?; e=$(now)
    check "[ $rc -eq 137 ]" "isolation: exit $rc after SIGKILL of rank 1"
    check "awk 'BEGIN{exit !($e - $s < $BOUND)}'" \
          "isolation: rrun exited $(awk "BEGIN{print $e-$s}") s after the kill (bound $BOUND s)"
    check "grep -q 'rank 1 (pid $p1 on $HOST) was killed by signal 9' '$TMP/idle'" \
          "isolation: report: $(cat "$TMP/idle")"
    no_leftovers isolation
fi

# rrun itself SIGKILLed: its ranks die with it (PR_SET_PDEATHSIG) instead of
# running on; only its empty private directory can remain.
"$RRUN" -n 2 --timeout 60 "$F" idle > "$TMP/idle2" 2>&1 & rp=$!
for i in $(seq 100); do [ "$(grep -c 'ready pid' "$TMP/idle2")" -eq 2 ] && break; sleep 0.1; done
pids=$(awk '/ready pid/{print $5}' "$TMP/idle2")
check "[ -n \"$pids\" ]" "rrun-killed: the job did not start: $(cat "$TMP/idle2")"
kill -9 $rp; wait $rp 2>/dev/null
for i in $(seq 20); do alive=$(running $pids); [ -z "$alive" ] && break; sleep 0.1; done
check "[ -z \"$alive\" ]" "rrun-killed: ranks $alive outlived rrun by 2 s"
check "[ -z \"\$(find '$TMP/run' -mindepth 2 2>/dev/null)\" ]" "rrun-killed: files left: $(find "$TMP/run" -mindepth 2)"
rm -rf "$TMP"/run/rrun.*
no_leftovers rrun-killed

# Open MPI's mpirun SIGKILLed: no PDEATHSIG there, and the ranks' output goes to files
# (no broken pipe to die of): each rank must see its PMIx server's connection drop and
# end by itself, saying why, as Open MPI's and MPICH's own ranks do.
if command -v mpirun.openmpi >/dev/null; then
    mkdir -p "$TMP/ompi"
    TMPDIR=$TMP/ompi mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 --bind-to none \
        sh -c 'exec "$0" idle >"$1.$OMPI_COMM_WORLD_RANK" 2>&1' "$F" "$TMP/orphan" \
        >"$TMP/orphan.mpirun" 2>&1 & mp=$!
    for i in $(seq 150); do [ "$(cat "$TMP"/orphan.[01] 2>/dev/null | grep -c 'ready pid')" -eq 2 ] && break; sleep 0.1; done
    pids=$(cat "$TMP"/orphan.[01] 2>/dev/null | awk '/ready pid/{print $5}')
    n=$(wc -w <<<"$pids")
    check "[ $n = 2 ]" "mpirun-killed: the job did not start: $(cat "$TMP"/orphan.* 2>&1)"
    kill -9 $mp; wait $mp 2>/dev/null
    for i in $(seq 30); do alive=$(running $pids); [ -z "$alive" ] && break; sleep 0.1; done
    check "[ -z '$alive' ]" "mpirun-killed: ranks $alive outlived mpirun by 3 s"
    for r in 0 1; do
        check "grep -q \"^\[rmp $r\] error: lost the connection to the launcher's PMIx server\" '$TMP/orphan.$r'" \
              "mpirun-killed: rank $r did not say why it ended: $(cat "$TMP/orphan.$r")"
    done
    no_leftovers mpirun-killed
elif [ "${CI:-}" = true ]; then
    ko "mpirun-killed: mpirun.openmpi not installed (tools/install-deps installs openmpi-bin)"
else
    echo "note: mpirun-killed not run: no mpirun.openmpi" >&2
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
