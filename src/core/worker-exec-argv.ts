/**
 * The Node flags a worker thread is started with: the parent's (`process.execArgv`), minus those that
 * only make sense for the main script. `--input-type` is rejected for a file entry point and kills the
 * worker while it loads, where nothing has run to report it: a pool waiting for the thread to say it is
 * ready then waits out its whole start-up limit for a message that names no cause (a fit from
 * `node --input-type=module -e …` did, 60 s). `-e`/`-p` and their scripts are the main script itself.
 *
 * @module
 */

/** `process.execArgv` (or `args`) without --input-type, -e/--eval and -p/--print and their values. */
export const workerExecArgv = (args: ReadonlyArray<string> = process.execArgv): string[] => {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string
    if (a.startsWith('--input-type')) {
      if (a === '--input-type') i++
      continue
    }
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') {
      i++
      continue
    }
    out.push(a)
  }
  return out
}
