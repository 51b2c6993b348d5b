/**
 * The private trainers' sweep (`sparseSweep` of ./sweep-kernel.ts) compiled to WebAssembly: the same
 * packed topic list, the same weights fl(n·q_wk) and fl(α·q_wk) in the same order (the list L of
 * `sparseSweep`) and the same first words, so a sweep draws the same topics bit for bit as the
 * JavaScript loop (test/trainers/private-wasm.test.ts compares them) and the exactness argument of
 * `sparseSweep` carries over. Why: the JavaScript loop spends half its time forming the document mass
 * Σ_j n_j·q_{w,t_j} (one gather per entry behind a bounds check, ~30 live values that do not fit the
 * registers); here every array is an offset into one linear memory.
 *
 * One difference in how the fast path gets there: the document mass is summed densely over all K
 * topics with 128-bit SIMD (`mass`: the document's counts kept as doubles beside the list, so a topic
 * absent from the document adds an exact 0; no gathers); the scan then subtracts the products of the
 * entries it visits, formed again (the same doubles), in list order as `sparseSweep` does. Its rounding differs from the
 * list-order sum's, so its error term is `massCoefficient` instead of 2(nnz + 1)·u; a decided draw is
 * the exact inversion of the list either way, so the topics drawn are the same (Brown, K = 50, a
 * fixed release: the same z, sweep CPU ×0.95).
 *
 * A draw the fast path cannot decide (probability about (nnz + K)·2^-32) calls back into
 * JavaScript (`slowDraw`, exact BigInt sums, further words from the run's source).
 *
 * Memory: the instance has its own memory (one per thread). Each release is copied into q's place
 * and turned into q and Σ_k q_wk there by the module's second function (`factors`, SIMD, the same
 * doubles as release-work.ts `wordFactors`), once per release and thread, so no thread copies q
 * before a sweep; a sweep copies its documents piece by piece (tokens, topics, counts, first words),
 * copying the topics and counts back after each piece, a few bytes per token against ~100
 * instructions per token of sampling. A model whose q would take more than 1 GiB per thread (or a
 * memory the runtime refuses) keeps the JavaScript loop, with q in arrays of the thread's own.
 *
 * @module
 */
import { type Code, F64, I32, V128, body, compileModule, f64Of, forRange, functionsModule, instantiateModule, instantiateShared, ld, ldf, op, sharedMemory, st, stf, whileLoop } from '../../core/wasm-binary.js'
import { scanCoefficient, TINY, UNIT_ROUNDOFF, WORD_SCALE } from './exact-draw.js'
import { type ExtraWords, slowDraw, topicBits } from './sweep-kernel.js'

// parameters: i32 sizes and byte addresses, then f64 α, the scan coefficient and the mass's error coefficient
const [DD, KK, BITS, SUB, TOK, Z, DOC, NDK, Q, QSUM, NZ, NZPOS, DRAWS, INC, NDKF] = Array.from({ length: 15 }, (_, i) => i) as number[] as [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number]
const [ALPHA, CW, CR] = [15, 16, 17]
const PARAMS = [...new Array<number>(15).fill(I32), F64, F64, F64]
const L0 = PARAMS.length
// i32 locals
const [D, A, B, I, DB, NNZ, K, P, V, U, J, W, OLD, BASE, R, NT, MASK, ONE, C, E0, FLOOR, T, OFF, QP, KB] = Array.from({ length: 25 }, (_, i) => L0 + i) as number[] as [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number]
const I32_LOCALS = 25
// f64 locals
const [R0, ER, TOT, E, G, X, XP] = Array.from({ length: 7 }, (_, i) => L0 + I32_LOCALS + i) as [number, number, number, number, number, number, number]
const F64_LOCALS = 7
// v128 locals: the mass's two accumulators and a product
const [A0, A1, X0] = Array.from({ length: 3 }, (_, i) => L0 + I32_LOCALS + F64_LOCALS + i) as [number, number, number]
const V128_LOCALS = 3

const { get, set, tee, i32, f64c, call } = op
const {
  i32Load8U, I32_ADD, I32_SUB, I32_MUL, I32_AND, I32_OR, I32_SHL, I32_SHR_S, I32_EQZ, I32_LT_S, I32_LE_S, I32_GE_S, I32_GT_S,
  F64_ADD, F64_SUB, F64_MUL, F64_NEG, F64_LT, F64_LE, F64_GE, F64_CONVERT_I32_U, BLOCK, LOOP, IF, ELSE, END, br, brIf,
  V128_ZERO, F64X2_ADD, F64X2_MUL, v128LoadAt, v128StoreAt, f64x2Lane,
} = op

/**
 * fl(n_dk·q_wk) for the two topics at byte offset OFF + o of the rows, added into `acc` (n_dk as
 * doubles in NDKF: exact integers, so each product is the very double `sparseSweep` forms).
 */
const pairAt = (o: number, acc: number): Code => [
  [get(acc), get(NDKF), get(OFF), I32_ADD, v128LoadAt(o), get(QP), get(OFF), I32_ADD, v128LoadAt(o), F64X2_MUL, F64X2_ADD, set(acc)],
]

/**
 * The document mass R̃ = Σ_k n_dk·q_wk over all K topics, densely (a topic with n_dk = 0 adds an
 * exact 0): four topics a step in two f64x2 accumulators, then the accumulators and their lanes added.
 * The scan forms the products it visits again (the same doubles: NDKF·q): storing all K of them here
 * measured slower than recomputing the few the scan reads (about ×0.94 the sweep's CPU without the stores).
 */
const mass: Code = [
  [V128_ZERO, set(A0), V128_ZERO, set(A1), i32(0), set(OFF), get(Q), get(BASE), i32(3), I32_SHL, I32_ADD, set(QP)],
  // eight topics a step while they last, then four (the same terms into the same accumulators in the same order)
  whileLoop([get(OFF), i32(64), I32_ADD, get(KB), I32_LE_S], pairAt(0, A0), pairAt(16, A1), pairAt(32, A0), pairAt(48, A1), [get(OFF), i32(64), I32_ADD, set(OFF)]),
  [get(OFF), i32(32), I32_ADD, get(KB), I32_LE_S, IF, pairAt(0, A0), pairAt(16, A1), get(OFF), i32(32), I32_ADD, set(OFF), END],
  [get(OFF), get(KB), I32_LT_S, IF, pairAt(0, A0), END],
  [get(A0), get(A1), F64X2_ADD, tee(X0), f64x2Lane(0), get(X0), f64x2Lane(1), F64_ADD, set(R0)],
]

/** raiseTopic of ./sweep-kernel.ts: topic T with count C at position P, moved towards the front past smaller entries. */
const raise: Code = [
  [get(C), get(BITS), I32_SHL, set(FLOOR)],
  BLOCK, LOOP,
  [get(P), i32(0), I32_LE_S, brIf(1)],
  [ld(NZ, [get(P), i32(1), I32_SUB]), tee(U), get(FLOOR), I32_GE_S, brIf(1)],
  st(NZ, get(P), get(U)),
  st(NZPOS, [get(U), get(MASK), I32_AND], get(P)),
  [get(P), i32(1), I32_SUB, set(P), br(0)],
  END, END,
  st(NZ, get(P), [get(FLOOR), get(T), I32_OR]),
  st(NZPOS, get(T), get(P)),
]

/** The token's topic leaves the list: its count drops by one and it moves towards the end (or out). */
const remove: Code = [
  [ld(NZPOS, get(OLD)), set(P)],
  [ld(NZ, get(P)), get(ONE), I32_SUB, tee(V), get(MASK), I32_LE_S],
  IF,
  // count 0: every later entry has count 1, so the last one may take this place
  [get(NNZ), i32(1), I32_SUB, set(NNZ)],
  [ld(NZ, get(NNZ)), set(U)],
  st(NZ, get(P), get(U)),
  st(NZPOS, [get(U), get(MASK), I32_AND], get(P)),
  st(NZPOS, get(OLD), i32(-1)),
  ELSE,
  [get(V), get(MASK), I32_OR, set(C)], // entries above this one keep their place
  BLOCK, LOOP,
  [get(P), i32(1), I32_ADD, get(NNZ), I32_GE_S, brIf(1)],
  [ld(NZ, [get(P), i32(1), I32_ADD]), tee(U), get(C), I32_LE_S, brIf(1)],
  st(NZ, get(P), get(U)),
  st(NZPOS, [get(U), get(MASK), I32_AND], get(P)),
  [get(P), i32(1), I32_ADD, set(P), br(0)],
  END, END,
  st(NZ, get(P), get(V)),
  st(NZPOS, get(OLD), get(P)),
  END,
]

/** the draw is decided for the entry if xp ≥ E and x ≤ −(E + G) (leaves an i32) */
const decided: Code = [get(XP), get(E), F64_GE, get(X), get(E), get(G), F64_ADD, F64_NEG, F64_LE, I32_AND]

const token: Code = [
  BLOCK,
  // a token outside the sample is skipped
  [get(SUB), IF, [get(INC), get(I), I32_ADD, i32Load8U, I32_EQZ, brIf(1)], END],
  [ld(TOK, get(I)), tee(W), get(KK), I32_MUL, set(BASE), ld(Z, get(I)), set(OLD)],
  remove,
  stf(NDKF, get(OLD), [ldf(NDKF, get(OLD)), f64c(1), F64_SUB]),
  mass,
  [get(R0), get(CR), F64_MUL, set(ER)],
  [get(R0), get(ALPHA), ldf(QSUM, get(W)), F64_MUL, F64_ADD, set(TOT)],
  [f64c(3), get(ER), F64_MUL, get(TOT), get(CW), F64_MUL, F64_ADD, f64c(TINY), F64_ADD, set(E)],
  [get(TOT), f64c(WORD_SCALE), F64_MUL, set(G)],
  [ld(DRAWS, get(R)), F64_CONVERT_I32_U, f64c(WORD_SCALE), F64_MUL, get(TOT), F64_MUL, set(X)],
  [i32(-1), set(NT)],
  [get(X), get(R0), F64_LT],
  IF,
  // the document bucket, in list order (heaviest topics first)
  [i32(0), set(J)],
  BLOCK, LOOP,
  [get(J), get(NNZ), I32_GE_S, brIf(1)],
  [get(X), set(XP), get(XP), ldf(NDKF, [ld(NZ, get(J)), get(MASK), I32_AND, tee(T)]), ldf(Q, [get(BASE), get(T), I32_ADD]), F64_MUL, F64_SUB, tee(X), f64c(0), F64_LT],
  IF, decided, IF, get(T), set(NT), END, br(2), END,
  [get(J), i32(1), I32_ADD, set(J), br(0)],
  END, END,
  ELSE,
  // the dense bucket α·q_wk, k = 0..K−1
  [get(X), get(R0), F64_SUB, set(X), i32(0), set(T)],
  BLOCK, LOOP,
  [get(T), get(KK), I32_GE_S, brIf(1)],
  [get(X), set(XP), get(XP), get(ALPHA), ldf(Q, [get(BASE), get(T), I32_ADD]), F64_MUL, F64_SUB, tee(X), f64c(0), F64_LT],
  IF, decided, IF, get(T), set(NT), END, br(2), END,
  [get(T), i32(1), I32_ADD, set(T), br(0)],
  END, END,
  END,
  // undecided: the exact path, in JavaScript
  [get(NT), i32(0), I32_LT_S, IF, get(I), get(NNZ), get(BASE), ld(DRAWS, get(R)), call(0), set(NT), END],
  [get(R), i32(1), I32_ADD, set(R)],
  st(Z, get(I), get(NT)),
  stf(NDKF, get(NT), [ldf(NDKF, get(NT)), f64c(1), F64_ADD]),
  // the new topic's count rises by one and it moves towards the front
  [ld(NZPOS, get(NT)), tee(P), i32(0), I32_LT_S],
  IF,
  [get(NNZ), set(P), get(NNZ), i32(1), I32_ADD, set(NNZ), i32(1), set(C)],
  ELSE,
  [ld(NZ, get(P)), get(BITS), I32_SHR_S, i32(1), I32_ADD, set(C)],
  END,
  [get(NT), set(T)],
  raise,
  END,
]

const code: Code = [
  [i32(1), get(BITS), I32_SHL, tee(ONE), i32(1), I32_SUB, set(MASK), i32(0), set(R)],
  [get(KK), i32(1), I32_ADD, i32(-2), I32_AND, i32(3), I32_SHL, set(KB)], // the rows' bytes, K rounded up to even
  forRange(D, i32(0), get(DD),
    [ld(DOC, get(D)), set(A), ld(DOC, [get(D), i32(1), I32_ADD]), set(B), get(D), get(KK), I32_MUL, set(DB), i32(0), set(NNZ)],
    // the document's packed topic list, sorted by decreasing count
    forRange(K, i32(0), get(KK),
      [ld(NDK, [get(DB), get(K), I32_ADD]), set(C)],
      st(NZPOS, get(K), i32(-1)),
      stf(NDKF, get(K), f64Of(get(C))),
      [get(C), i32(0), I32_GT_S, IF, get(NNZ), set(P), get(NNZ), i32(1), I32_ADD, set(NNZ), get(K), set(T), raise, END]),
    forRange(I, get(A), get(B), token),
    forRange(K, i32(0), get(KK), st(NDK, [get(DB), get(K), I32_ADD], i32(0))),
    forRange(J, i32(0), get(NNZ), [ld(NZ, get(J)), set(E0)], st(NDK, [get(DB), get(E0), get(MASK), I32_AND, I32_ADD], [get(E0), get(BITS), I32_SHR_S]))),
  END,
]

/**
 * factors(K, V, Q, QSUM, INV, scale, clip, β): the word factors of ./parallel/release-work.ts
 * `wordFactors` for every row, in place over the release copied to Q: q_wk = (min(max(scale·n̂_wk, 0),
 * C) + β)·inv_k two topics at a time, and qsum_w = Σ_k q_wk added in k order (one scalar chain per
 * row), so q and qsum are the same doubles as the JavaScript function's (test/trainers/private-wasm.test.ts
 * compares them, −0 releases and clips included). The pairs clamp with f64x2.pmax/pmin (one x86
 * instruction each; f64x2.max/min take a sequence for IEEE's ±0 and NaN, and the transform ran 2.6×
 * as long with them: 21.5 against 8.1 ms of a one-worker fit on Brown). They differ from Math.max/min
 * only on a −0: pmax(−0, 0) is −0 where max gives +0 (NaN propagates through both: pmax(a, b) = a < b
 * ? b : a, pmin(a, b) = b < a ? b : a). The −0 then meets β: −0 + β = +0 + β = β for every β > 0, the only
 * β a fit takes (config.ts: β ≥ ALPHA_BETA_FLOOR), so q is the same double either way. The odd K's last
 * topic keeps the scalar min/max (`factor`).
 */
const [FK, FV, FQ, FQSUM, FINV] = [0, 1, 2, 3, 4]
const [FSCALE, FCLIP, FBETA] = [5, 6, 7]
const [FW, FT, FROW] = [8, 9, 10]
const FS = 11
const [SCALE2, CLIP2, BETA2, ZERO2, XV] = [12, 13, 14, 15, 16]
/** the factor of a release value (f64 → f64, scalar) */
const factor = (value: Code, inv: Code): Code => [value, get(FSCALE), F64_MUL, f64c(0), op.F64_MAX, get(FCLIP), op.F64_MIN, get(FBETA), F64_ADD, inv, F64_MUL]
const factorsCode: Code = [
  [get(FSCALE), op.F64X2_SPLAT, set(SCALE2), get(FCLIP), op.F64X2_SPLAT, set(CLIP2), get(FBETA), op.F64X2_SPLAT, set(BETA2), V128_ZERO, set(ZERO2)],
  forRange(FW, i32(0), get(FV),
    [get(FQ), get(FW), get(FK), I32_MUL, i32(3), I32_SHL, I32_ADD, set(FROW), f64c(0), set(FS), i32(0), set(FT)],
    // two topics a step: the row's bytes [FROW + 8t, FROW + 8t + 16)
    whileLoop([get(FT), i32(2), I32_ADD, get(FK), I32_LE_S],
      [get(FROW), get(FT), i32(3), I32_SHL, I32_ADD],
      [get(FROW), get(FT), i32(3), I32_SHL, I32_ADD, v128LoadAt(0), get(SCALE2), F64X2_MUL, get(ZERO2), op.F64X2_PMAX, get(CLIP2), op.F64X2_PMIN, get(BETA2), F64X2_ADD],
      [get(FINV), get(FT), i32(3), I32_SHL, I32_ADD, v128LoadAt(0), F64X2_MUL, tee(XV), v128StoreAt(0)],
      [get(FS), get(XV), f64x2Lane(0), F64_ADD, get(XV), f64x2Lane(1), F64_ADD, set(FS)],
      [get(FT), i32(2), I32_ADD, set(FT)]),
    // an odd K's last topic
    [get(FT), get(FK), I32_LT_S, IF, stf(FROW, get(FT), factor(ldf(FROW, get(FT)), ldf(FINV, get(FT)))), get(FS), ldf(FROW, get(FT)), F64_ADD, set(FS), END],
    stf(FQSUM, get(FW), get(FS))),
  END,
]

/**
 * The module: imports env.memory and env.slow(i, nnz, base, m) → topic; exports sweep(D, K, bits,
 * subsampled, 12 addresses, α, cW, cR) and factors(K, V, 3 addresses, scale, C, β).
 */
export const privateSweepModuleBytes = (sharedMemory = false): Uint8Array =>
  functionsModule(
    [
      { exported: 'sweep', params: PARAMS, body: body([[I32_LOCALS, I32], [F64_LOCALS, F64], [V128_LOCALS, V128]], code) },
      { exported: 'factors', params: [I32, I32, I32, I32, I32, F64, F64, F64], body: body([[3, I32], [1, F64], [5, V128]], factorsCode) },
    ],
    { name: 'slow', params: [I32, I32, I32, I32], results: [I32] },
    sharedMemory,
  )

const compiled = compileModule(privateSweepModuleBytes())
/** The same module on an imported shared memory (`sharedSweepMemory`), compiled at its first use. */
let compiledShared: object | undefined | null
const sharedModule = (): object | undefined => (compiledShared ??= compileModule(privateSweepModuleBytes(true)) ?? null) ?? undefined

/**
 * The coefficient c with eR = c·R̃ bounding |R̃ − R| for the dense mass (`mass`), where `sparseSweep`
 * has 2(nnz + 1)·u for its two accumulators over the list. Each product enters one lane of one
 * accumulator, which adds ⌈K'/4⌉ terms in order (K' = K rounded up to even), and then goes through
 * the accumulators' sum and the lanes' sum: at most h = ⌈K'/4⌉ + 2 roundings, so |R̃ − R| ≤ γ_h·R ≤
 * h·u·R(1 + 2h·u) (Higham, Accuracy and Stability of Numerical Algorithms, §4.2, all terms ≥ 0), and
 * 2(h + 1)·u·R̃ covers it as in `sparseSweep`. A larger bound than needed only sends a few more draws
 * to the exact path; the draws themselves are the exact inversion of the list either way.
 */
export const massCoefficient = (K: number): number => 2 * (Math.ceil((K + (K & 1)) / 4) + 3) * UNIT_ROUNDOFF

/** Whether this runtime validated and compiled the module (else the JavaScript loop runs). */
export const wasmPrivateAvailable: boolean = compiled !== undefined

/** Tokens per piece copied into the instance's memory; a longer document gets a piece of its own. */
export const PIECE_TOKENS = 1 << 16
/** The largest instance memory a thread takes (its q is most of it: V·K·8 bytes). */
const MAX_BYTES = 2 ** 30
/** Documents per piece: at most 4096, and their K counts each within 4 MiB. */
const pieceDocs = (K: number): number => Math.max(1, Math.min(1 << 12, Math.floor((1 << 20) / K)))

/** The arrays of a sweep the WebAssembly sweep reads (those of `sparseSweep` but q, shared or not). */
export interface PrivateSweepArrays {
  readonly K: number
  readonly V: number
  readonly alpha: number
  readonly tokens: Int32Array
  readonly docStart: Int32Array
  readonly z: Int32Array
  readonly ndk: Int32Array
}

export interface WasmPrivateSweeper {
  /**
   * The sweep's word factor q (V×K) and Σ_k q_wk (V), in the instance's memory: written by `factors`
   * (or by the caller), read by `sweep` and by whoever else needs this thread's q (CDP's doc-noise sweep).
   */
  readonly q: Float64Array
  readonly qsum: Float64Array
  /**
   * q and qsum from a release n̂ (V×K) as ./parallel/release-work.ts `wordFactors` computes them for
   * the rows [w0, w1) (default: every row), with inv_k = 1/(n̂_k + Vβ) given: the release's rows are
   * copied into q's place and turned into q there (no other copy of q is made, and none per sweep).
   * On a shared memory each thread builds some rows of the one q every thread reads.
   */
  readonly factors: (release: Float64Array, inv: Float64Array, scale: number, clip: number, beta: number, w0?: number, w1?: number) => void
  /**
   * `sparseSweep` of documents [d0, d1) with its arguments (`words`: the first words in its layout,
   * from `fillRangeDraws`, or a supply that writes each piece's words in order where the sweep reads
   * them: sweep-kernel.ts `cryptoDraws`), drawing the same topics bit for bit from the same words.
   */
  readonly sweep: (d0: number, d1: number, words: Uint32Array | ((out: Uint32Array) => void), include: Uint8Array | undefined, extra: ExtraWords) => void
}

/**
 * The byte layout of a sweeper's memory: q (one double past its last row) and Σ_k q_wk, then one
 * thread's scratch (the f64 arrays first, 8-aligned, then the i32 arrays, then the include bytes).
 * q and the per-topic arrays take K rounded up to even, for the two-lane loads of an odd K.
 */
const layoutOf = (s: PrivateSweepArrays) => {
  const { K, V, docStart } = s
  const D = docStart.length - 1
  let longest = 0
  for (let d = 0; d < D; d++) longest = Math.max(longest, (docStart[d + 1] as number) - (docStart[d] as number))
  // a piece holds at most the corpus's tokens: a tiny corpus (an audit's many fits of a few documents)
  // takes a few pages, not PIECE_TOKENS' ~0.9 MB zeroed per fit
  const T = Math.max(Math.min(PIECE_TOKENS, docStart[D] as number), longest, 1)
  const PIECE_DOCS = pieceDocs(K)
  const KP = K + (K & 1)
  const lengths = { q: V * K + 1, qsum: V, ndkf: KP, inv: KP, nz: K, nzPos: K, doc: PIECE_DOCS + 1, tok: T, z: T, draws: T, ndk: PIECE_DOCS * K }
  const factorBytes = 8 * (lengths.q + lengths.qsum)
  const scratch = 8 * (lengths.ndkf + lengths.inv) + 4 * (lengths.nz + lengths.nzPos + lengths.doc + 3 * T + lengths.ndk) + T
  return { T, PIECE_DOCS, lengths, factorBytes, scratchBytes: 8 * Math.ceil(scratch / 8) }
}

/**
 * One WebAssembly memory for the `parts` threads of a fit over `s`: q and Σ_k q_wk once, built by the
 * threads together (each some rows: `factors(…, w0, w1)`) and read by every thread's sweep, then each
 * thread's scratch. A thread of its own memory builds and holds all of q (V·K doubles) itself, so
 * building q costs every thread the whole table, whatever the number of threads. Undefined where a
 * shared memory cannot be had (or would pass MAX_BYTES): the threads keep memories of their own.
 */
export const sharedSweepMemory = (s: PrivateSweepArrays, parts: number): object | undefined => {
  if (compiled === undefined || sharedModule() === undefined) return undefined
  const { factorBytes, scratchBytes } = layoutOf(s)
  const bytes = factorBytes + parts * scratchBytes
  return bytes > MAX_BYTES ? undefined : sharedMemory(bytes)
}

/**
 * A WebAssembly sweeper over `s` for one thread — its own instance and memory, or (`shared`) its
 * instance on part `part`'s place of a `sharedSweepMemory` — or undefined where WebAssembly is
 * unavailable (the caller runs `sparseSweep`).
 */
export const wasmPrivateSweeper = (s: PrivateSweepArrays, shared?: { readonly memory: object; readonly part: number }): WasmPrivateSweeper | undefined => {
  if (compiled === undefined) return undefined
  const { K, V, docStart } = s
  const { T, PIECE_DOCS, lengths, factorBytes, scratchBytes } = layoutOf(s)
  const bytes = factorBytes + scratchBytes
  // q per thread: past MAX_BYTES (or where the memory cannot be had) the thread keeps the JavaScript loop
  if (shared === undefined && bytes > MAX_BYTES) return undefined
  let extra: ExtraWords = () => () => 0
  let pieceStart = 0
  const bits = topicBits(K)
  // the views below are made before the instance runs: its memory never grows
  let views: { nz: Int32Array; q: Float64Array } | undefined
  const slow = (i: number, nnz: number, base: number, m: number): number => {
    const v = views as { nz: Int32Array; q: Float64Array }
    return slowDraw(K, bits, nnz, v.nz, v.q, base, s.alpha, m >>> 0, extra(pieceStart + i))
  }
  let w: ReturnType<typeof instantiateModule>
  try {
    w = shared === undefined ? instantiateModule(compiled, bytes, { slow }) : instantiateShared(sharedModule(), shared.memory, { slow })
  } catch {
    return undefined // the memory could not be allocated
  }
  if (w === undefined) return undefined
  let at = 0
  const f64 = (n: number): Float64Array => {
    const a = new Float64Array(w.buffer, at, n)
    at += 8 * n
    return a
  }
  const i32 = (n: number): Int32Array => {
    const a = new Int32Array(w.buffer, at, n)
    at += 4 * n
    return a
  }
  const q = f64(lengths.q)
  const qsum = f64(lengths.qsum)
  at = factorBytes + (shared === undefined ? 0 : shared.part * scratchBytes)
  const ndkf = f64(lengths.ndkf)
  const inv = f64(lengths.inv)
  const nz = i32(lengths.nz)
  const nzPos = i32(lengths.nzPos)
  const doc = i32(lengths.doc)
  const tok = i32(lengths.tok)
  const z = i32(T)
  const draws = new Uint32Array(w.buffer, at, T)
  at += 4 * T
  const ndk = i32(lengths.ndk)
  const inc = new Uint8Array(w.buffer, at, T)
  views = { nz, q }
  const cW = scanCoefficient(K + 1)
  const cR = massCoefficient(K)
  const run = w.exports.sweep as (...args: number[]) => void
  const runFactors = w.exports.factors as (...args: number[]) => void
  const factors = (release: Float64Array, inverse: Float64Array, scale: number, clip: number, beta: number, w0 = 0, w1 = V): void => {
    if (w0 >= w1) return
    q.set(release.subarray(w0 * K, w1 * K), w0 * K)
    inv.set(inverse.subarray(0, K))
    runFactors(K, w1 - w0, q.byteOffset + 8 * w0 * K, qsum.byteOffset + 8 * w0, inv.byteOffset, scale, clip, beta)
  }
  const sweep = (d0: number, d1: number, words: Uint32Array | ((out: Uint32Array) => void), include: Uint8Array | undefined, ex: ExtraWords): void => {
    extra = ex
    let r = docStart[d0] as number // the piece's first word in `words`
    for (let p0 = d0; p0 < d1; ) {
      // the piece [p0, p1): documents while they fit (at least one)
      const a = docStart[p0] as number
      let p1 = p0 + 1
      while (p1 < d1 && p1 - p0 < PIECE_DOCS && (docStart[p1 + 1] as number) - a <= T) p1++
      const b = docStart[p1] as number
      pieceStart = a
      for (let d = p0; d <= p1; d++) doc[d - p0] = (docStart[d] as number) - a
      tok.set(s.tokens.subarray(a, b))
      z.set(s.z.subarray(a, b))
      ndk.set(s.ndk.subarray(p0 * K, p1 * K))
      let visited = b - a
      if (include !== undefined) {
        inc.set(include.subarray(a, b))
        visited = 0
        for (let i = a; i < b; i++) visited += include[i] as number
      }
      if (typeof words === 'function') words(draws.subarray(0, visited))
      else draws.set(words.subarray(r, r + visited))
      r += visited
      run(p1 - p0, K, bits, include === undefined ? 0 : 1, tok.byteOffset, z.byteOffset, doc.byteOffset, ndk.byteOffset, q.byteOffset, qsum.byteOffset, nz.byteOffset, nzPos.byteOffset, draws.byteOffset, inc.byteOffset, ndkf.byteOffset, s.alpha, cW, cR)
      s.z.set(z.subarray(0, b - a), a)
      s.ndk.set(ndk.subarray(0, (p1 - p0) * K), p0 * K)
      p0 = p1
    }
  }
  return { q: q.subarray(0, V * K), qsum, factors, sweep }
}
