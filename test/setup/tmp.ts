/**
 * vitest globalSetup: whatever `dpaudit-*` entries a test run leaves in the system temp folder are
 * removed at the end of the run. The listing is recorded at setup, so only entries created during
 * the run are touched (another run's, or a user's, stay). Test files should still clean up after
 * themselves (afterAll); this catches the ones that do not.
 */
import { readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const PREFIX = 'dpaudit-'

/** The `dpaudit-*` entries of a folder. */
export const listTemp = (dir = tmpdir()): ReadonlySet<string> => {
  try {
    return new Set(readdirSync(dir).filter((n) => n.startsWith(PREFIX)))
  } catch {
    return new Set()
  }
}

/** Removes the `dpaudit-*` entries of `dir` that are not in `before`; returns their names. */
export const removeNewTemp = (before: ReadonlySet<string>, dir = tmpdir()): ReadonlyArray<string> => {
  const removed: string[] = []
  for (const name of listTemp(dir))
    if (!before.has(name)) {
      rmSync(join(dir, name), { recursive: true, force: true })
      removed.push(name)
    }
  return removed
}

export default function setup(): () => void {
  const before = listTemp()
  return () => {
    removeNewTemp(before)
  }
}
