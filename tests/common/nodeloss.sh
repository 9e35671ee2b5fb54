# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the node-loss checks (tests/multinode/run "linkloss", tests/verbs/cluster-suite.sh
# "node loss"): one set of assertions over tests/multinode/node_loss.c's output, whatever
# made the second host go silent (a veth link cut, a QEMU guest killed or stopped).
# The caller defines ok and ko (one line each) and NODELOSS_SURVIVORS ("0:recv 1:allreduce":
# rank:call of every rank left on the first host).

# nodeloss_wait LOG SECONDS: until every survivor printed its line, at least SECONDS (a
# deadline on the clock: each look forks, which a loaded emulated guest makes slow).
nodeloss_wait() {
    local log=$1 end=$((SECONDS + $2 + 1)) s pat="" n=0
    NODELOSS_WINDOW=$2
    for s in $NODELOSS_SURVIVORS; do pat+="${pat:+|}^rank ${s%%:*}: ${s#*:}: "; n=$((n + 1)); done
    while [ $SECONDS -lt $end ]; do
        [ "$(grep -cE "$pat" "$log")" -ge $n ] && return 0
        sleep 0.2
    done
    return 1
}

# nodeloss_check LABEL report|silent LOG T0 [BOUND] [WHAT]: LOG holds what the ranks said
# until the window closed, T0 the wall clock (date +%s.%N) of the loss. "report": every
# survivor's call returned RMP_ERR_PEER_FAILED within BOUND (10) s of T0; "silent": none
# returned (the detector is off: nothing else may report). WHAT names the loss in the
# verdict ("h2's link going down").
nodeloss_check() {
    local label=$1 want=$2 log=$3 t0=$4 bound=${5:-10} what=${6:-the loss}
    local good=0 bad="" said="" s r call line t1 dt msg
    for s in $NODELOSS_SURVIVORS; do
        r=${s%%:*} call=${s#*:}
        line=$(grep -m1 -E "^rank $r: $call: " "$log")
        t1=$(sed -nE 's/.* at ([0-9.]+)$/\1/p' <<<"$line")
        dt=""; [ -n "$t1" ] && dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}')
        msg=${line#rank $r: }; msg=${msg% at *}
        if [ -n "$line" ]; then said="$said rank $r '$msg' after $dt s;"
        else said="$said rank $r nothing;"; fi
        if [ "$want" = report ] && grep -q "a peer process failed or its connection broke at" <<<"$line" &&
           awk -v d="$dt" -v b="$bound" 'BEGIN{exit !(d >= 0 && d <= b)}'; then
            good=$((good + 1))
        elif [ "$want" = silent ] && [ -z "$line" ]; then
            good=$((good + 1))
        else
            bad="$bad $r"
        fi
    done
    if [ -z "$bad" ] && [ "$want" = report ]; then
        ok "$label: every survivor got RMP_ERR_PEER_FAILED within $bound s of $what:$said"
    elif [ -z "$bad" ]; then
        ok "$label: no survivor reported in ${NODELOSS_WINDOW:-?} s with the detector off (the check above tests rmp)"
    else
        ko "$label: rank(s)$bad:$said"; tail -n 25 "$log" | sed 's/^/    /'
    fi
}
