/**
 * One private run of the spectral algorithm under a noise configuration: the graph (./graph.ts)
 * executed node by node, every noised edge a measurement on the release gate, the local-sensitivity
 * edges inside one propose-test-release step (../../mechanisms/ptr.ts).
 *
 * Order of the releases (all downstream computation is post-processing of what was released):
 * 1. each global edge's noisy M̂2 copy (e2, e4, e5, e8): M̂2 + E with E symmetric, N(0, σ²) on every
 *    entry i ≤ j (the release of the upper triangle, whose L2 sensitivity is at most Δ2); the
 *    V×V noise is materialised (V ≤ MAX_NOISED_VOCABULARY) and the range finder runs on
 *    X ↦ M̂2·X + E·X;
 * 2. W from M̂2 or its e2 copy; W† from M̂2 or its e5/e8 copy; the W used in T̂ from the e4 copy if e4
 *    is noised;
 * 3. T̂ = M̂3(W, W, W) from the documents; if e3 is noised, T̂ + E3(W, W, W) where E3 is iid
 *    N(0, σ3²) on all V³ entries of M̂3 — sampled exactly in distribution, never materialised:
 *    given W, E3(W, W, W) is Gaussian with Cov(G_abc, G_def) = σ3²(WᵀW)_ad(WᵀW)_be(WᵀW)_cf, which
 *    is Z(L, L, L) for Z iid N(0, σ3²) on k³ entries and LLᵀ = WᵀW (the k×k eigen-factor). The output
 *    is a function of (M̂3 + E3) only through (M̂3 + E3)(W, W, W), so its distribution, and with it
 *    the privacy argument, is that of materialising the V³ noise. The sum is symmetrised
 *    (post-processing) before the power method;
 * 4. if local edges (e6, e7, e9) are noised: PTR — the tests release private bounds of σ_k(M̂2)
 *    (and σ_1(M̂2), γ_s when needed), the sensitivities are evaluated at the bounds, and if one is
 *    not finite nothing more is released; otherwise T̂ (e6: symmetric noise on the k(k+1)(k+2)/6
 *    distinct entries), (ᾱ, μ̄) (e7) and μ (e9) get N(0, (z·L̃S)²) on every coordinate;
 * 5. decomposition, un-whitening and φ (clipped, renormalised) from what was released.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, infeasible } from '../../core/error.js'
import type { WordStream } from '../../core/words.js'
import { gaussian } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { ptrMeasurement } from '../../mechanisms/ptr.js'
import type { ReleaseGate } from '../../mechanisms/gate.js'
import type { Measurement } from '../../mechanisms/measurement.js'
import { fillNormal } from '../../mechanisms/noise/normal.js'
import { type Calibration, edgeLabel, edgesByKind, localReleaseEvent } from './budget.js'
import { edge, type EdgeId, type NoiseConfiguration } from './graph.js'
import { type BlockOperator, blockWidth, fillStandardNormal, type RangeFinderOptions, symmetricEigen } from './linalg.js'
import { type CountDocuments, secondMomentOperator, symmetrizeFromSorted, whitenedThirdMoment } from './moments.js'
import { topicsToPhi, unwhitenTopics, type Whitening, whiteningOf } from './pipeline.js'
import { type DataQuantities, secondMomentSensitivity, thirdMomentSensitivity } from './sensitivity.js'
import { type PowerMethodOptions, type TensorDecomposition, tensorPowerMethod } from './tensor.js'

/** Largest V for which a configuration noising M̂2 materialises the V×V noise (V² doubles: 72 MB at 3000). */
export const MAX_NOISED_VOCABULARY = 3000

export interface PrivateRunInput {
  readonly docs: CountDocuments
  readonly topics: number
  readonly alpha0: number
  readonly configuration: NoiseConfiguration
  readonly calibration: Calibration
  readonly relation: NeighbouringRelation
  readonly rangeFinder: RangeFinderOptions
  readonly power: PowerMethodOptions
  /**
   * The L2 sensitivity a local edge is calibrated to at PTR's released bounds; default the edge's own
   * (graph.ts). Only for comparing calibrations (examples/spectral-calibrations.mjs runs §6.2–6.4's
   * printed rates, sensitivity.ts printedRateSensitivity); the ledger and the plan do not change with it.
   */
  readonly localSensitivity?: (e: EdgeId, q: DataQuantities) => number
}

export interface PrivateRunResult {
  readonly phi: Float64Array
  /** The PTR tests' outcomes (already released), when there were tests. */
  readonly tests: ReadonlyArray<{ readonly label: string; readonly noisy: number; readonly bound: number }>
  /** Noise standard deviation actually used per noised edge. */
  readonly sigmas: ReadonlyArray<{ readonly edge: EdgeId; readonly sigma: number; readonly sensitivity: number }>
}

/** A symmetric V×V noise matrix: N(0, σ²) on i ≤ j, mirrored. */
const symmetricNoise = (words: WordStream, V: number, sigma: number): Float64Array => {
  const upper = fillNormal(words, sigma, new Float64Array((V * (V + 1)) / 2))
  const out = new Float64Array(V * V)
  let p = 0
  for (let i = 0; i < V; i++)
    for (let j = i; j < V; j++) {
      const x = upper[p++] as number
      out[i * V + j] = x
      out[j * V + i] = x
    }
  return out
}

/** X ↦ M̂2·X + E·X. */
const plusDense = (op: BlockOperator, noise: Float64Array, V: number): BlockOperator => (x, m, out) => {
  op(x, m, out)
  for (let i = 0; i < V; i++) {
    const o = i * m
    for (let j = 0; j < V; j++) {
      const e = noise[i * V + j] as number
      const xo = j * m
      for (let c = 0; c < m; c++) out[o + c] = (out[o + c] as number) + e * (x[xo + c] as number)
    }
  }
}

/** Sym(T)_abc = mean over the six permutations. */
const symmetrize = (t: Float64Array, k: number): Float64Array => {
  const out = new Float64Array(k * k * k)
  const at = (a: number, b: number, c: number): number => t[(a * k + b) * k + c] as number
  for (let a = 0; a < k; a++)
    for (let b = a; b < k; b++)
      for (let c = b; c < k; c++) out[(a * k + b) * k + c] = (at(a, b, c) + at(a, c, b) + at(b, a, c) + at(b, c, a) + at(c, a, b) + at(c, b, a)) / 6
  symmetrizeFromSorted(out, k)
  return out
}

/** E3(W, W, W) for E3 iid N(0, σ²) on V³ entries, sampled as Z(L, L, L) with LLᵀ = WᵀW (module comment, step 3). */
export const whitenedNoise = (words: WordStream, W: Float64Array, V: number, k: number, sigma: number): Float64Array => {
  const gram = new Float64Array(k * k)
  for (let v = 0; v < V; v++) for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) gram[a * k + b] = (gram[a * k + b] as number) + (W[v * k + a] as number) * (W[v * k + b] as number)
  const eig = symmetricEigen(gram, k)
  const L = new Float64Array(k * k) // L = Q·diag(√d): LLᵀ = Q d Qᵀ = WᵀW
  for (let a = 0; a < k; a++) for (let j = 0; j < k; j++) L[a * k + j] = (eig.vectors[a * k + j] as number) * Math.sqrt(Math.max(0, eig.values[j] as number))
  const z = fillNormal(words, sigma, new Float64Array(k * k * k))
  // mode products one at a time: G = Z ×1 L ×2 L ×3 L
  const mode = (x: Float64Array, which: 0 | 1 | 2): Float64Array => {
    const out = new Float64Array(k * k * k)
    for (let a = 0; a < k; a++)
      for (let b = 0; b < k; b++)
        for (let c = 0; c < k; c++) {
          let s = 0
          for (let j = 0; j < k; j++) {
            const idx = which === 0 ? (j * k + b) * k + c : which === 1 ? (a * k + j) * k + c : (a * k + b) * k + j
            const li = which === 0 ? a : which === 1 ? b : c
            s += (L[li * k + j] as number) * (x[idx] as number)
          }
          out[(a * k + b) * k + c] = s
        }
    return out
  }
  return mode(mode(mode(z, 0), 1), 2)
}

/** γ_s = min_i (λ_i − λ_{i+1})/4 over the decomposition's values sorted decreasingly, λ_{k+1} = 0. */
export const eigengap = (dec: TensorDecomposition): number => {
  const l = Array.from(dec.values, Math.abs).sort((a, b) => b - a)
  let g = Number.POSITIVE_INFINITY
  for (let i = 0; i < l.length; i++) g = Math.min(g, ((l[i] as number) - (l[i + 1] ?? 0)) / 4)
  return g
}

const addNoise = (values: Float64Array, words: WordStream, sigma: number): Float64Array => {
  const n = fillNormal(words, sigma, new Float64Array(values.length))
  for (let i = 0; i < n.length; i++) n[i] = (values[i] as number) + (n[i] as number)
  return n
}

/** Runs the configuration through the gate. A failed PTR test or an un-whitenable release ends the run with nothing further released. */
export const runPrivate = (input: PrivateRunInput, gate: ReleaseGate): E.Either<DpError, PrivateRunResult> => {
  const { docs, topics: k, alpha0, configuration: c, calibration: cal, relation: rel } = input
  const V = docs.vocabulary
  const N = docs.documents
  const noised = new Set(c.edges)
  const z = (e: EdgeId): number => cal.multipliers.find((m) => m.edge === e)?.z as number
  const uniform = (): number => gate.independent((w) => w.nextDouble())
  const m2 = secondMomentOperator(docs, alpha0)
  const d2 = secondMomentSensitivity(N, alpha0)
  const sigmas: Array<{ edge: EdgeId; sigma: number; sensitivity: number }> = []
  // 1–2. noisy M̂2 copies and the matrices computed from them. The un-noised whitening never ends
  // the run: if M̂2 itself cannot be whitened, the zero whitening stands in (T̂ = 0, μ = 0), so that
  // whether it could is not revealed outside the noise that protects everything downstream of it.
  // one test matrix Ω for every range finder of the run (internal randomness, independent of the data)
  const omega = fillStandardNormal(uniform, new Float64Array(V * blockWidth(V, k, input.rangeFinder)))
  let raw: Whitening | undefined
  const rawWhitening = (): Whitening => {
    if (raw === undefined) {
      const r = whiteningOf(m2, V, k, uniform, input.rangeFinder, 'M̂2', omega)
      raw = E.isRight(r) ? r.right : { k, vocabulary: V, W: new Float64Array(V * k), unwhiten: new Float64Array(V * k), eigenvalues: new Float64Array(k + 1) }
    }
    return raw
  }
  /** W from M̂2 or, when `e` is noised, from a fresh noisy copy (released through the gate); with the operator it came from. */
  const fromM2 = (e: EdgeId): E.Either<DpError, { readonly whitening: Whitening; readonly released?: BlockOperator }> => {
    if (!noised.has(e)) return E.right({ whitening: rawWhitening() })
    const sigma = z(e) * d2
    sigmas.push({ edge: e, sigma, sensitivity: d2 })
    const m: Measurement<undefined, Float64Array> = { label: edgeLabel(e), event: gaussian(z(e), 1, rel), run: (_, words) => symmetricNoise(words, V, sigma) }
    const op = plusDense(m2, gate.release(m, undefined), V)
    // post-processing of a release: its failure may be reported
    return E.map((whitening: Whitening) => ({ whitening, released: op }))(whiteningOf(op, V, k, uniform, input.rangeFinder, `the release of M̂2 for ${e}`, omega))
  }
  const wFrom = noised.has('e4') ? fromM2('e4') : fromM2('e2')
  if (E.isLeft(wFrom)) return wFrom
  if (noised.has('e4') && noised.has('e2')) {
    // W itself is released too (charged); T̂ uses e4's copy
    const extra = fromM2('e2')
    if (E.isLeft(extra)) return extra
  }
  const wUsed = wFrom.right.whitening
  const daggerFrom = noised.has('e8') ? fromM2('e8') : fromM2('e5')
  if (E.isLeft(daggerFrom)) return daggerFrom
  if (noised.has('e8') && noised.has('e5')) {
    // both edges into W† are noised: e5's copy is released (charged) too, W† then comes from e8's
    const extra = fromM2('e5')
    if (E.isLeft(extra)) return extra
  }
  // Un-whitening in W's own basis. When both W and the M̂2 copy behind W† are releases, (Wᵀ)† is
  // computed as M̂2_copy·W (= UΛ^{1/2} when the copy equals M̂2): post-processing of two releases,
  // and consistent with W column by column even where eigenvalues are close. Otherwise W† is
  // the copy's own U Λ^{1/2}, matched to W by the canonical signs only (the paper's construction).
  let unwhitenMatrix = daggerFrom.right.whitening.unwhiten
  const daggerOp = daggerFrom.right.released
  if (wFrom.right.released !== undefined && daggerOp !== undefined) {
    unwhitenMatrix = new Float64Array(V * k)
    daggerOp(wUsed.W, k, unwhitenMatrix)
  }
  // 3. T̂, with M̂3's noise whitened exactly when e3 is noised
  let tensor = whitenedThirdMoment(docs, alpha0, wUsed.W, k)
  if (noised.has('e3')) {
    const d3 = thirdMomentSensitivity(N, alpha0)
    const sigma = z('e3') * d3
    sigmas.push({ edge: 'e3', sigma, sensitivity: d3 })
    const m: Measurement<Float64Array, Float64Array> = {
      label: edgeLabel('e3'),
      event: gaussian(z('e3'), 1, rel),
      run: (t, words) => {
        const g = whitenedNoise(words, wUsed.W, V, k, sigma)
        for (let i = 0; i < g.length; i++) g[i] = (t[i] as number) + (g[i] as number)
        return g
      },
    }
    tensor = symmetrize(gate.release(m, tensor), k)
  }
  const power = input.power
  const unwhitenAll = (dec: TensorDecomposition): Float64Array => unwhitenTopics(dec, unwhitenMatrix, V, k, alpha0).mu
  const { local } = edgesByKind(c)
  if (local.length === 0) {
    const dec = tensorPowerMethod(tensor, k, uniform, power)
    return E.right({ phi: topicsToPhi(unwhitenAll(dec), k, V), tests: [], sigmas })
  }
  // 4. PTR over the local edges; the tested statistics are read off the un-noised M̂2 and T̂
  const quantities = cal.tests.map((t) => t.quantity)
  const statistics = (): number[] => {
    const un = rawWhitening()
    const eig = un.eigenvalues
    let gamma = Number.NaN
    if (quantities.includes('gammaS')) {
      const rawTensor = noised.has('e2') || noised.has('e4') || noised.has('e3') ? whitenedThirdMoment(docs, alpha0, un.W, k) : tensor
      gamma = eigengap(tensorPowerMethod(rawTensor, k, uniform, power))
    }
    return quantities.map((q) => (q === 'sigmaK' ? Math.max(0, eig[k - 1] as number) : q === 'sigma1' ? (eig[0] as number) : gamma))
  }
  const upperSigma1 = 1 + alpha0 / (alpha0 + 1) // ‖M̂2‖_F ≤ 1 + a (./sensitivity.ts)
  const tests = cal.tests.map((t) => ({ ...t, range: (t.quantity === 'sigma1' ? [0, upperSigma1] : [0, Number.POSITIVE_INFINITY]) as [number, number] }))
  type Calib = ReadonlyArray<{ edge: EdgeId; sensitivity: number }>
  const ptr = ptrMeasurement<undefined, { phi: Float64Array; sigmas: Array<{ edge: EdgeId; sigma: number; sensitivity: number }> }, Calib>({
    label: `${local.join(', ')} calibrated to the proposed bounds`,
    tests,
    relation: rel,
    releaseEvent: localReleaseEvent(local, z, rel),
    statistics,
    accept: (bounds) => {
      const q: DataQuantities = { documents: N, topics: k, alpha0, ...Object.fromEntries(quantities.map((name, i) => [name, bounds[i] as number])) }
      const out: Array<{ edge: EdgeId; sensitivity: number }> = []
      for (const e of local) {
        const s = (input.localSensitivity ?? ((x: EdgeId, y: DataQuantities) => edge(x).sensitivity.l2(y)))(e, q)
        if (!(Number.isFinite(s) && s > 0))
          return {
            ok: false,
            reason: `the sensitivity of ${e} at the released bounds (${quantities.map((name, i) => `${name} ${(bounds[i] as number).toExponential(3)}`).join(', ')}) is not finite (${edge(e).sensitivity.formula})`,
          }
        out.push({ edge: e, sensitivity: s })
      }
      return { ok: true, calibration: out }
    },
    release: (_, calib, words) => {
      const used: Array<{ edge: EdgeId; sigma: number; sensitivity: number }> = []
      const sigmaOf = (e: EdgeId): number => {
        const s = calib.find((x) => x.edge === e)?.sensitivity as number
        used.push({ edge: e, sigma: z(e) * s, sensitivity: s })
        return z(e) * s
      }
      let t = tensor
      if (noised.has('e6')) {
        // symmetric noise on the distinct entries a ≤ b ≤ c, mirrored
        const sigma = sigmaOf('e6')
        const noise = fillNormal(words, sigma, new Float64Array(k * k * k))
        t = Float64Array.from(tensor)
        for (let a = 0; a < k; a++) for (let b = a; b < k; b++) for (let cc = b; cc < k; cc++) t[(a * k + b) * k + cc] = (t[(a * k + b) * k + cc] as number) + (noise[(a * k + b) * k + cc] as number)
        symmetrizeFromSorted(t, k)
      }
      let dec = tensorPowerMethod(t, k, uniform, power)
      if (noised.has('e7')) {
        const sigma = sigmaOf('e7')
        dec = { values: addNoise(dec.values, words, sigma), vectors: addNoise(dec.vectors, words, sigma) }
      }
      let mu = unwhitenAll(dec)
      if (noised.has('e9')) mu = addNoise(mu, words, sigmaOf('e9'))
      return { phi: topicsToPhi(mu, k, V), sigmas: used }
    },
  })
  const outcome = gate.release(ptr, undefined)
  if (!outcome.passed)
    return E.left(
      infeasible(
        'ptr',
        `the propose-test-release test failed: ${outcome.reason}; nothing was released beyond the test results (${outcome.tests.map((t) => `${t.label}: ${t.bound.toExponential(3)}`).join('; ')}), whose cost is in the ledger. More documents, a larger budget for the tests, or configuration 1 (no test) may pass`,
      ),
    )
  return E.right({ phi: outcome.value.phi, tests: outcome.tests, sigmas: [...sigmas, ...outcome.value.sigmas] })
}
