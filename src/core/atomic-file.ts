/**
 * Atomic file writes for models, corpora, audit results and checkpoints: write a temporary file
 * next to the target, then rename it over the target, so a crash or an error never leaves a
 * partial file behind.
 *
 * - A symbolic link is written through: the temporary file goes next to the link's final target,
 *   which is replaced atomically; the link stays a link.
 * - Directories and special files (devices, FIFOs, sockets) are refused before anything is written:
 *   renaming over `/dev/full` would replace the device with a regular file.
 * - An existing target keeps its permission bits.
 * - Interrupts: Node runs signal listeners only between synchronous tasks, and without a listener
 *   SIGINT/SIGTERM kill the process at once, mid-write, leaving the temporary file. While a
 *   temporary file exists a listener is installed, so an interrupt is taken once the write has
 *   finished (the file is then whole); the listener removes any temporary file still registered
 *   and re-raises the signal, so the process ends as the user asked. The listener is removed a
 *   little later (250 ms, once the event loop runs; removing it at once, or on the next
 *   setImmediate, drops a signal caught during the write). Until then an interrupt waits for the
 *   running synchronous work: callers that write often in the middle of long synchronous work
 *   (audit checkpoints) pass `{ deferSignals: false }` and keep the default, immediate,
 *   termination at the price of a possible small temporary file.
 *
 * @module
 */
import { chmodSync, lstatSync, readlinkSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from './error.js'

/** What is at a path we are about to write: where the bytes go, and the mode to keep. */
export interface WriteTarget {
  /** The path actually replaced (a symbolic link's final target, or the path itself). */
  readonly path: string
  /** Permission bits of the existing file, if any. */
  readonly mode: number | undefined
}

const errCode = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? String(e)

/**
 * Resolves where a write to `file` lands, following symbolic links (also dangling ones), and
 * refuses a directory or a special file. Pure apart from reading the file system.
 */
export const resolveWriteTarget = (file: string): E.Either<string, WriteTarget> => {
  let path = resolve(file)
  for (let hops = 0; ; hops++) {
    let st
    try {
      st = lstatSync(path)
    } catch (e) {
      if (errCode(e) === 'ENOENT') return E.right({ path, mode: undefined })
      return E.left(`cannot inspect the path (${errCode(e)})`)
    }
    if (st.isSymbolicLink()) {
      if (hops >= 40) return E.left('too many levels of symbolic links')
      try {
        // Prefer the fully resolved path; a dangling link resolves one hop at a time.
        path = realpathSync(path)
        continue
      } catch {
        path = resolve(dirname(path), readlinkSync(path))
        continue
      }
    }
    if (st.isDirectory()) return E.left('it is a directory')
    if (!st.isFile())
      return E.left(
        `it is a special file (${st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a regular file'}); dpaudit writes regular files only`,
      )
    return E.right({ path, mode: st.mode & 0o7777 })
  }
}

// ---- temporary files and interrupts ------------------------------------------------------------

const pending = new Set<string>()
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
let installed = false
let removal: NodeJS.Timeout | undefined
const REMOVE_AFTER_MS = 250

const removePending = (): void => {
  for (const p of pending) rmSync(p, { force: true })
  pending.clear()
}

const onSignal = (signal: NodeJS.Signals): void => {
  removePending()
  uninstall()
  // Re-raise only when nobody else listens: then the default action (termination) is what the
  // user asked for. With other listeners, the signal is theirs to handle.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}

const onExit = (): void => removePending()

const install = (): void => {
  if (removal !== undefined) {
    clearTimeout(removal)
    removal = undefined
  }
  if (installed) return
  installed = true
  for (const s of SIGNALS) process.on(s, onSignal)
  process.on('exit', onExit)
}

function uninstall(): void {
  if (!installed) return
  installed = false
  for (const s of SIGNALS) process.removeListener(s, onSignal)
  process.removeListener('exit', onExit)
}

const scheduleUninstall = (): void => {
  if (pending.size > 0 || removal !== undefined) return
  removal = setTimeout(() => {
    removal = undefined
    if (pending.size === 0) uninstall()
  }, REMOVE_AFTER_MS)
  removal.unref()
}

/** Temporary files being written now (for tests and diagnostics). */
export const pendingTemporaryFiles = (): ReadonlyArray<string> => [...pending]

export interface WriteOptions {
  /** Take SIGINT/SIGTERM/SIGHUP after the write rather than during it (default true; see the module comment). */
  readonly deferSignals?: boolean
}

/** Writes `content` to `file` atomically (see the module comment). */
export const writeFileAtomic = (file: string, content: string | Uint8Array, options: WriteOptions = {}): E.Either<DpError, void> => {
  const defer = options.deferSignals !== false
  const target = resolveWriteTarget(file)
  if (E.isLeft(target)) return E.left(invalidParameter(file, file, `cannot write the file: ${target.left}`))
  const { path, mode } = target.right
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`)
  if (defer) {
    pending.add(tmp)
    install()
  }
  try {
    writeFileSync(tmp, content, mode === undefined ? {} : { mode })
    if (mode !== undefined) chmodSync(tmp, mode)
    renameSync(tmp, path)
    return E.right(undefined)
  } catch (e) {
    rmSync(tmp, { force: true })
    return E.left(invalidParameter(file, file, `cannot write the file (${errCode(e)})`))
  } finally {
    if (defer) {
      pending.delete(tmp)
      scheduleUninstall()
    }
  }
}

