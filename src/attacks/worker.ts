/**
 * Worker-thread entry for the audit pool (compiled to dist/attacks/worker.js). It loads the
 * mechanism by reference, then runs `runChunk` on each task it is sent and posts the result,
 * bumping the shared counter the calling thread waits on. All the work is `runChunk`, the same
 * function the in-process executor calls.
 *
 * @module
 */
import { isMainThread, type MessagePort, workerData } from 'node:worker_threads'
import { taskInput, zooMechanism } from './executor.js'
import type { BlackBox } from './output.js'
import type { NeighbourPair } from './pairs.js'
import type { FromWorker, ModuleDescription, ToWorker } from './pool.js'
import { evaluateFamily } from './search.js'
import { runChunk } from './trials.js'

if (isMainThread) throw new Error('attacks/worker is the entry point of audit worker threads; import dpaudit/attacks instead')

const { port, signal: sab, index } = workerData as { port: MessagePort; signal: SharedArrayBuffer; index: number }
const signal = new Int32Array(sab)

const post = (m: FromWorker, transfer: ArrayBuffer[] = []): void => {
  port.postMessage(m, transfer)
  Atomics.add(signal, 0, 1)
  Atomics.notify(signal, 0)
}

process.on('exit', () => {
  Atomics.store(signal, 1 + index, 1)
  Atomics.add(signal, 0, 1)
  Atomics.notify(signal, 0)
})

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

let mechanism: BlackBox<unknown> | null = null
let pairs: ReadonlyArray<NeighbourPair<unknown>> = []

/** Resolves "a.b" on a module namespace. */
const at = (mod: Record<string, unknown>, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined), mod)

const describe = (mod: Record<string, unknown>): ModuleDescription => {
  const host = typeof mod.mechanism === 'function' ? mod : typeof at(mod, 'default.mechanism') === 'function' ? (mod.default as Record<string, unknown>) : mod
  let p = host.pairs
  if (typeof p === 'function') p = [...(p as () => Iterable<unknown>)()]
  return {
    exports: Object.keys(mod),
    pairs: p,
    claim: host.claim,
    name: host.name,
    mechanismExport: typeof mod.mechanism === 'function' ? 'mechanism' : typeof at(mod, 'default.mechanism') === 'function' ? 'default.mechanism' : null,
  }
}

const init = async (m: Extract<ToWorker, { type: 'init' }>): Promise<void> => {
  const ref = m.ref
  if (ref._tag === 'ZooRef') {
    const made = zooMechanism(ref.name, ref.claim)
    if (typeof made === 'string') return post({ type: 'fatal', message: made })
    mechanism = made as BlackBox<unknown>
    return post({ type: 'ready', description: null })
  }
  let mod: Record<string, unknown>
  try {
    mod = (await import(ref.url)) as Record<string, unknown>
  } catch (e) {
    const ts = /\.(c|m)?ts$/.test(ref.url)
    return post({
      type: 'fatal',
      message: `cannot import the module: ${message(e)}${ts ? ' (TypeScript modules need Node ≥ 22.6 with --experimental-strip-types; on Node 20 compile the module to .js first)' : ''}`,
    })
  }
  let description: ModuleDescription | null = null
  if (m.describe) {
    try {
      description = describe(mod)
    } catch (e) {
      return post({ type: 'fatal', message: `reading the module's exports failed: ${message(e)}` })
    }
  }
  const f = at(mod, ref.exportName)
  if (typeof f !== 'function' && !m.describe) return post({ type: 'fatal', message: `${ref.url} has no function export "${ref.exportName}"` })
  if (typeof f === 'function') mechanism = f as BlackBox<unknown>
  try {
    post({ type: 'ready', description })
  } catch (e) {
    post({ type: 'fatal', message: `the module's pairs and claim must be plain data (structured-cloneable): ${message(e)}` })
  }
}

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'init':
      void init(m).catch((e: unknown) => post({ type: 'fatal', message: message(e) }))
      return
    case 'pairs':
      pairs = m.pairs
      return
    case 'task': {
      if (mechanism === null) return post({ type: 'fatal', message: 'internal: task before the mechanism was loaded' })
      try {
        const r = runChunk(m.task, mechanism, taskInput(pairs, m.task))
        const transfer: ArrayBuffer[] = []
        if (r.phase === 'select') transfer.push(r.values.buffer as ArrayBuffer, r.codes.buffer as ArrayBuffer)
        else transfer.push(r.counts.buffer as ArrayBuffer)
        // Shared empty buffers cannot be transferred twice; transfer only non-empty ones.
        post({ type: 'result', result: r }, transfer.filter((b) => b.byteLength > 0))
      } catch (e) {
        post({ type: 'fatal', message: `internal error in a worker: ${message(e)}` })
      }
      return
    }
    case 'fit': {
      try {
        const fit = evaluateFamily(m.job)
        // The cross-fitted scores are fresh arrays: moved, not copied.
        post({ type: 'fitted', id: m.id, fit }, fit?.part !== 'event' ? [] : [fit.event.tune0.buffer as ArrayBuffer, fit.event.tune1.buffer as ArrayBuffer].filter((b) => b.byteLength > 0))
      } catch (e) {
        post({ type: 'fatal', message: `internal error in a worker: ${message(e)}` })
      }
      return
    }
    case 'close':
      port.close()
      return
  }
})
