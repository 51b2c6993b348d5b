/**
 * A synchronous streaming line reader: reads a file in 1 MiB chunks and hands each line with
 * its 1-based number to a callback, which may stop the scan by returning a value. Memory stays
 * O(chunk + longest line), so multi-gigabyte UCI files can be read without loading them.
 *
 * @module
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'

/** Calls `onLine` for each line; stops early and returns the first non-undefined result. */
export const forEachLine = <R>(
  file: string,
  onLine: (line: string, lineNo: number) => R | undefined,
  encoding: BufferEncoding = 'utf8',
): R | undefined => {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.allocUnsafe(1 << 20)
    const dec = new StringDecoder(encoding)
    let rest = ''
    let lineNo = 0
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null)
      const chunk = n > 0 ? rest + dec.write(buf.subarray(0, n)) : rest + dec.end()
      let start = 0
      for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
        const line = chunk.charCodeAt(nl - 1) === 13 ? chunk.slice(start, nl - 1) : chunk.slice(start, nl)
        const r = onLine(line, ++lineNo)
        if (r !== undefined) return r
        start = nl + 1
      }
      rest = chunk.slice(start)
      if (n === 0) {
        if (rest.length > 0) return onLine(rest, ++lineNo)
        return undefined
      }
    }
  } finally {
    closeSync(fd)
  }
}
