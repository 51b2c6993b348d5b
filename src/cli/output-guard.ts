/**
 * No input lost to an output: before a command writes, each output path is compared with every
 * input path by what they resolve to on disk (device and inode, so symbolic links, `..` and hard
 * links all count as the same file), and with the other outputs; and each output is locked against
 * another dpaudit process writing it at the same time (two trains with one `--out` would silently
 * replace the first model).
 *
 * The lock is a file beside the output's final target, `.NAME.dpaudit-lock`, created exclusively
 * and holding the writer's pid and host. A lock whose process is gone (same host, no such pid) is
 * stale and taken over; one from another host is never guessed at: the message names the file to
 * remove. Locks are released by the function returned, and at process exit. An output whose folder
 * does not exist yet is not locked (there is nowhere to put the lock, and nothing to lose).
 *
 * @module
 */
import { closeSync, existsSync, openSync, readFileSync, realpathSync, rmSync, statSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { basename, dirname, join, resolve, sep } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { resolveWriteTarget } from '../core/atomic-file.js'

/** A path with what it is to the user: the flag or role that named it (`--corpus`, `the manifest's audit`). */
export interface NamedPath {
  readonly what: string
  readonly path: string
}

/** Device and inode of what `path` resolves to (links followed), or its resolved path when there is nothing there yet. */
const identity = (path: string): string => {
  try {
    const st = statSync(path)
    return `${st.dev}:${st.ino}`
  } catch {
    const t = resolveWriteTarget(path)
    return `path:${E.isRight(t) ? t.right.path : resolve(path)}`
  }
}

/** The real path of a folder (links resolved), or undefined when `path` is not a folder. */
const realFolder = (path: string): string | undefined => {
  try {
    return statSync(path).isDirectory() ? realpathSync(path) : undefined
  } catch {
    return undefined
  }
}

/**
 * The inputs among a command's path-valued flags that name something on disk (`--corpus brown` or
 * `--vocabulary dp` name no file unless one by that name exists): what `refuseOutputOverInput` compares.
 */
export const existingInputs = (flags: Readonly<Record<string, unknown>>): ReadonlyArray<NamedPath> =>
  Object.entries(flags).flatMap(([what, path]) => (typeof path === 'string' && path !== '' && existsSync(path) ? [{ what, path }] : []))

/**
 * Left (one line naming both) when an output resolves to one of the inputs or to another output.
 * Inputs that are not files (`brown`, `zoo:laplace`) may be listed: they match nothing on disk
 * unless a file by that name exists, and then that file is what the command reads.
 */
export const refuseOutputOverInput = (outputs: ReadonlyArray<NamedPath>, inputs: ReadonlyArray<NamedPath>): E.Either<string, void> => {
  const ins = inputs.map((i) => ({ ...i, id: identity(i.path), folder: realFolder(i.path) }))
  const seen: Array<NamedPath & { id: string }> = []
  for (const o of outputs) {
    const id = identity(o.path)
    const hit = ins.find((i) => i.id === id)
    if (hit !== undefined)
      return E.left(`${o.what} ${o.path}: is the same file as ${hit.what} ${hit.path}; writing it would replace the input (choose another output path)`)
    // a folder input (a corpus of files) is read whole: an output inside it would replace or join its documents
    const t = resolveWriteTarget(o.path)
    const where = realFolder(dirname(E.isRight(t) ? t.right.path : resolve(o.path)))
    const inside = where === undefined ? undefined : ins.find((i) => i.folder !== undefined && (where === i.folder || where.startsWith(`${i.folder}${sep}`)))
    if (inside !== undefined) return E.left(`${o.what} ${o.path}: is inside the folder ${inside.what} ${inside.path}, which is read as input (choose a path outside it)`)
    const twice = seen.find((s) => s.id === id)
    if (twice !== undefined) return E.left(`${o.what} ${o.path}: is the same file as ${twice.what} ${twice.path}; give them different paths`)
    seen.push({ ...o, id })
  }
  return E.right(undefined)
}

// ---- locks --------------------------------------------------------------------------------------

const held = new Set<string>()
let exitHook = false
const releaseAllAtExit = (): void => {
  for (const l of held) rmSync(l, { force: true })
  held.clear()
}

/** The lock file of an output: beside its final target (a link's target, not the link). */
export const lockPathOf = (output: string): string => {
  const t = resolveWriteTarget(output)
  const target = E.isRight(t) ? t.right.path : resolve(output)
  return join(dirname(target), `.${basename(target)}.dpaudit-lock`)
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' // exists, owned by someone else
  }
}

const tryCreate = (lock: string): 'created' | 'exists' | string => {
  try {
    const fd = openSync(lock, 'wx', 0o644)
    try {
      writeSync(fd, `${process.pid}\n${hostname()}\n`)
    } finally {
      closeSync(fd)
    }
    return 'created'
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    return code === 'EEXIST' ? 'exists' : (code ?? String(e))
  }
}

/**
 * Locks each output against other dpaudit processes. Right: a function releasing the locks (call
 * it when the outputs are written; it is also run at exit). Left: one line naming the output, the
 * other process and the lock file; nothing stays locked.
 */
export const lockOutputs = (outputs: ReadonlyArray<NamedPath>): E.Either<string, () => void> => {
  const mine: string[] = []
  const release = (): void => {
    for (const l of mine) {
      rmSync(l, { force: true })
      held.delete(l)
    }
    mine.length = 0
  }
  for (const o of outputs) {
    const lock = lockPathOf(o.path)
    if (held.has(lock)) continue // this process already holds it (one command, two roles)
    if (!existsSync(dirname(lock))) continue // a folder still to be made holds nothing another process writes
    let got = tryCreate(lock)
    if (got === 'exists') {
      let pid = NaN
      let host = ''
      try {
        const [p, h] = readFileSync(lock, 'utf8').split('\n')
        pid = Number(p)
        host = h ?? ''
      } catch {
        // vanished or unreadable: tried once more below
      }
      const sameHost = host === hostname()
      if (Number.isInteger(pid) && pid > 0 && (!sameHost || alive(pid))) {
        release()
        return E.left(
          `${o.what} ${o.path}: another dpaudit process (pid ${pid}${sameHost ? '' : ` on ${host}`}) is writing it; wait for it, or remove ${lock} if no such process runs`,
        )
      }
      // stale: its process is gone
      rmSync(lock, { force: true })
      got = tryCreate(lock)
    }
    if (got !== 'created') {
      release()
      return E.left(`${o.what} ${o.path}: cannot lock it for writing (${got === 'exists' ? `${lock} was taken meanwhile by another process` : `${lock}: ${got}`})`)
    }
    mine.push(lock)
    held.add(lock)
  }
  if (!exitHook) {
    exitHook = true
    process.on('exit', releaseAllAtExit)
  }
  return E.right(release)
}

/** Both checks at once: no output over an input, then the locks. Right: the release function. */
export const guardOutputs = (outputs: ReadonlyArray<NamedPath>, inputs: ReadonlyArray<NamedPath>): E.Either<string, () => void> => {
  const clash = refuseOutputOverInput(outputs, inputs)
  return E.isLeft(clash) ? clash : lockOutputs(outputs)
}

/**
 * Runs `body` and releases every lock it took (through `hold`) afterwards, whatever the outcome: the
 * outputs' locks are held for the whole command.
 */
export const holdingLocks = <T>(body: (hold: (release: () => void) => void) => T): T => {
  const releases: Array<() => void> = []
  try {
    return body((release) => releases.push(release))
  } finally {
    for (const release of releases) release()
  }
}
