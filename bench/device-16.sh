#!/usr/bin/env bash
# Issues 23 and 27's 16-core measurements in one run on the lent device machine (15 minutes of device time a session,
# all tries together: this takes about 6). Build and pack here first:
#
#   npm run build && bash ../shared/tools/device-bundle.sh
#
# then the device tool's `run` with carry [".device-bundle", "data"], timeout_s 540, and the command
#
#   bash bench/device-16.sh
#
# Each bench runs under its own time limit and appends to its file under $OUT (what comes back); a bench that runs out
# of time leaves what it printed. The per-core probes are skipped (about 35 s per probe on 16 CPUs); every ratio is
# against its baseline in the same run. Copy $OUT into bench/results/<date>-16-cores-<commit>/ with a README.
set -u
source .device-bundle/enter.sh
cp -r data "$DPAUDIT/" 2>/dev/null
cd "$DPAUDIT"
r() { local f=$1 lim=$2; shift 2; { echo "### $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $*"; timeout "$lim" "$@" 2>&1; echo "### rc $? at $(date -u +%T)"; } >> "$OUT/$f"; }
{ nproc; node --version; lscpu | grep -E "^(CPU\(s\)|Thread|Core|Socket|Model name|NUMA|L3)"; cat /sys/fs/cgroup/cpu.max 2>/dev/null; } > "$OUT/machine.txt" 2>&1
# The benches run what dpaudit runs: worker threads compile their hot code on their own thread (src/cli/worker-compilation.ts);
# audit.bench's section 2c also runs V8's default (background compiles, --concurrent-compile) in a child at 16 workers.
# issue 23: the 40 M-trial audit at 1…16 workers (×12 at 16), with the fits, the pool start and the serial part apart
r audit.txt 170 node bench/audit.bench.mjs --trials 40000000 --workers 1,2,4,8,16 --core-probe-trials 0 --reps 2
# issue 27: the private trainers at 1…16 workers, and the sweep kernel alone
r lda-workers.txt 100 node bench/lda.bench.mjs --workers 1,2,4,8,16 --quick --rounds 2 --core-probe 0
r lda-kernel.txt 60 node bench/lda-kernel-contention.mjs --workers 1,2,4,8,16 --rounds 2 --sweeps 10
ls -la "$OUT"
