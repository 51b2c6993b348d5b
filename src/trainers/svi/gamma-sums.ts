/**
 * The inner loop of the online-VB E-step (./ovb.ts), one γ iteration over a document's m×K block
 * b of e^{E ln β} rows (scikit-learn's `_update_doc_distribution`, Hoffman et al. 2010 eq. (2)–(3)
 * with φ implicit):
 *   norm_j = Σ_k t_k·b_jk + 1e-100,   acc_k = Σ_j (c_j/norm_j)·b_jk,   t = e^{E ln θ}.
 * Two kernels computing the same sums, in different association orders only:
 *
 * - `gammaSumsJs`, eight words at a time on Float64Arrays (stride K);
 * - a WebAssembly kernel using 128-bit SIMD (two f64 lanes, four words at a time), on rows padded to
 *   an even stride Kp = K + (K mod 2) whose padding column is 0 in t and b. No bounds checks inside
 *   it. In a micro-benchmark on Brown-sized blocks (m = 390 distinct words, K = 20 and 50) the
 *   JavaScript kernel ran 1.7–2.4 ns per (word, topic) and this one 0.44–0.55 with four words per
 *   step (two: 0.52–0.59, eight: 0.46–0.9, so four is compiled); whole batch-VB passes on Brown ran
 *   ×2.0–3.3 faster (bench/svi.bench.mjs part 1b).
 *
 * The module is assembled here byte by byte (WebAssembly Core Specification 2.0, §5 "Binary
 * Format"; SIMD opcodes §5.4.8), 0.8 kB, compiled once at load. Where WebAssembly or its SIMD
 * proposal is unavailable, `wasmGammaSums` returns undefined and ./ovb.ts uses `gammaSumsJs`.
 *
 * @module
 */
import { I32, V128, compileModule, functionModule, instantiateOnMemory, op, uleb, vec } from '../../core/wasm-binary.js'

/**
 * acc_k = Σ_j (c_j/norm_j)·b_jk with norm_j = Σ_k t_k·b_jk + 1e-100, over the m×K block b (stride
 * K), eight words at a time: eight independent normaliser sums share each load of t_k, and acc_k is
 * loaded and stored once per eight words. A hand-unrolled copy of the one-word loop (kept for the
 * remainder): in a micro-benchmark one word at a time ran 3.2–3.6 ns per (word, topic), four
 * 1.6–1.9, eight 1.3. A standalone function because, written inside the E-step's loop, V8 compiled
 * it no faster than the one-word loops.
 */
export const gammaSumsJs = (block: Float64Array, t: Float64Array, counts: Float64Array, acc: Float64Array, K: number, m: number): void => {
  acc.fill(0)
  const m8 = m - (m % 8)
  let j = 0
  for (; j < m8; j += 8) {
    const o0 = j * K
    const o1 = o0 + K
    const o2 = o1 + K
    const o3 = o2 + K
    const o4 = o3 + K
    const o5 = o4 + K
    const o6 = o5 + K
    const o7 = o6 + K
    let s0 = 1e-100
    let s1 = 1e-100
    let s2 = 1e-100
    let s3 = 1e-100
    let s4 = 1e-100
    let s5 = 1e-100
    let s6 = 1e-100
    let s7 = 1e-100
    for (let k = 0; k < K; k++) {
      const x = t[k] as number
      s0 += x * (block[o0 + k] as number)
      s1 += x * (block[o1 + k] as number)
      s2 += x * (block[o2 + k] as number)
      s3 += x * (block[o3 + k] as number)
      s4 += x * (block[o4 + k] as number)
      s5 += x * (block[o5 + k] as number)
      s6 += x * (block[o6 + k] as number)
      s7 += x * (block[o7 + k] as number)
    }
    const r0 = (counts[j] as number) / s0
    const r1 = (counts[j + 1] as number) / s1
    const r2 = (counts[j + 2] as number) / s2
    const r3 = (counts[j + 3] as number) / s3
    const r4 = (counts[j + 4] as number) / s4
    const r5 = (counts[j + 5] as number) / s5
    const r6 = (counts[j + 6] as number) / s6
    const r7 = (counts[j + 7] as number) / s7
    for (let k = 0; k < K; k++)
      acc[k] =
        (acc[k] as number) +
        (r0 * (block[o0 + k] as number) + r1 * (block[o1 + k] as number) + (r2 * (block[o2 + k] as number) + r3 * (block[o3 + k] as number)) +
          (r4 * (block[o4 + k] as number) + r5 * (block[o5 + k] as number) + (r6 * (block[o6 + k] as number) + r7 * (block[o7 + k] as number))))
  }
  for (; j < m; j++) {
    const o = j * K
    let s = 1e-100
    for (let k = 0; k < K; k++) s += (t[k] as number) * (block[o + k] as number)
    const r = (counts[j] as number) / s
    for (let k = 0; k < K; k++) acc[k] = (acc[k] as number) + r * (block[o + k] as number)
  }
}

// ---- the WebAssembly kernel --------------------------------------------------------------------

const { get, set, tee, i32, br, brIf, BLOCK, LOOP, END, I32_ADD, I32_AND, I32_SHL, I32_GE_U, I32_LT_U, F64_ADD, F64_DIV } = op
const f64Load = op.f64LoadAt
const f64Const = op.f64c
const { V128_LOAD, V128_STORE, V128_ZERO, F64X2_SPLAT, F64X2_ADD, F64X2_MUL } = op
const lane = op.f64x2Lane

// gammaSums(block, t, counts, acc, Kp, m): byte addresses; locals after the six parameters
const [BLK, T, CNT, ACC, KP, M] = [0, 1, 2, 3, 4, 5]
const [RB, K, J, MW] = [6, 7, 8, 9]

/** Loop over k = 0, 16, … < row bytes (Kp ≥ 2, so at least once): `body` then k += 16. */
const overRow = (...body: number[][]): number[][] => [i32(0), set(K), LOOP, ...body, get(K), i32(16), I32_ADD, tee(K), get(RB), I32_LT_U, brIf(0), END]
/** v128 at address base + k. */
const at = (base: number): number[] => [...get(base), ...get(K), ...I32_ADD, ...V128_LOAD]
/** local s ← splat(counts[j + i] / (s.lane0 + s.lane1 + 1e-100)). */
const ratio = (s: number, i: number): number[][] => [
  get(CNT), get(J), i32(3), I32_SHL, I32_ADD, f64Load(8 * i),
  get(s), lane(0), get(s), lane(1), F64_ADD, f64Const(1e-100), F64_ADD, F64_DIV, F64X2_SPLAT, set(s),
]
/** Σ_i r_i ⊙ b_i[k..k+2) over the given (r, row pointer) locals, as a balanced tree of adds. */
const products = (pairs: ReadonlyArray<readonly [number, number]>): number[] => {
  if (pairs.length === 1) {
    const [r, p] = pairs[0]!
    return [...get(r), ...at(p), ...F64X2_MUL]
  }
  const half = pairs.length >> 1
  return [...products(pairs.slice(0, half)), ...products(pairs.slice(half)), ...F64X2_ADD]
}

/**
 * The function body (locals and code) for `words` (a power of two) words per step: row pointers
 * p_i and sums s_i for each, one t load shared by the `words` normaliser sums, then acc += Σ_i
 * r_i·b_i with r_i = c_i/norm_i; the m mod `words` remaining words one at a time.
 */
const functionBody = (words: number): number[] => {
  const P = Array.from({ length: words }, (_, i) => 10 + i)
  const S = Array.from({ length: words }, (_, i) => 10 + words + i)
  const X = 10 + 2 * words
  const pairs = S.map((s, i) => [s, P[i]!] as const)
  const [P0, S0, PLAST] = [P[0]!, S[0]!, P[words - 1]!]
  const code: number[] = [
    // rb = Kp·8; mw = m rounded down to a multiple of `words`; p0 = block; acc = 0
    get(KP), i32(3), I32_SHL, set(RB),
    get(M), i32(-words), I32_AND, set(MW),
    get(BLK), set(P0),
    ...overRow([...get(ACC), ...get(K), ...I32_ADD, ...V128_ZERO, ...V128_STORE]),
    i32(0), set(J),
    // `words` words at a time
    BLOCK, LOOP,
    get(J), get(MW), I32_GE_U, brIf(1),
    ...P.slice(1).map((p, i) => [...get(P[i]!), ...get(RB), ...I32_ADD, ...set(p)]),
    ...S.map((s) => [...V128_ZERO, ...set(s)]),
    ...overRow([...at(T), ...set(X)], ...pairs.map(([s, p]) => [...get(s), ...get(X), ...at(p), ...F64X2_MUL, ...F64X2_ADD, ...set(s)])),
    ...S.flatMap((s, i) => ratio(s, i)),
    ...overRow([...get(ACC), ...get(K), ...I32_ADD, ...at(ACC), ...products(pairs), ...F64X2_ADD, ...V128_STORE]),
    get(J), i32(words), I32_ADD, set(J), get(PLAST), get(RB), I32_ADD, set(P0),
    br(0), END, END,
    // the remaining words one at a time
    BLOCK, LOOP,
    get(J), get(M), I32_GE_U, brIf(1),
    V128_ZERO, set(S0),
    ...overRow([...get(S0), ...at(T), ...at(P0), ...F64X2_MUL, ...F64X2_ADD, ...set(S0)]),
    ...ratio(S0, 0),
    ...overRow([...get(ACC), ...get(K), ...I32_ADD, ...at(ACC), ...get(S0), ...at(P0), ...F64X2_MUL, ...F64X2_ADD, ...V128_STORE]),
    get(J), i32(1), I32_ADD, set(J), get(P0), get(RB), I32_ADD, set(P0),
    br(0), END, END,
    END,
  ].flat()
  return [...vec([[...uleb(4 + words), I32], [...uleb(words + 1), V128]]), ...code]
}

/** The module for `words` words per step: imports env.memory, exports gammaSums: (i32 × 6) → (). */
export const gammaSumsModuleBytes = (words: number): Uint8Array => functionModule('gammaSums', new Array<number>(6).fill(I32), functionBody(words))

/** Words per step of the compiled kernel. */
export const KERNEL_WORDS = 4

const compiled = compileModule(gammaSumsModuleBytes(KERNEL_WORDS))

/** Whether this runtime validated and compiled the SIMD kernel. */
export const wasmSimdAvailable: boolean = compiled !== undefined

/** One kernel instance on its own memory: byte addresses in, sums written to memory. */
export interface WasmGammaSums {
  readonly buffer: ArrayBuffer
  readonly run: (block: number, t: number, counts: number, acc: number, Kp: number, m: number) => void
}

/** A kernel instance with at least `bytes` of zeroed memory, or undefined without WebAssembly SIMD. */
export const wasmGammaSums = (bytes: number, words: number = KERNEL_WORDS): WasmGammaSums | undefined => {
  const mod = words === KERNEL_WORDS ? compiled : compileModule(gammaSumsModuleBytes(words))
  return instantiateOnMemory<WasmGammaSums['run']>(mod, bytes, 'gammaSums')
}
