#!/bin/bash
# The quiet 2-core runs of the session of 28 November 2026 from 10:26 UTC (after the helper stopped).
# Run from the repository root after `npm run build`; each output goes beside this script.
set -u
out=$(dirname "$0")
stamp() { echo "### $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) main $(git rev-parse --short HEAD)"; }
{ stamp; node bench/lda-kernel-contention.mjs --workers 1,2 --rounds 3; stamp; } > "$out/kernel-contention.txt" 2>&1
{ stamp; node bench/lda.bench.mjs --workers 1,2 --rounds 3; stamp; } > "$out/lda-workers-1.txt" 2>&1
{ stamp; node bench/audit.bench.mjs --trials 40000000 --workers 1,2; stamp; } > "$out/audit-40M-1.txt" 2>&1
{ stamp; node bench/lda.bench.mjs --workers 1,2 --rounds 3; stamp; } > "$out/lda-workers-2.txt" 2>&1
{ stamp; node bench/audit.bench.mjs --trials 40000000 --workers 1,2; stamp; } > "$out/audit-40M-2.txt" 2>&1
