#!/bin/bash
B=build
L() { awk '!/^#/ && $1 == 8 {print $2}'; }
echo "verbs bind-core: $(RMP_TRANSPORTS=verbs $B/launcher/rrun -n 2 $B/benchmarks/rmp_latency -m 8:8 -i 2000 -x 200 2>&1 | L)"
echo "verbs bind-none: $(RMP_TRANSPORTS=verbs $B/launcher/rrun --bind-to none -n 2 $B/benchmarks/rmp_latency -m 8:8 -i 2000 -x 200 2>&1 | L)"
echo "verbs yield: $(RMP_POLL_YIELD=always RMP_TRANSPORTS=verbs $B/launcher/rrun --bind-to none -n 2 $B/benchmarks/rmp_latency -m 8:8 -i 2000 -x 200 2>&1 | L)"
echo "shm: $(RMP_TRANSPORTS=shm $B/launcher/rrun -n 2 $B/benchmarks/rmp_latency -m 8:8 -i 2000 -x 200 2>&1 | L)"
echo "tcp: $(RMP_TRANSPORTS=tcp $B/launcher/rrun -n 2 $B/benchmarks/rmp_latency -m 8:8 -i 2000 -x 200 2>&1 | L)"
RMP_PERFTEST_TESTS="ib_send_lat:8" tests/verbs-vm/perftest-baseline
