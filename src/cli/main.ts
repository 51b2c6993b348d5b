#!/usr/bin/env node
/**
 * The dpaudit executable: the only place that prints and sets the exit code.
 *
 * A reader that closes the pipe early (`dpaudit account many.json | head -1`) ends the command
 * quietly: EPIPE on stdout or stderr exits with the command's code and no stack trace.
 *
 * @module
 */
import { writeSync } from 'node:fs'
import { dispatch } from './command-table.js'
import type { CommandResult } from './commands/result.js'
import { compileWorkersInThread } from './worker-compilation.js'

// before any command starts a worker thread: each compiles its own hot code (worker-compilation.ts)
compileWorkersInThread()

const quietOnClosedPipe = (stream: NodeJS.WriteStream): void => {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit()
    throw e
  })
}
quietOnClosedPipe(process.stdout)
quietOnClosedPipe(process.stderr)

const finish = (result: CommandResult): void => {
  process.exitCode = result.code
  if (result.stdout !== undefined) process.stdout.write(`${result.stdout}\n`)
  if (result.stderr !== undefined) process.stderr.write(`${result.stderr}\n`)
}

/** Output written as a command goes, synchronously so a closed pipe is seen at once (EPIPE): the
 * command is told the reader is gone and stops its work. */
const stdoutSink = (chunk: string): boolean => {
  let buf = Buffer.from(chunk)
  while (buf.length > 0) {
    try {
      buf = buf.subarray(writeSync(1, buf))
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'EAGAIN') continue // a non-blocking pipe that is full: try again
      if (code === 'EPIPE') return false
      throw e
    }
  }
  return true
}

const outcome = dispatch(process.argv.slice(2), { stdout: stdoutSink })
if (outcome instanceof Promise) void outcome.then(finish)
else finish(outcome)
