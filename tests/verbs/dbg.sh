#!/bin/bash
for i in 1 2 3; do
build/launcher/rrun --oversubscribe -n 4 --timeout 40 build/tests/p2p/soak 2000 $i > /tmp/out.txt 2>&1 &
sleep 30
for p in $(pgrep -f "build/tests/p2p/soak"); do
  echo "=== pid $p $(cat /proc/$p/wchan)"
  gdb -p $p -batch -ex bt 2>&1 | grep "^#" | head -12
done
wait
grep -v "rank . via" /tmp/out.txt | tail -30
done
