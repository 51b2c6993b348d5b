#!/bin/bash
# every 30 s (the first two samples 6 s and 32 s apart): ./xorshift 20M pinned to CPU 0 then CPU 1; log time, load, wall/cpu ms
end=$(( $(date +%s) + ${1:-1800} ))
while [ $(date +%s) -lt $end ]; do
  a=$(taskset -c 0 ./xorshift 20000000 2>/dev/null); b=$(taskset -c 1 ./xorshift 20000000 2>/dev/null)
  echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg) cpu0 $a cpu1 $b"
  sleep 30
done
