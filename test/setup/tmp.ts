/**
 * vitest globalSetup: the run gets its own temp folder. At setup a fresh folder is made in the
 * system temp folder and TMPDIR points at it; the test workers (and the CLI processes they spawn)
 * inherit that environment, so every `os.tmpdir()` of the run lands in it. At teardown only that
 * folder is removed and TMPDIR restored: nothing of a concurrent run, or of a user, is touched
 * (the earlier teardown removed every new `dpaudit-*` entry of the system temp folder, a
 * concurrent run's included). Test files still remove what they create (afterAll); this catches
 * the ones that do not.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The run folder's name prefix (not `dpaudit-*`, which older teardowns swept). */
export const RUN_PREFIX = 'test-run-dpaudit-'

export interface RunTemp {
  /** The run's own temp folder (TMPDIR while the run lasts). */
  readonly dir: string
  /** Removes the folder and restores TMPDIR. */
  readonly teardown: () => void
}

/** Makes the run's temp folder inside `parent` and points TMPDIR at it. */
export const useRunTemp = (parent: string = tmpdir()): RunTemp => {
  const previous = process.env['TMPDIR']
  const dir = mkdtempSync(join(parent, RUN_PREFIX))
  process.env['TMPDIR'] = dir
  return {
    dir,
    teardown: () => {
      if (previous === undefined) delete process.env['TMPDIR']
      else process.env['TMPDIR'] = previous
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export default function setup(): () => void {
  return useRunTemp().teardown
}
