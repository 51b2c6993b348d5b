/**
 * Reading an input file with a bound: every file dpaudit reads goes through here, so no input can
 * hang the program or exhaust its memory. A device, FIFO or socket is refused before it is opened
 * (opening a FIFO waits for a writer; /dev/zero never ends); a regular file larger than the bound
 * is refused by its size; the read itself stops at the bound (a file that grows while read is
 * refused too). Text is UTF-8, strictly: an invalid byte is an error naming the file and its
 * offset, never silently replaced. Errors are one line naming the file.
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'

/** The default bound: 512 MiB, above every corpus and model dpaudit ships or writes. */
export const DEFAULT_MAX_INPUT_BYTES = 512 * 1024 * 1024

const errText = (e: unknown): string => {
  const code = (e as NodeJS.ErrnoException).code
  return code === 'ENOENT'
    ? 'no such file'
    : code === 'EISDIR'
      ? 'it is a directory'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : (code ?? String(e))
}

const kindOf = (st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string =>
  st.isDirectory() ? 'it is a directory' : st.isFIFO() ? 'it is a FIFO' : st.isSocket() ? 'it is a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'it is a device' : 'not a regular file'

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 3 : 0)} MiB`

/** Reads the bytes of a regular file of at most `maxBytes`; Left is one line naming the file. */
export const readBoundedBytes = (file: string, maxBytes: number = DEFAULT_MAX_INPUT_BYTES): E.Either<string, Buffer> => {
  const fail = (why: string) => E.left(`${file}: cannot read the file (${why})`)
  try {
    // stat before open: opening a FIFO for reading blocks until someone writes to it
    const st = statSync(file)
    if (!st.isFile()) return fail(`${kindOf(st)}; dpaudit reads regular files only`)
    if (st.size > maxBytes) return fail(`${st.size.toLocaleString('en-US')} bytes, over the limit of ${mib(maxBytes)}`)
  } catch (e) {
    return fail(errText(e))
  }
  let fd: number
  try {
    // O_NONBLOCK: should the path have become a FIFO since the stat, the open does not wait
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (e) {
    return fail(errText(e))
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return fail(`${kindOf(st)}; dpaudit reads regular files only`)
    const chunks: Buffer[] = []
    let total = 0
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total))
      const n = readSync(fd, buf, 0, buf.length, null)
      if (n === 0) break
      chunks.push(buf.subarray(0, n))
      total += n
      if (total > maxBytes) return fail(`it grew past the limit of ${mib(maxBytes)} while read`)
    }
    return E.right(Buffer.concat(chunks, total))
  } catch (e) {
    return fail(errText(e))
  } finally {
    closeSync(fd)
  }
}

/** The offset of the first byte that is not part of well-formed UTF-8, or -1 (the rules of RFC 3629). */
export const firstInvalidUtf8 = (b: Uint8Array): number => {
  const n = b.length
  let i = 0
  while (i < n) {
    const c = b[i] as number
    if (c < 0x80) {
      i++
      continue
    }
    let need: number
    let lo = 0x80
    let hi = 0xbf
    if (c >= 0xc2 && c <= 0xdf) need = 1
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2
      if (c === 0xe0) lo = 0xa0 // no overlong forms
      if (c === 0xed) hi = 0x9f // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3
      if (c === 0xf0) lo = 0x90
      if (c === 0xf4) hi = 0x8f // nothing above U+10FFFF
    } else return i
    if (i + need >= n) return i // cut short by the end of the file
    const first = b[i + 1] as number
    if (first < lo || first > hi) return i
    for (let k = 2; k <= need; k++) {
      const x = b[i + k] as number
      if (x < 0x80 || x > 0xbf) return i
    }
    i += need + 1
  }
  return -1
}

/** Decodes bytes as strict UTF-8 (a leading byte-order mark dropped); Left names the file and the byte offset. */
export const decodeUtf8 = (file: string, bytes: Uint8Array): E.Either<string, string> => {
  const bad = firstInvalidUtf8(bytes)
  if (bad >= 0)
    return E.left(
      `${file}: not UTF-8 at byte ${bad} (0x${(bytes[bad] as number).toString(16).padStart(2, '0')}); convert it (e.g. iconv -f latin1 -t utf-8) and try again`,
    )
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  return E.right(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
}

/** Reads a regular file of at most `maxBytes` as strict UTF-8 text; Left is one line naming the file. */
export const readBoundedText = (file: string, maxBytes: number = DEFAULT_MAX_INPUT_BYTES): E.Either<string, string> => {
  const b = readBoundedBytes(file, maxBytes)
  return E.isLeft(b) ? b : decodeUtf8(file, b.right)
}
