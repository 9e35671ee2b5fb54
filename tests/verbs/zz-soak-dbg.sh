#!/bin/bash
build/launcher/rrun --oversubscribe -n 4 --timeout 40 build/tests/p2p/soak 20000 > /tmp/out.txt 2>&1
grep -v "trace\|via" /tmp/out.txt | tail -30
