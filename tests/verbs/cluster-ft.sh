# SPDX-License-Identifier: BSD-3-Clause
# Sourced by tests/verbs/cluster-suite.sh, last (its final check leaves one node): failures
# across the two guests that rmp itself must handle, under the harness's mpirun with stock
# options (no launcher keepalive). Uses the suite's B, T, L, RSH, LOG, ok and ko.
#  - ULFM: tests/faults/ulfm's iterative program (an allreduce per step, a checkpoint)
#    loses a rank of rmpn2 at step 5; the survivors of both nodes revoke, shrink, agree
#    and finish with the right sum (mpirun --enable-recovery lets them live).
#  - rmpn2 frozen (its QEMU stopped: as silent as a killed node) with RMP_FAILURE_TIMEOUT=0:
#    no survivor may report in 12 s (so the check below tests rmp, not the launcher);
#    then rmpn2 runs on. In both, no rank of the job is left 10 s after mpirun ended (a
#    rank whose PMIx server is gone ends by itself).
#  - rmpn2 lost (its QEMU killed) under tests/multinode/node_loss.c, 3 ranks 2+1: rank 0
#    waits in a receive from rank 2 (an idle verbs connection), rank 1 in an allreduce;
#    each must return RMP_ERR_PEER_FAILED by itself within 10 s of the kill (of rmpn2's
#    last answer to ping)
#    (tests/common/nodeloss.sh, the assertions of tests/multinode's link cut).

# ---- ULFM across the nodes: victim rank 2 (rmpn2) at step 5 of 12, 2+2 ranks ----
# Open MPI 4.1's mpirun --enable-recovery lets the survivors live but, across nodes, does
# not exit once every rank has (on one node it does): the test ends it when no rank of
# the job is left on either node.
ulfm_left() {
  local p1 p2
  p1=$(pgrep -f "^$T/faults/ulfm " | tr '\n' ' ')
  p2=$("$RSH" rmpn2 "pgrep -f '^$T/faults/ulfm ' || true" 2>&1 | tr '\n' ' ')
  [ -z "$p1$p2" ] || echo "rmpn1: [$p1] rmpn2: [$p2]"
}
ulfm_case() { # VICTIM
  local v=$1 t0=$SECONDS out=$LOG/ulfm.out n r bad="" job left end
  RMP_ON_FAILURE=continue RMP_CLUSTER_MPIRUN_ARGS=--enable-recovery \
    timeout -k 5 300 $L -n 4 "$T/faults/ulfm" iter 12 5 "$v" >"$out" 2>&1 &
  job=$!
  end=$((SECONDS + 240))
  while kill -0 $job 2>/dev/null && [ $SECONDS -lt $end ]; do
    [ "$(grep -cE '^ulfm: rank [0-3] (ok|FAILED)' "$out")" -ge 3 ] && break
    sleep 1
  done
  end=$((SECONDS + 30))
  while left=$(ulfm_left) && [ -n "$left" ] && [ $SECONDS -lt $end ]; do sleep 1; done
  kill $job 2>/dev/null
  wait $job 2>/dev/null
  n=$(grep -c '^ulfm: rank [0-3] ok result=' "$out")
  r=$(grep -o 'result=[0-9]*' "$out" | sort -u | tr '\n' ' ')
  [ "$n" = 3 ] || bad+=" $n of 3 survivors ok;"
  [ "$(wc -w <<<"$r")" = 1 ] || bad+=" results '$r';"
  grep -q "^ulfm: rank $v ok" "$out" && bad+=" the victim said ok;"
  [ -z "$left" ] || bad+=" ranks left 30 s after the survivors' reports: $left;"
  if [ -z "$bad" ]; then
    ok "ulfm iter, victim $v (rmpn2) at step 5 ($((SECONDS - t0)) s): 3 survivors on both nodes revoked, shrank, agreed, $r"
  else
    ko "ulfm iter, victim $v:$bad"; grep -v 'PMIX ERROR' "$out" | tail -n 25 | sed 's/^/    /'
    kill -9 $(pgrep -f "^$T/faults/ulfm ") 2>/dev/null
  fi
}
ulfm_case 2

# ---- rmpn2 frozen, then lost: every survivor's own report, or none with the detector off ----
NL=$T/multinode/node_loss
NODELOSS_SURVIVORS="0:recv 1:allreduce"
. "$(dirname "${BASH_SOURCE[0]}")/../common/nodeloss.sh"
nl_left() { # this job's ranks still running on NODES
  local n p1="" p2=""
  for n in $1; do
    if [ "$n" = 1 ]; then p1=$(pgrep -f "^$NL" | tr '\n' ' ')
    else p2=$("$RSH" rmpn2 "pgrep -f '^$NL' || true" 2>&1 | tr '\n' ' '); fi
  done
  [ -z "$p1$p2" ] || echo "rmpn1: [$p1] rmpn2: [$p2]"
}
nl_stuck() { # the launcher's and the ranks' processes on both nodes: state, threads' waits
  local ps='for p in $(pgrep -f "[m]pirun|[o]rted|[r]mp_rsh|[n]ode_loss"); do w=""; '
  ps+='for t in /proc/$p/task/*/wchan; do w="$w $(cat $t 2>/dev/null)"; done; '
  ps+='echo "$p $(cut -d" " -f3 /proc/$p/stat) [$w ] '
  ps+='$(tr "\0" " " </proc/$p/cmdline | cut -c1-120)"; done'
  echo "-- rmpn1 (loadavg $(cut -d' ' -f1-3 /proc/loadavg))"; sh -c "$ps"
  echo "-- rmpn2"; "$RSH" rmpn2 "$ps" 2>&1
}
# The host stops or kills rmpn2's QEMU when it reads a line of rmpn1's console, which a
# loaded host can do seconds late: the clock starts at rmpn2's last answer to ping (one
# every ~0.4 s under TCG: a ping and 0.2 s of sleep), not at the request.
nl_pinger() { # FILE: gets the wall clock of each answer (microseconds), until killed
  while :; do
    ping -c 1 -W 1 10.9.1.2 >/dev/null 2>&1 && echo "${EPOCHREALTIME/./}" >"$1"
    sleep 0.2
  done
}
nl_until() { # FILE answering|silent: within 60 s, rmpn2 answered in the last 2 s, or not for 2 s
  local end=$((SECONDS + 60)) last d
  while [ $SECONDS -lt $end ]; do
    read -r last <"$1" 2>/dev/null
    if [ -n "$last" ]; then
      d=$(( ${EPOCHREALTIME/./} - last ))
      [ "$2" = answering ] && [ $d -le 2000000 ] && return 0
      [ "$2" = silent ] && [ $d -ge 2000000 ] && return 0
    fi
    sleep 0.2
  done
  return 1
}
# nodeloss_job LABEL report|silent KILL|STOP WINDOW [VAR=VALUE...]
nodeloss_job() {
  local label=$1 want=$2 act=$3 win=$4 log=$LOG/nodeloss-$2.out up=0 t0="" job left
  local what="rmpn2's QEMU being killed"
  [ "$act" = STOP ] && what="rmpn2's QEMU being stopped"
  shift 4
  env "$@" timeout -k 5 300 $L -n 3 "$NL" >"$log" 2>&1 &
  job=$!
  for _ in $(seq 900); do # TCG: launching takes seconds
    [ "$(grep -c '^rank [012]: ready$' "$log")" = 3 ] && { up=1; break; }
    kill -0 $job 2>/dev/null || break
    sleep 0.2
  done
  # Not ready in 180 s (seen once in CI, no output at all; not reproduced): what each node
  # runs, and where it waits, before the job is ended. RMP_RRUN_VERBOSE (set by the
  # callers) has put each rank's init steps in the log.
  [ $up = 1 ] || nl_stuck >"$log.stuck" 2>&1
  local alive=$LOG/alive pinger gone=1 rest missed
  if [ $up = 1 ]; then
    sleep 1 # every rank idle in its call
    : >"$alive"
    nl_pinger "$alive" & pinger=$!
    nl_until "$alive" answering || ko "$label: rmpn2 does not answer ping"
    echo "RMP_CLUSTER_${act}_NODE2"
    if nl_until "$alive" silent; then
      read -r t0 <"$alive"
      rest=$(( win - (${EPOCHREALTIME/./} - t0) / 1000000 ))
      [ $rest -gt 0 ] || rest=0
      t0=$((t0 / 1000000)).$(printf %06d $((t0 % 1000000)))
      nodeloss_wait "$log" "$rest"; missed=$?
      cp "$log" "$log.window"
      if [ $missed != 0 ] && [ "$want" = report ]; then # what was going on; late, or never?
        { echo "-- diagnostics at the window's end"; cat /proc/loadavg; ip neigh show 10.9.1.2
          ps -eo pid,stat,pcpu,etime,comm --sort=-pcpu | head -n 8
          rdma statistic show link rxe0/1 2>&1 | tr ' ' '\n' | paste -sd' ' | head -c 1500; echo
          dmesg 2>/dev/null | tail -n 5
          nodeloss_wait "$log" 30 # the verdict stays the window's
          echo "-- 30 s later:"; grep -E '^rank [01]: (recv|allreduce): ' "$log" || echo "still nothing"
        } >>"$log.window" 2>&1
      fi
      NODELOSS_WINDOW=$win
    else
      gone=0; ko "$label: rmpn2 still answered ping 60 s after the request to the host"
      cp "$log" "$log.window"
    fi
    if [ "$act" = STOP ]; then
      echo "RMP_CLUSTER_CONT_NODE2"
      nl_until "$alive" answering || ko "$label: rmpn2 did not answer ping within 60 s of going on"
      sleep 2 # rmpn2 catches up with its timers
    fi
    kill $pinger 2>/dev/null; wait $pinger 2>/dev/null
  fi
  kill $job 2>/dev/null
  wait $job 2>/dev/null
  # The job's ranks end with it: killed by mpirun, or, when mpirun could not reach rmpn2
  # in timeout's 5 s and got SIGKILL, by themselves on losing its PMIx server.
  local nodes="1 2" end=$((SECONDS + 10))
  [ "$act" = KILL ] && nodes=1 # rmpn2 is gone
  while left=$(nl_left "$nodes") && [ -n "$left" ] && [ $SECONDS -lt $end ]; do sleep 0.5; done
  if [ -n "$left" ]; then
    kill -9 $(pgrep -f "^$NL") 2>/dev/null
    ko "$label: processes left 10 s after the job: $left"
  fi
  if [ $up = 0 ]; then
    ko "$label: the ranks never got ready"
    { tail -n 20 "$log"; cat "$log.stuck"; } | sed 's/^/    /'
    return
  fi
  [ $gone = 1 ] && nodeloss_check "$label" "$want" "$log.window" "$t0" 10 "$what"
}
nodeloss_job "rmpn2 stopped, RMP_FAILURE_TIMEOUT=0" silent STOP 12 RMP_FAILURE_TIMEOUT=0 \
  RMP_RRUN_VERBOSE=1
nodeloss_job "rmpn2 lost (QEMU killed), rank 0 in a receive, rank 1 in an allreduce" report \
  KILL 15 RMP_RRUN_VERBOSE=1
