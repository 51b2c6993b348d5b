/**
 * Attack models as plain data, and the scorers compiled from them. An attack maps an output to a
 * real score; the distinguishing event is {σ·score ≥ t} for an orientation σ = ±1 and threshold t,
 * both chosen on selection samples. Models are JSON- and structured-clone-safe, so the chosen
 * attack can be shipped to worker threads and written to checkpoints.
 *
 * Families:
 * - `threshold` (number/boolean outputs): score = y. Events are half-lines {y ≥ t}, {y ≤ t}.
 * - `histogram` (number, boolean or category outputs): score = log-likelihood ratio of the output's
 *   bin, log p̂(bin | D) − log p̂(bin | D′), with add-½ smoothing; its events are unions of bins
 *   ordered by likelihood ratio, the optimal (Neyman–Pearson) events on the binned outputs.
 * - `coordinate` (vectors): score = y_j for one coordinate j.
 * - `naive-bayes` (vectors): Σ_j of per-coordinate binned log-likelihood ratios — the exact log
 *   likelihood ratio when coordinates are independent given the input (noisy histograms, RR bits).
 * - `pattern` (vectors with few distinct values): the binned likelihood ratio of the whole vector
 *   (StatDP-style output-pattern events, e.g. sparse-vector answer patterns).
 * - `logistic` (vectors): the log-odds of a logistic-regression classifier trained to tell D from
 *   D′ — the probabilistic-classifier score of DP-Sniper (Bichsel et al., S&P 2021).
 * - `bits` (numbers): the binned likelihood ratio of the output's *granularity*, the exponent of
 *   the lowest set bit of its binary representation. x + Y computed in floating point is a multiple
 *   of the spacing of the doubles near x, so outputs finer than that spacing are impossible from x
 *   and common from 0 (Mironov, CCS 2012): DP-Sniper's bit-pattern features, reduced to the one
 *   that carries this leak.
 * - `joint` (vectors mixing a few recurring values with continuous ones, e.g. a sparse vector that
 *   reports noisy answers): the binned likelihood ratio of the pair (pattern of recurring values,
 *   sum of the continuous entries), a StatDP-style encoding of discrete × continuous outputs.
 *
 * @module
 */
import type { OutputShape } from './output.js'
import { HAS_ORDERED_PREFIX, orderedPrefix } from './sorted.js'

export type AttackFamily = 'threshold' | 'histogram' | 'coordinate' | 'naive-bayes' | 'pattern' | 'logistic' | 'bits' | 'joint'

export const ATTACK_FAMILIES: ReadonlyArray<AttackFamily> = ['threshold', 'histogram', 'coordinate', 'naive-bayes', 'pattern', 'logistic', 'bits', 'joint']

/** Bins on a number line: exact values (discrete outputs) or interval edges (continuous ones). */
export interface BinTable {
  /** Discrete outputs: the values that have their own bin; any other value falls in `other`. */
  readonly exact: ReadonlyArray<number> | null
  /** Continuous outputs: sorted interior edges; bin k holds edges[k−1] ≤ y < edges[k]. */
  readonly edges: ReadonlyArray<number> | null
  /** Score of each bin (length exact.length or edges.length + 1). */
  readonly scores: ReadonlyArray<number>
  /** Score of a value outside `exact` (unused with edges). */
  readonly other: number
}

/** Scores of discrete keys (categories or whole-vector patterns); unseen keys score `other`. */
export interface KeyTable {
  readonly keys: ReadonlyArray<string>
  readonly scores: ReadonlyArray<number>
  readonly other: number
}

export type AttackModel =
  | { readonly family: 'threshold' }
  | { readonly family: 'histogram'; readonly bins: BinTable }
  | { readonly family: 'histogram'; readonly keys: KeyTable }
  | { readonly family: 'coordinate'; readonly index: number }
  | { readonly family: 'naive-bayes'; readonly tables: ReadonlyArray<BinTable> }
  | { readonly family: 'pattern'; readonly keys: KeyTable }
  | {
      readonly family: 'logistic'
      readonly mean: ReadonlyArray<number>
      readonly scale: ReadonlyArray<number>
      readonly weights: ReadonlyArray<number>
      readonly bias: number
    }
  | { readonly family: 'bits'; readonly bins: BinTable }
  | {
      readonly family: 'joint'
      /** Values that recur (each is its own symbol in the key); every other entry is continuous ("*"). */
      readonly discrete: ReadonlyArray<number>
      readonly keys: ReadonlyArray<string>
      /** Per key: sorted interior edges on the sum of continuous entries, and the score of each bin. */
      readonly edges: ReadonlyArray<ReadonlyArray<number>>
      readonly scores: ReadonlyArray<ReadonlyArray<number>>
      /** Score of an unseen key. */
      readonly other: number
    }

/** A fitted model with the event chosen on it: {orientation · score ≥ threshold} means "guess D". */
export interface ChosenAttack {
  readonly shape: OutputShape
  readonly model: AttackModel
  readonly orientation: 1 | -1
  readonly threshold: number
}

/** A compiled scorer for one output kind. */
export type Scorer =
  | { readonly kind: 'scalar'; readonly score: (y: number) => number }
  | { readonly kind: 'vector'; readonly score: (v: Float64Array, offset: number) => number }
  | { readonly kind: 'category'; readonly score: (c: string) => number }

/** Number of entries of the sorted array `a` that are ≤ x (binary search). */
export const countAtMost = (a: ArrayLike<number>, x: number): number => {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((a[mid] as number) <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Fewer edges than this are searched directly. */
const LOOKUP_MIN_EDGES = 8

/**
 * `countAtMost(edges, x)` for ascending, strictly increasing `edges`, the same number, from a table of
 * the edges by the top 16 bits of their order-preserving keys (sorted.ts `orderedPrefix`: sign,
 * exponent and 4 mantissa bits): x's prefix p names the edges with a smaller prefix (every one ≤ x)
 * and the few with p itself (searched); the edges with a larger prefix are > x. The exceptions are
 * x = ±0 (+0 ≤ −0 as numbers, not as keys) and NaN: those are searched over all edges. Why (issue 23):
 * the histogram family's fits bin and score ~10⁶ outputs against ~47 edges, and a binary search's six
 * unpredictable branches per output were most of its longest jobs.
 */
export const edgeCounter = (edges: Float64Array): ((x: number) => number) => {
  if (edges.length < LOOKUP_MIN_EDGES || !HAS_ORDERED_PREFIX || edges.some((e) => e !== e)) return (x) => countAtMost(edges, x)
  // start[p]: the edges whose prefix is below p
  const start = new Int32Array((1 << 16) + 1)
  for (let i = 0; i < edges.length; i++) {
    const p = orderedPrefix(edges[i] as number)
    start[p + 1] = (start[p + 1] as number) + 1
  }
  for (let p = 0; p < 1 << 16; p++) start[p + 1] = (start[p + 1] as number) + (start[p] as number)
  return (x) => {
    if (x !== x || x === 0) return countAtMost(edges, x)
    const p = orderedPrefix(x)
    let lo = start[p] as number
    let hi = start[p + 1] as number
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((edges[mid] as number) <= x) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

/** Compiles a bin table to a function from a value to its bin's score. */
export const compileBins = (t: BinTable): ((y: number) => number) => {
  const scores = Float64Array.from(t.scores)
  if (t.exact !== null) {
    const index = new Map<number, number>()
    t.exact.forEach((v, i) => index.set(v, i))
    const other = t.other
    return (y) => {
      const i = index.get(y)
      return i === undefined ? other : (scores[i] as number)
    }
  }
  const bin = edgeCounter(Float64Array.from(t.edges ?? []))
  return (y) => scores[bin(y)] as number
}

const compileKeys = (t: KeyTable): ((k: string) => number) => {
  const index = new Map<string, number>()
  t.keys.forEach((k, i) => index.set(k, t.scores[i] as number))
  const other = t.other
  return (k) => index.get(k) ?? other
}

/** The key of a vector output for pattern tables: its entries joined by commas. */
export const patternKey = (v: ArrayLike<number>, offset: number, dim: number): string => {
  let s = String(v[offset] as number)
  for (let j = 1; j < dim; j++) s += `,${v[offset + j] as number}`
  return s
}

const f64 = new Float64Array(1)
const u32 = new Uint32Array(f64.buffer)
/** Index of the high word of a double in a Uint32Array view (1 on little-endian machines). */
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0
const LO = 1 - HI

/** Number of trailing zero bits of a nonzero 32-bit word. */
const ctz32 = (x: number): number => 31 - Math.clz32(x & -x)

/**
 * The granularity of a double: e such that the lowest set bit of y is worth 2^e (y = m·2^e, m odd).
 * 0 gives −1100 and ±∞ give 1100 (outside every finite double's range −1074…971), NaN never occurs.
 */
export const granularity = (y: number): number => {
  if (y === 0) return -1100
  if (!Number.isFinite(y)) return 1100
  f64[0] = y
  const hi = u32[HI] as number
  const lo = u32[LO] as number
  const exp = (hi >>> 20) & 0x7ff
  const base = exp === 0 ? -1074 : exp - 1075
  if (lo !== 0) return base + ctz32(lo)
  const top = (hi & 0xfffff) | (exp === 0 ? 0 : 0x100000)
  return base + 32 + ctz32(top)
}

/** The key of a joint output: recurring values as themselves, other entries as "*"; and the sum of the others. */
export const jointKey = (v: ArrayLike<number>, offset: number, dim: number, discrete: ReadonlySet<number>): { key: string; sum: number } => {
  let key = ''
  let sum = 0
  for (let j = 0; j < dim; j++) {
    const x = v[offset + j] as number
    if (discrete.has(x)) key += j === 0 ? String(x) : `,${x}`
    else {
      key += j === 0 ? '*' : ',*'
      sum += x
    }
  }
  return { key, sum }
}

/**
 * The threshold family's score, one function for every model: the estimation loop optimised with it
 * (a worker's warm-up, worker.ts) keeps it inlined for the next attack instead of deoptimising; the
 * fits copy the outputs for it instead of calling it per output (select.ts `scoreInto`).
 */
export const identity = (y: number): number => y

/** Compiles a model for outputs of the given shape. */
export const compileScorer = (model: AttackModel, shape: OutputShape): Scorer => {
  const dim = shape.dim
  switch (model.family) {
    case 'threshold':
      return { kind: 'scalar', score: identity }
    case 'histogram':
      if ('keys' in model) return { kind: 'category', score: compileKeys(model.keys) }
      return { kind: 'scalar', score: compileBins(model.bins) }
    case 'coordinate': {
      const j = model.index
      return { kind: 'vector', score: (v, o) => v[o + j] as number }
    }
    case 'naive-bayes': {
      const fs = model.tables.map(compileBins)
      return {
        kind: 'vector',
        score: (v, o) => {
          let s = 0
          for (let j = 0; j < dim; j++) s += (fs[j] as (y: number) => number)(v[o + j] as number)
          return s
        },
      }
    }
    case 'pattern': {
      const f = compileKeys(model.keys)
      return { kind: 'vector', score: (v, o) => f(patternKey(v, o, dim)) }
    }
    case 'logistic': {
      const mean = Float64Array.from(model.mean)
      const inv = Float64Array.from(model.scale, (s) => 1 / s)
      const w = Float64Array.from(model.weights)
      const b = model.bias
      return {
        kind: 'vector',
        score: (v, o) => {
          let s = b
          for (let j = 0; j < dim; j++) s += (w[j] as number) * ((v[o + j] as number) - (mean[j] as number)) * (inv[j] as number)
          return s
        },
      }
    }
    case 'bits': {
      const f = compileBins(model.bins)
      return { kind: 'scalar', score: (y) => f(granularity(y)) }
    }
    case 'joint': {
      const discrete = new Set(model.discrete)
      const index = new Map<string, number>()
      model.keys.forEach((k, i) => index.set(k, i))
      const edges = model.edges.map((e) => Float64Array.from(e))
      const scores = model.scores.map((sc) => Float64Array.from(sc))
      const other = model.other
      return {
        kind: 'vector',
        score: (v, o) => {
          const { key, sum } = jointKey(v, o, dim, discrete)
          const i = index.get(key)
          if (i === undefined) return other
          return (scores[i] as Float64Array)[countAtMost(edges[i] as Float64Array, sum)] as number
        },
      }
    }
  }
}

const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : x.toPrecision(4))

/** One line saying which event the attack uses, for reports. */
export const describeAttack = (a: ChosenAttack): string => {
  const ge = a.orientation === 1 ? '≥' : '≤'
  const t = fmt(a.orientation * a.threshold)
  const m = a.model
  switch (m.family) {
    case 'threshold':
      return `output ${ge} ${t}`
    case 'coordinate':
      return `output[${m.index}] ${ge} ${t}`
    case 'histogram':
    case 'pattern': {
      if ('keys' in m) {
        const inEvent = m.keys.keys.filter((_, i) => a.orientation * (m.keys.scores[i] as number) >= a.threshold)
        const what = m.family === 'pattern' ? 'output pattern' : 'output'
        const shown = inEvent.slice(0, 6).map((k) => (m.family === 'pattern' ? `[${k}]` : JSON.stringify(k)))
        return `${what} ∈ {${shown.join(', ')}${inEvent.length > 6 ? `, … (${inEvent.length} in all)` : ''}} (bins with log-likelihood ratio ${ge} ${t})`
      }
      const bins = m.bins
      if (bins.exact !== null) {
        const inEvent = bins.exact.filter((_, i) => a.orientation * (bins.scores[i] as number) >= a.threshold)
        return `output ∈ {${inEvent.slice(0, 8).map(fmt).join(', ')}${inEvent.length > 8 ? `, … (${inEvent.length} in all)` : ''}} (values with log-likelihood ratio ${ge} ${t})`
      }
      const n = bins.scores.filter((s) => a.orientation * s >= a.threshold).length
      return `output in ${n} of ${bins.scores.length} bins (bins with log-likelihood ratio ${ge} ${t})`
    }
    case 'naive-bayes':
      return `naive-Bayes log-likelihood ratio over ${m.tables.length} coordinates ${ge} ${t}`
    case 'logistic':
      return `logistic-regression log-odds ${ge} ${t} (weights ${m.weights.map((w) => w.toFixed(2)).join(', ')})`
    case 'bits': {
      const ex = m.bins.exact
      if (ex !== null) {
        const inEvent = ex.filter((_, i) => a.orientation * (m.bins.scores[i] as number) >= a.threshold)
        const lo = Math.min(...inEvent)
        const hi = Math.max(...inEvent)
        return `granularity of the output (lowest set bit 2^e) with e in {${inEvent.length <= 6 ? inEvent.join(', ') : `${lo} … ${hi}, ${inEvent.length} values`}} (log-likelihood ratio ${ge} ${t})`
      }
      return `granularity of the output in ${m.bins.scores.filter((x) => a.orientation * x >= a.threshold).length} bins (log-likelihood ratio ${ge} ${t})`
    }
    case 'joint':
      return `joint (pattern of ${m.discrete.map(fmt).join('/')} entries, sum of the other entries) in cells with log-likelihood ratio ${ge} ${t} over ${m.keys.length} patterns`
  }
}
