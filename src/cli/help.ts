/**
 * Usage texts of the commands that have no module of their own to keep them (train, evaluate, audit,
 * report and verify export theirs), the version, and how --help is recognised. The command table
 * (./command-table.ts) assembles `dpaudit help` and `dpaudit <command> --help` from them; README.md
 * repeats them.
 *
 * @module
 */
import { readFileSync } from 'node:fs'

export const ACCOUNT_USAGE = `usage: dpaudit account <spec.json> [--delta D ...] [--accountant NAME,... | all] [--orders a,b,...] [--interval H] [--json] [--quiet]
  ε at each δ (default 1e-5) for one spec or an array of specs, per accountant, with the method and the tightest value.
  accountants: rdp, pld, zcdp, basic, advanced, optimal; "all" (the default) and "tightest" both run every one
  and report the tightest. --orders adds the RDP curve at those orders (they are added to the conversion's grid);
  --interval sets the PLD discretisation interval; unset, pld chooses the interval per answer, refining toward a 1e-3
  relative accounting error within a work budget; a grid over 2^22 points is coarsened, not refused.
  An empty array of specs is an error (exit 1).`

export const CALIBRATE_USAGE = `usage: dpaudit calibrate <template.json> --epsilon E --delta D [--accountant NAME | tightest] [--tolerance T] [--json] [--quiet]
  the smallest noise (or largest rate / step count / budget) meeting (ε, δ); the template marks the field with "$param".
  --accountant decides feasibility: one accountant, or "tightest" (the default; "all" means the same): the
  smallest ε of every accountant that answers. --tolerance: relative width of the final bracket (default 1e-6).
  On a terminal a progress line shows the probes (each one accountant run), the rate and the time left; --quiet hides it.`

export const DEMO_USAGE = `usage: dpaudit demo [--json]
  an accounting walkthrough: DP-SGD and the SUB-LDA setting by every accountant, HDP-LDA trained on Brown, a short audit.`

export const WORKER_USAGE = `usage: dpaudit worker --queue redis://HOST:PORT [--concurrency N] [--lock-ms MS] [--exit-when-idle SECONDS] [--quiet]
  runs queued audit chunks (from \`dpaudit audit --queue\`) until SIGINT/SIGTERM (at once), or until idle for
  --exit-when-idle seconds. One chunk at a time per --concurrency (default 1; chunks are CPU-bound: start one
  worker per core). --lock-ms (default 30000): the longest lock; a chunk's lock is 3× the measured chunk time + 1 s, so a chunk
  whose worker dies is re-run elsewhere after a few chunk lengths.
  Logs one line per chunk on stderr unless --quiet.`

export const QUEUE_AUDIT_USAGE = `usage: dpaudit audit <trainer-audit.json> [--runs N] [--seed S] [--epsilon E] [--delta D] [--out FILE] [--json] [--quiet]
       dpaudit audit --queue redis://HOST:PORT <trainer-audit.json | zoo:NAME | module.js> [--trials N] [--seed S]
                     [--epsilon E] [--delta D] [--checkpoint FILE] [--timeout SECONDS] [--idle-timeout SECONDS] [--out FILE] [--json] [--quiet]
  a trainer audit (distinguishing game on LDA training; format in docs/trainer-audits.md) runs in this process;
  with --queue, any audit's chunks go to BullMQ for \`dpaudit worker --queue\` processes on any machines, and the
  answer equals a local run with the same seed, bit for bit. --out is always written (default <name>.audit.json).
  --timeout (default 60): stop, with one line and exit 1, when Redis does not answer for that long (a --checkpoint
  keeps the finished chunks: the same command resumes). --idle-timeout: give up when no chunk finishes for that long.
  rediss:// and redis://:PASSWORD@HOST are accepted; credentials are never printed. Progress on a terminal unless --quiet.
  exit codes: 0 consistent, 3 violation, 4 inconclusive, 1 bad input or Redis unreachable`

/** The package version, from package.json (two folders up from src/cli and from dist/cli). */
export const version = (): string => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string }
    return `${pkg.name ?? 'dpaudit'} ${pkg.version ?? '(unknown version)'}`
  } catch {
    return 'dpaudit (unknown version)'
  }
}

/** Whether argv asks for help: `--help` or `-h` before a `--` terminator. */
export const wantsHelp = (argv: ReadonlyArray<string>): boolean => {
  for (const a of argv) {
    if (a === '--') return false
    if (a === '--help' || a === '-h') return true
  }
  return false
}
