/**
 * The SparseLDA sweep of ./sparse.ts compiled to WebAssembly: the same algorithm, the same order of
 * floating-point operations and the same uniforms, so a sweep gives the same topics bit for bit as
 * the JavaScript loop (the tests compare them). Why: written in JavaScript, the loop's ~25 live
 * values (typed-array bases and lengths, the xoshiro words, the masses) do not fit the registers and
 * every array access carries a bounds check; in WebAssembly every array is an offset into one linear
 * memory whose bounds are checked by guard pages, and nothing deoptimises when a rare branch (the
 * s + r bucket) is first taken.
 *
 * The module is assembled here byte by byte (WebAssembly Core Specification 2.0, §5 "Binary Format"),
 * as ../svi/gamma-sums.ts assembles its SIMD kernel; no SIMD is used (a draw is a scan of a few
 * entries). Where WebAssembly is unavailable, `wasmSparseModule` is undefined and ./sparse.ts runs
 * its JavaScript loop.
 *
 * @module
 */
import { type Code, F64, I32, body, compileModule, f64Of, forRange, functionModule, instantiateOnMemory, ld, ldf, op, st, stf, whileLoop } from '../../core/wasm-binary.js'

// parameters (i32 unless marked): the xoshiro128** words, sizes, byte addresses of the arrays, then f64 α, β, Vβ
const [RA, RB, RC, RD, DD, KK, BITS, TOK, Z, DOC, NDK, NK, PACKED, OFF, COEF, LOCAL, INVDEN, INVDOWN] = Array.from({ length: 18 }, (_, i) => i) as [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number]
const [ALPHA, BETA, BETASUM] = [18, 19, 20]
const I32_PARAMS = 18
// i32 locals
const [D, A, B, I, W, OLD, C, LO, HI, IDX, V, PREVW, J, NT, NB, MASK, ONE, K, RM, RR, RT, CN, NKN, LAST, DK, JJ, NV] = Array.from({ length: 27 }, (_, i) => 21 + i) as number[] as [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number]
const I32_LOCALS = 27
// f64 locals
const [CSUM, CSUM0, QMASS, X, COB, CO, INV, CF, CNEW, CNTB] = Array.from({ length: 10 }, (_, i) => 21 + I32_LOCALS + i) as [number, number, number, number, number, number, number, number, number, number]
const F64_LOCALS = 10

const { get, set, tee, i32, f64c } = op
const {
  i32Load, i32Store, f64Load, f64Store, I32_ADD, I32_SUB, I32_MUL, I32_AND, I32_OR, I32_XOR, I32_SHL, I32_SHR_S, I32_ROTL,
  I32_EQ, I32_NE, I32_LT_S, I32_GE_S, I32_LE_S, I32_GT_S, I32_EQZ, F64_ADD, F64_SUB, F64_MUL, F64_DIV, F64_LT, F64_LE,
  F64_CONVERT_I32_S, F64_CONVERT_I32_U, BLOCK, LOOP, IF, ELSE, END, br, brIf,
} = op

/** the word-list entry's topic and count terms: coef[v & mask] · (v >> bits), as f64 */
const termOf = (v: number): Code => [ldf(COEF, [get(v), get(MASK), I32_AND]), f64Of([get(v), get(BITS), I32_SHR_S]), F64_MUL]

/**
 * decrementAt of ./sparse.ts, inline: the packed count at JJ in the word's list [.., HI) loses one,
 * the list stays sorted by decreasing count, an entry reaching 0 leaves it (HI shrinks).
 */
const decrementAt: Code = [
  [ld(PACKED, get(JJ)), get(ONE), I32_SUB, set(NV)],
  [get(NV), get(ONE), I32_LT_S],
  IF,
  [get(HI), i32(1), I32_SUB, set(LAST)],
  whileLoop([get(JJ), get(LAST), I32_LT_S], st(PACKED, get(JJ), ld(PACKED, [get(JJ), i32(1), I32_ADD])), [get(JJ), i32(1), I32_ADD, set(JJ)]),
  st(PACKED, get(LAST), i32(0)),
  [get(LAST), set(HI)],
  ELSE,
  // while (j + 1 < end && packed[j + 1] > nv) { packed[j] = packed[j + 1]; j++ }
  BLOCK, LOOP,
  [get(JJ), i32(1), I32_ADD, get(HI), I32_GE_S, brIf(1)],
  [ld(PACKED, [get(JJ), i32(1), I32_ADD]), get(NV), I32_LE_S, brIf(1)],
  st(PACKED, get(JJ), ld(PACKED, [get(JJ), i32(1), I32_ADD])),
  [get(JJ), i32(1), I32_ADD, set(JJ), br(0)],
  END, END,
  st(PACKED, get(JJ), get(NV)),
  END,
]

/** packed[j] = v, then v moves up past smaller entries (the list stays sorted by decreasing count). */
const storeMovingUp: Code = [
  st(PACKED, get(J), get(V)),
  BLOCK, LOOP,
  [get(J), get(LO), I32_LE_S, brIf(1)],
  [ld(PACKED, [get(J), i32(1), I32_SUB]), get(V), I32_GE_S, brIf(1)],
  st(PACKED, get(J), ld(PACKED, [get(J), i32(1), I32_SUB])),
  [get(J), i32(1), I32_SUB, set(J)],
  st(PACKED, get(J), get(V)),
  br(0), END, END,
]

const token: Code = [
  [ld(TOK, get(I)), set(W), ld(Z, get(I)), set(OLD)],
  // remove the token from the document and topic totals
  [ld(LOCAL, get(OLD)), i32(1), I32_SUB, set(C)],
  st(LOCAL, get(OLD), get(C)),
  st(NK, get(OLD), [ld(NK, get(OLD)), i32(1), I32_SUB]),
  [ldf(COEF, get(OLD)), set(COB)],
  [get(ALPHA), f64Of(get(C)), F64_ADD, ldf(INVDOWN, get(OLD)), F64_MUL, set(CO)],
  stf(COEF, get(OLD), get(CO)),
  [get(CSUM), set(CSUM0), get(CSUM), get(CO), get(COB), F64_SUB, F64_ADD, set(CSUM)],
  [ld(OFF, get(W)), i32(1), I32_ADD, tee(LO), set(IDX)],
  [get(LO), ld(PACKED, [get(LO), i32(1), I32_SUB]), I32_ADD, set(HI)],
  [get(W), get(PREVW), I32_NE],
  IF,
  // first token of a run: q's mass over the word's list, the old topic's count decremented on the way
  [get(W), set(PREVW), f64c(0), set(QMASS)],
  BLOCK, LOOP,
  [ld(PACKED, get(IDX)), tee(V), get(MASK), I32_AND, get(OLD), I32_EQ, brIf(1)],
  [get(QMASS), termOf(V), F64_ADD, set(QMASS)],
  [get(IDX), i32(1), I32_ADD, set(IDX), br(0)],
  END, END,
  [get(IDX), set(JJ)],
  decrementAt,
  st(PACKED, [get(LO), i32(1), I32_SUB], [get(HI), get(LO), I32_SUB]),
  whileLoop([get(IDX), get(HI), I32_LT_S], [ld(PACKED, get(IDX)), set(V), get(QMASS), termOf(V), F64_ADD, set(QMASS)], [get(IDX), i32(1), I32_ADD, set(IDX)]),
  ELSE,
  // a repeat of the previous token's word: q's mass updated in O(1)
  whileLoop([ld(PACKED, get(IDX)), get(MASK), I32_AND, get(OLD), I32_NE], [get(IDX), i32(1), I32_ADD, set(IDX)]),
  [ld(PACKED, get(IDX)), get(BITS), I32_SHR_S, set(NV)],
  [get(QMASS), get(CO), f64Of([get(NV), i32(1), I32_SUB]), F64_MUL, get(COB), f64Of(get(NV)), F64_MUL, F64_SUB, F64_ADD, set(QMASS)],
  [get(IDX), set(JJ)],
  decrementAt,
  st(PACKED, [get(LO), i32(1), I32_SUB], [get(HI), get(LO), I32_SUB]),
  [get(HI), get(LO), I32_EQ, IF, f64c(0), set(QMASS), END],
  END,
  // xoshiro128** step (as FastUniform)
  [get(RB), i32(5), I32_MUL, tee(RM), i32(7), I32_ROTL, i32(9), I32_MUL, set(RR)],
  [get(RB), i32(9), I32_SHL, set(RT)],
  [get(RC), get(RA), I32_XOR, set(RC)],
  [get(RD), get(RB), I32_XOR, set(RD)],
  [get(RB), get(RC), I32_XOR, set(RB)],
  [get(RA), get(RD), I32_XOR, set(RA)],
  [get(RC), get(RT), I32_XOR, set(RC)],
  [get(RD), i32(11), I32_ROTL, set(RD)],
  [get(RR), F64_CONVERT_I32_U, f64c(2.3283064365386963e-10), F64_MUL, get(BETA), get(CSUM), F64_MUL, get(QMASS), F64_ADD, F64_MUL, set(X)],
  [get(X), get(QMASS), F64_LT, get(HI), get(LO), I32_GT_S, I32_AND],
  IF,
  // the q bucket: a scan of the word's list (heaviest topics first)
  [get(LO), set(J), get(HI), i32(1), I32_SUB, set(LAST)],
  BLOCK, LOOP,
  [get(J), get(LAST), I32_GE_S, brIf(1)],
  [ld(PACKED, get(J)), set(V), get(X), termOf(V), F64_SUB, tee(X), f64c(0), F64_LT, brIf(1)],
  [get(J), i32(1), I32_ADD, set(J), br(0)],
  END, END,
  [ld(PACKED, get(J)), tee(V), get(BITS), I32_SHR_S, set(NB)],
  [get(V), get(ONE), I32_ADD, tee(V), get(MASK), I32_AND, set(NT)],
  storeMovingUp,
  ELSE,
  // s + r: a scan over every topic's β·coef_k
  [get(X), get(QMASS), F64_SUB, get(BETA), F64_DIV, set(X)],
  [get(KK), i32(1), I32_SUB, set(NT)],
  [i32(0), set(K)],
  BLOCK, LOOP,
  [get(K), get(KK), I32_GE_S, brIf(1)],
  [get(X), ldf(COEF, get(K)), F64_SUB, tee(X), f64c(0), F64_LE, IF, get(K), set(NT), br(2), END],
  [get(K), i32(1), I32_ADD, set(K), br(0)],
  END, END,
  // increment n_wk for the new topic (insert if absent)
  [get(LO), set(J)],
  whileLoop([get(J), get(HI), I32_LT_S, ld(PACKED, get(J)), get(MASK), I32_AND, get(NT), I32_NE, I32_AND], [get(J), i32(1), I32_ADD, set(J)]),
  [get(J), get(HI), I32_EQ],
  IF,
  [get(ONE), get(NT), I32_OR, set(V)],
  st(PACKED, [get(LO), i32(1), I32_SUB], [get(HI), i32(1), I32_ADD, get(LO), I32_SUB]),
  [i32(0), set(NB)],
  ELSE,
  [ld(PACKED, get(J)), tee(V), get(BITS), I32_SHR_S, set(NB)],
  [get(V), get(ONE), I32_ADD, set(V)],
  END,
  storeMovingUp,
  END,
  // add the token back with its new topic
  st(Z, get(I), get(NT)),
  [get(NT), get(OLD), I32_EQ],
  IF,
  st(LOCAL, get(OLD), [get(C), i32(1), I32_ADD]),
  st(NK, get(OLD), [ld(NK, get(OLD)), i32(1), I32_ADD]),
  [get(CSUM0), set(CSUM)],
  [get(QMASS), get(COB), f64Of([get(NB), i32(1), I32_ADD]), F64_MUL, get(CO), f64Of(get(NB)), F64_MUL, F64_SUB, F64_ADD, set(QMASS)],
  stf(COEF, get(OLD), get(COB)),
  ELSE,
  stf(INVDEN, get(OLD), ldf(INVDOWN, get(OLD))),
  stf(INVDOWN, get(OLD), [f64c(1), f64Of([ld(NK, get(OLD)), i32(1), I32_SUB]), get(BETASUM), F64_ADD, F64_DIV]),
  [ld(LOCAL, get(NT)), i32(1), I32_ADD, set(CN)],
  st(LOCAL, get(NT), get(CN)),
  [ld(NK, get(NT)), i32(1), I32_ADD, set(NKN)],
  st(NK, get(NT), get(NKN)),
  stf(INVDOWN, get(NT), ldf(INVDEN, get(NT))),
  [f64c(1), f64Of(get(NKN)), get(BETASUM), F64_ADD, F64_DIV, set(INV)],
  stf(INVDEN, get(NT), get(INV)),
  [get(ALPHA), f64Of(get(CN)), F64_ADD, get(INV), F64_MUL, set(CNEW)],
  [ldf(COEF, get(NT)), set(CNTB)],
  [get(QMASS), get(CNEW), f64Of([get(NB), i32(1), I32_ADD]), F64_MUL, get(CNTB), f64Of(get(NB)), F64_MUL, F64_SUB, F64_ADD, set(QMASS)],
  [get(CSUM), get(CNEW), get(CNTB), F64_SUB, F64_ADD, set(CSUM)],
  stf(COEF, get(NT), get(CNEW)),
  END,
]

const code: Code = [
  [i32(1), get(BITS), I32_SHL, tee(ONE), i32(1), I32_SUB, set(MASK)],
  forRange(K, i32(0), get(KK),
    stf(INVDEN, get(K), [f64c(1), f64Of(ld(NK, get(K))), get(BETASUM), F64_ADD, F64_DIV]),
    stf(INVDOWN, get(K), [f64c(1), f64Of([ld(NK, get(K)), i32(1), I32_SUB]), get(BETASUM), F64_ADD, F64_DIV])),
  forRange(D, i32(0), get(DD),
    [ld(DOC, get(D)), set(A), ld(DOC, [get(D), i32(1), I32_ADD]), set(B), get(D), get(KK), I32_MUL, set(DK)],
    // document setup: s + r = β·Σ_k coef_k
    [f64c(0), set(CSUM)],
    forRange(K, i32(0), get(KK),
      [ld(NDK, [get(DK), get(K), I32_ADD]), set(C)],
      st(LOCAL, get(K), get(C)),
      [get(ALPHA), f64Of(get(C)), F64_ADD, ldf(INVDEN, get(K)), F64_MUL, set(CF)],
      stf(COEF, get(K), get(CF)),
      [get(CSUM), get(CF), F64_ADD, set(CSUM)]),
    [i32(-1), set(PREVW), f64c(0), set(QMASS)],
    forRange(I, get(A), get(B), token),
    forRange(K, i32(0), get(KK), st(NDK, [get(DK), get(K), I32_ADD], ld(LOCAL, get(K))))),
  END,
]

/** The module: imports env.memory, exports sweep(ra, rb, rc, rd, D, K, bits, 11 addresses, α, β, Vβ). */
export const sparseSweepModuleBytes = (): Uint8Array =>
  functionModule('sweep', [...new Array<number>(I32_PARAMS).fill(I32), F64, F64, F64], body([[I32_LOCALS, I32], [F64_LOCALS, F64]], code))

const compiled = compileModule(sparseSweepModuleBytes())

/** Whether this runtime validated and compiled the module (else ./sparse.ts runs its JavaScript loop). */
export const wasmSparseAvailable: boolean = compiled !== undefined

/** sweep(ra, rb, rc, rd, D, K, bits, tokens, z, docStart, ndk, nk, packed, offset, coef, local, invDen, invDown, α, β, Vβ); addresses in bytes. */
export type WasmSparseSweep = (...args: number[]) => void

/** A compiled sweep on its own zeroed memory of at least `bytes`, or undefined without WebAssembly. */
export const wasmSparseSweep = (bytes: number): { readonly buffer: ArrayBuffer; readonly sweep: WasmSparseSweep } | undefined => {
  const w = instantiateOnMemory<WasmSparseSweep>(compiled, bytes, 'sweep')
  return w === undefined ? undefined : { buffer: w.buffer, sweep: w.run }
}
