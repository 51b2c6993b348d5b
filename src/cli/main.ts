#!/usr/bin/env node
/**
 * The dpaudit executable: the only place that prints and sets the exit code.
 *
 * @module
 */
import { runSafely } from './run.js'

const result = runSafely(process.argv.slice(2))
if (result.stdout !== undefined) process.stdout.write(`${result.stdout}\n`)
if (result.stderr !== undefined) process.stderr.write(`${result.stderr}\n`)
process.exitCode = result.code
