/**
 * `dpaudit worker --queue redis://…`: runs queued audit chunks (mechanism and trainer audits) until
 * stopped or, with `--exit-when-idle`, until no chunk has arrived for that long. Start one per core,
 * on as many machines as reach the Redis server.
 *
 * SIGINT or SIGTERM ends the worker at once (issue 23): between chunks it disconnects and exits
 * within a second; during a chunk (synchronous, so no handler could run) no handler is installed
 * and the signal's default action ends the process — the chunk's lock then expires (a few chunk
 * lengths, queue/worker.ts) and another worker runs it. Logs never show the URL's credentials.
 *
 * @module
 */
import { parseArgs } from 'node:util'
import { startQueueWorker } from '../../attacks/queue/worker.js'
import { type CommandResult, EXIT } from './result.js'
import { pingRedis, redactUrl } from '../../attacks/queue/redis.js'
import { WORKER_USAGE, wantsHelp } from '../help.js'

const positiveInt = (name: string, raw: string | undefined, fallback: number): number | string => {
  if (raw === undefined) return fallback
  const x = Number(raw)
  return Number.isInteger(x) && x >= 1 ? x : `--${name}: "${raw}" is not a positive integer`
}

export const runWorker = async (args: ReadonlyArray<string>): Promise<CommandResult> => {
  if (wantsHelp(args)) return { code: EXIT.ok, stdout: WORKER_USAGE }
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      queue: { type: 'string' },
      concurrency: { type: 'string' },
      'lock-ms': { type: 'string' },
      'exit-when-idle': { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  })
  if (values.queue === undefined || positionals.length > 0) return { code: EXIT.input, stderr: WORKER_USAGE }
  const concurrency = positiveInt('concurrency', values.concurrency, 1)
  const lockMs = positiveInt('lock-ms', values['lock-ms'], 30_000)
  const idle = values['exit-when-idle'] === undefined ? undefined : Number(values['exit-when-idle'])
  for (const v of [concurrency, lockMs]) if (typeof v === 'string') return { code: EXIT.input, stderr: v }
  if (idle !== undefined && !(idle > 0)) return { code: EXIT.input, stderr: `--exit-when-idle: "${values['exit-when-idle']}" is not a positive number of seconds` }
  const unreachable = await pingRedis(values.queue)
  if (unreachable !== null) return { code: EXIT.input, stderr: `--queue: ${unreachable}` }
  const log = (s: string): void => {
    if (!values.quiet) process.stderr.write(`worker ${process.pid}: ${s}\n`)
  }
  let stop: () => void = () => undefined
  const signals = ['SIGINT', 'SIGTERM'] as const
  const listen = (): void => {
    for (const s of signals) process.on(s, stop)
  }
  const unlisten = (): void => {
    for (const s of signals) process.removeListener(s, stop)
  }
  const worker = startQueueWorker(values.queue, {
    concurrency: concurrency as number,
    lockMs: lockMs as number,
    // during a chunk a signal takes its default action (the process ends at once; the chunk is retried)
    guard: (compute) => {
      unlisten()
      try {
        return compute()
      } finally {
        listen()
      }
    },
    onEvent: (e) =>
      log(e.kind === 'started' ? `started ${e.job} (lock ${e.lockMs} ms)` : e.kind === 'finished' ? `finished ${e.job} (${e.runs} runs, ${e.ms} ms)` : `failed ${e.job}: ${e.error}`),
  })
  const startCpu = process.cpuUsage()
  log(`waiting for chunks on ${redactUrl(values.queue)} (start-up cpu ${((startCpu.user + startCpu.system) / 1e6).toFixed(2)} s)`)
  let timer: NodeJS.Timeout | undefined
  let signalled = false
  await new Promise<void>((resolve) => {
    stop = () => {
      signalled = true
      resolve()
    }
    listen()
    if (idle !== undefined) timer = setInterval(() => worker.idleMs() > idle * 1000 && !worker.busy() && resolve(), 100)
  })
  clearInterval(timer)
  // a second signal while closing is not swallowed: the default handler ends the process
  unlisten()
  stop = () => undefined
  // on a signal, do not wait for BullMQ's blocking call to return: close within a second whatever happens
  if (signalled) {
    await Promise.race([worker.close(true), new Promise((r) => setTimeout(r, 600).unref())])
    // a connection still closing must not keep the process: end it shortly after the result is written
    setTimeout(() => process.exit(), 300).unref()
  } else await worker.close()
  const cpu = process.cpuUsage()
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  return values.quiet ? { code: EXIT.ok } : { code: EXIT.ok, stderr: `worker ${process.pid}: stopped after ${worker.finished()} chunks (cpu ${cpuSeconds.toFixed(2)} s)` }
}
