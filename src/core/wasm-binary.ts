/**
 * Assembling small WebAssembly modules byte by byte (WebAssembly Core Specification 2.0, §5 "Binary
 * Format"): LEB128 integers (§5.2.2), vectors and sections (§5.1.3, §5.5.2), the instructions the
 * hand-written kernels use (§5.4, opcodes as listed there) and a one-function module that imports
 * its memory as env.memory. Code is written as nested arrays of bytes, flattened once.
 *
 * @module
 */

/** Instruction bytes, nested freely. */
export type Code = ReadonlyArray<number | Code>

export const uleb = (n: number): number[] => {
  const out: number[] = []
  do {
    let b = n & 0x7f
    n >>>= 7
    if (n !== 0) b |= 0x80
    out.push(b)
  } while (n !== 0)
  return out
}
export const sleb = (n: number): number[] => {
  const out: number[] = []
  for (;;) {
    const b = n & 0x7f
    n >>= 7
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b]
    out.push(b | 0x80)
  }
}
export const name = (s: string): number[] => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))]
export const vec = (items: ReadonlyArray<ReadonlyArray<number>>): number[] => [...uleb(items.length), ...items.flat()]
export const section = (id: number, content: ReadonlyArray<number>): number[] => [id, ...uleb(content.length), ...content]
export const f64Bytes = (x: number): number[] => {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, x, true) // the binary format is little-endian whatever the platform
  return Array.from(new Uint8Array(view.buffer))
}
export const flatten = (code: Code): number[] => code.flat(Infinity as 1) as number[]

/** Value types (§5.3.1). */
export const I32 = 0x7f
export const F64 = 0x7c
export const V128 = 0x7b

/** A SIMD instruction (§5.4.8): the 0xfd prefix, the opcode as a LEB128, its immediates. */
const simd = (code: number, ...imm: number[]): number[] => [0xfd, ...uleb(code), ...imm]

/** Instructions (§5.4); memory immediates are (log2 alignment, offset). */
export const op = {
  get: (i: number): number[] => [0x20, ...uleb(i)],
  set: (i: number): number[] => [0x21, ...uleb(i)],
  tee: (i: number): number[] => [0x22, ...uleb(i)],
  i32: (n: number): number[] => [0x41, ...sleb(n)],
  f64c: (x: number): number[] => [0x44, ...f64Bytes(x)],
  br: (depth: number): number[] => [0x0c, ...uleb(depth)],
  brIf: (depth: number): number[] => [0x0d, ...uleb(depth)],
  f64LoadAt: (offset: number): number[] => [0x2b, 3, ...uleb(offset)],
  BLOCK: [0x02, 0x40],
  LOOP: [0x03, 0x40],
  IF: [0x04, 0x40],
  ELSE: [0x05],
  END: [0x0b],
  i32Load: [0x28, 2, 0],
  f64Load: [0x2b, 3, 0],
  i32Store: [0x36, 2, 0],
  i32Load8U: [0x2d, 0, 0],
  call: (f: number): number[] => [0x10, ...uleb(f)],
  f64Store: [0x39, 3, 0],
  I32_EQZ: [0x45],
  I32_EQ: [0x46],
  I32_NE: [0x47],
  I32_LT_S: [0x48],
  I32_LT_U: [0x49],
  I32_GT_S: [0x4a],
  I32_LE_S: [0x4c],
  I32_GE_S: [0x4e],
  I32_GE_U: [0x4f],
  F64_LT: [0x63],
  F64_LE: [0x65],
  F64_GE: [0x66],
  I32_ADD: [0x6a],
  I32_SUB: [0x6b],
  I32_MUL: [0x6c],
  I32_AND: [0x71],
  I32_OR: [0x72],
  I32_XOR: [0x73],
  I32_SHL: [0x74],
  I32_SHR_S: [0x75],
  I32_SHR_U: [0x76],
  I32_ROTL: [0x77],
  F64_NEG: [0x9a],
  F64_ADD: [0xa0],
  F64_SUB: [0xa1],
  F64_MUL: [0xa2],
  F64_DIV: [0xa3],
  F64_CONVERT_I32_S: [0xb7],
  F64_CONVERT_I32_U: [0xb8],
  // 128-bit SIMD (§5.4.8: prefix 0xfd, then the opcode as a LEB128)
  v128LoadAt: (offset: number): number[] => simd(0x00, 3, ...uleb(offset)),
  v128StoreAt: (offset: number): number[] => simd(0x0b, 3, ...uleb(offset)),
  f64x2Lane: (l: number): number[] => simd(0x21, l),
  V128_LOAD: simd(0x00, 3, 0),
  V128_STORE: simd(0x0b, 3, 0),
  V128_ZERO: simd(0x0c, ...new Array<number>(16).fill(0)),
  F64X2_SPLAT: simd(0x14),
  F64X2_ADD: simd(0xf0),
  F64X2_MUL: simd(0xf2),
  F64X2_PMIN: simd(0xf6),
  F64X2_PMAX: simd(0xf7),
  F64_MIN: [0xa4],
  F64_MAX: [0xa5],
}

/** A function body (§5.5.13): local declarations as (count, type) runs, then the code (ending in END). */
export const body = (locals: ReadonlyArray<readonly [number, number]>, code: Code): number[] => [...vec(locals.map(([n, t]) => [...uleb(n), t])), ...flatten(code)]

/** A function the module imports from env (its index is 0; the module's own functions are then 1, 2, …). */
export interface ImportedFunction {
  readonly name: string
  readonly params: ReadonlyArray<number>
  readonly results: ReadonlyArray<number>
}

/** One function of a module: exported under `exported`, of parameter types `params` and no result. */
export interface ModuleFunction {
  readonly exported: string
  readonly params: ReadonlyArray<number>
  readonly body: ReadonlyArray<number>
}

/** The largest memory a module may import, in 64 KiB pages (4 GiB: all of wasm32). */
const MAX_PAGES = 65536

/**
 * A module with the given functions, each exported; it imports its memory (at least one page) as
 * env.memory and, when given, one function as env.<name> (called with `op.call(0)`). `sharedMemory`:
 * the memory it imports is a shared one (`sharedMemory` below, used by several threads' instances at once).
 */
export const functionsModule = (functions: ReadonlyArray<ModuleFunction>, imported?: ImportedFunction, sharedMemory = false): Uint8Array => {
  const n = functions.length
  const own = functions.map((f) => [0x60, ...vec(f.params.map((t) => [t])), 0])
  const types = imported === undefined ? own : [...own, [0x60, ...vec(imported.params.map((t) => [t])), ...vec(imported.results.map((t) => [t]))]]
  // memory limits (§5.3.8): 0x00 min; 0x03 min, max, shared (the threads proposal, in V8 since 2019)
  const limits = sharedMemory ? [0x03, ...uleb(1), ...uleb(MAX_PAGES)] : [0x00, 0x01]
  const imports = [[...name('env'), ...name('memory'), 0x02, ...limits], ...(imported === undefined ? [] : [[...name('env'), ...name(imported.name), 0x00, ...uleb(n)]])]
  const first = imported === undefined ? 0 : 1
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(2, vec(imports)),
    ...section(3, vec(functions.map((_, i) => uleb(i)))),
    ...section(7, vec(functions.map((f, i) => [...name(f.exported), 0x00, ...uleb(first + i)]))),
    ...section(10, vec(functions.map((f) => [...uleb(f.body.length), ...f.body]))),
  ])
}

/** A module with one function `exported` (`functionsModule` of that one). */
export const functionModule = (exported: string, params: ReadonlyArray<number>, functionBody: ReadonlyArray<number>, imported?: ImportedFunction): Uint8Array =>
  functionsModule([{ exported, params, body: functionBody }], imported)

// Structured code over i32/f64 arrays whose byte addresses are in locals (parameters), for the kernels' loops.
const { get, set, i32 } = op
/** Byte address of element `index` (code leaving an i32) of the i32/f64 array at local `base`. */
export const at4 = (base: number, index: Code): Code => [get(base), index, i32(2), op.I32_SHL, op.I32_ADD]
export const at8 = (base: number, index: Code): Code => [get(base), index, i32(3), op.I32_SHL, op.I32_ADD]
export const ld = (base: number, index: Code): Code => [at4(base, index), op.i32Load]
export const st = (base: number, index: Code, value: Code): Code => [at4(base, index), value, op.i32Store]
export const ldf = (base: number, index: Code): Code => [at8(base, index), op.f64Load]
export const stf = (base: number, index: Code, value: Code): Code => [at8(base, index), value, op.f64Store]
export const f64Of = (value: Code): Code => [value, op.F64_CONVERT_I32_S]
/** while (cond) { body }: `cond` leaves an i32; at the top level of `body`, br(0) continues and br(1) breaks. */
export const whileLoop = (cond: Code, ...loopBody: Code[]): Code => [op.BLOCK, op.LOOP, cond, op.I32_EQZ, op.brIf(1), ...loopBody, op.br(0), op.END, op.END]
/** for (v = from; v < to; v++) { body } */
export const forRange = (v: number, from: Code, to: Code, ...loopBody: Code[]): Code => [from, set(v), whileLoop([get(v), to, op.I32_LT_S], ...loopBody, [get(v), i32(1), op.I32_ADD, set(v)])]

/** The part of the WebAssembly JS API the kernels use (lib "ES2022" does not declare it). */
interface WasmApi {
  readonly Memory: new (d: { initial: number; maximum?: number; shared?: boolean }) => { readonly buffer: ArrayBuffer }
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (m: object, imports: object) => { readonly exports: Record<string, unknown> }
  readonly validate: (bytes: Uint8Array) => boolean
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly

/** The compiled module, or undefined where this runtime has no WebAssembly or does not validate `bytes` (no SIMD, say). */
export const compileModule = (bytes: Uint8Array): object | undefined => (wasm !== undefined && wasm.validate(bytes) ? new wasm.Module(bytes) : undefined)

/**
 * An instance of a `functionsModule` on its own zeroed memory of at least `bytes` (whole 64 KiB pages),
 * with that memory's buffer and its exports; undefined without WebAssembly or a module. `imports` are
 * its env functions besides the memory.
 */
export const instantiateModule = (module: object | undefined, bytes: number, imports: Record<string, unknown> = {}): { readonly buffer: ArrayBuffer; readonly exports: Record<string, unknown> } | undefined => {
  if (wasm === undefined || module === undefined) return undefined
  const memory = new wasm.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) })
  return { buffer: memory.buffer, exports: new wasm.Instance(module, { env: { ...imports, memory } }).exports }
}

/** A WebAssembly memory of at least `bytes` (whole pages), shared between threads (its buffer a SharedArrayBuffer; post it to a worker); undefined where it cannot be had. */
export const sharedMemory = (bytes: number): object | undefined => {
  if (wasm === undefined) return undefined
  const pages = Math.max(1, Math.ceil(bytes / 65536))
  if (pages > MAX_PAGES) return undefined
  try {
    return new wasm.Memory({ initial: pages, maximum: pages, shared: true })
  } catch {
    return undefined
  }
}

/** An instance of a `functionsModule` built with `sharedMemory` on `memory` (a `sharedMemory`): its buffer and exports. */
export const instantiateShared = (module: object | undefined, memory: object, imports: Record<string, unknown> = {}): { readonly buffer: ArrayBuffer; readonly exports: Record<string, unknown> } | undefined => {
  if (wasm === undefined || module === undefined) return undefined
  return { buffer: (memory as { buffer: ArrayBuffer }).buffer, exports: new wasm.Instance(module, { env: { ...imports, memory } }).exports }
}

/** `instantiateModule` of a one-function module: the memory's buffer and its export `exported`. */
export const instantiateOnMemory = <F>(module: object | undefined, bytes: number, exported: string, imports: Record<string, unknown> = {}): { readonly buffer: ArrayBuffer; readonly run: F } | undefined => {
  const w = instantiateModule(module, bytes, imports)
  return w === undefined ? undefined : { buffer: w.buffer, run: w.exports[exported] as F }
}
