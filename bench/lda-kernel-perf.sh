#!/usr/bin/env bash
# Where the private sweep's WebAssembly kernel spends its time, by ranges of its machine code (issue 27).
# Runs three 1-worker HDP-LDA fits (Brown, K = 50, 60 iterations, node:crypto) under `perf record`
# with V8's jitdump (`--perf-prof`), injects the JIT code (`perf inject --jit`) and prints the
# process's hottest symbols, then the kernel's (`wasm-function[1]`, the sweep) samples summed over
# 64-byte ranges of its machine code and its hottest instructions. Read the ranges against
# `perf annotate` of the same data (the command is printed): the mass's loop, the scan's chain and the list's
# moves are told apart by their instructions.
# Where the VM exposes no hardware counters (this project's 2-core machines), the event is the
# software clock (cpu-clock): a sample lands a few instructions after the one that waited, so
# read ranges, not single instructions.
#
#   npm run build && bash bench/lda-kernel-perf.sh [out-dir]     (needs perf: apt-get install linux-perf)
# It writes into out-dir (default: a new temporary folder) and, as `perf inject --jit` does, into ~/.debug.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
command -v perf >/dev/null || { echo "perf not found: apt-get install linux-perf" >&2; exit 2; }
[ -f "$here/dist/trainers/index.js" ] || { echo "dist/ missing: npm run build first" >&2; exit 2; }
out=${1:-$(mktemp -d)}
mkdir -p "$out"
cd "$out"
cat > fit.mjs <<'EOF'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
const at = (file) => import(pathToFileURL(join(process.env.DPAUDIT_DIST, file)).href)
const M = await at('trainers/index.js'), R = await at('core/rng.js')
const data = M.loadDataset('brown').right
for (let r = 0; r < 3; r++) M.hdpLda.fit(data.train, { topics: 50, iterations: 60, alpha: 0.1, beta: 0.01, epsilonL: 1, clip: 100, noise: 'fresh' }, R.secure(), { logLikelihoodEvery: 0, workers: 1 })
EOF
# the hardware's cycles where the machine counts them, else the software clock
event=cpu-clock
if perf stat -e cycles true >/dev/null 2>&1 && ! perf stat -e cycles true 2>&1 | grep -q 'not supported'; then event=cycles; fi
echo "event: $event; output in $out"
DPAUDIT_DIST="$here/dist" perf record -q -e "$event" -F 4000 -k mono -o perf.data node --perf-prof --perf-prof-unwinding-info --no-concurrent-recompilation fit.mjs
perf inject --jit -i perf.data -o perf.jit.data
echo; echo "hottest symbols of the process:"
perf report -i perf.jit.data --stdio --sort sym 2>/dev/null > symbols.txt
grep -v '^#' symbols.txt | grep -v '^$' | sed -n 1,12p
kernel=$(grep -o 'JS:wasm-function\[1\][^ ]*' symbols.txt | sed -n 1p)
[ -n "$kernel" ] || { echo "no samples in the kernel (wasm-function[1])" >&2; exit 1; }
perf annotate -i perf.jit.data --stdio -s "$kernel" 2>/dev/null > kernel.txt
echo; echo "the kernel ($kernel): % of its samples by 64-byte range of its code, and its ten hottest instructions"
node -e '
const rows = require("fs").readFileSync("kernel.txt", "utf8").split("\n")
  .map((l) => /^\s+([0-9.]+)\s+:\s+([0-9a-f]+):\s+(.*)$/.exec(l)).filter(Boolean)
  .map((m) => ({ pct: Number(m[1]), at: parseInt(m[2], 16), text: m[3].trim() }))
const ranges = new Map()
for (const r of rows) ranges.set(r.at >> 6, (ranges.get(r.at >> 6) ?? 0) + r.pct)
for (const [k, v] of [...ranges].sort((a, b) => a[0] - b[0])) if (v >= 0.5) console.log(`  ${(k << 6).toString(16).padStart(5)}  ${v.toFixed(2).padStart(6)} %`)
console.log("")
for (const r of [...rows].sort((a, b) => b.pct - a.pct).slice(0, 10)) console.log(`  ${r.at.toString(16).padStart(5)}  ${r.pct.toFixed(2).padStart(6)} %  ${r.text.slice(0, 70)}`)
'
echo; echo "the whole annotation: perf annotate -i $out/perf.jit.data --stdio -s '$kernel'"
