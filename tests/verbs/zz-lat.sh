#!/bin/bash
B=build
L() { awk '!/^#/ && $1 == 8 {print $2}'; }
C=/sys/class/infiniband/rxe0/ports/1/hw_counters
for t in 16 12 8; do
  r0=$(cat $C/completer_retry_err)
  echo "verbs ack timeout $t: $(XEXP_ACK_TIMEOUT=$t RMP_TRANSPORTS=verbs $B/launcher/rrun -n 2 $B/benchmarks/rmp_latency -m 8:8 -i 2000 -x 200 2>&1 | L) us, retries $(( $(cat $C/completer_retry_err) - r0 )), dup $(cat $C/duplicate_request)"
done
r0=$(cat $C/completer_retry_err)
RMP_PERFTEST_VERBOSE=1 RMP_PERFTEST_TESTS="ib_send_lat:8" tests/verbs-vm/perftest-baseline 2>&1 | grep -A2 "t_min"
echo "perftest retries $(( $(cat $C/completer_retry_err) - r0 ))"
