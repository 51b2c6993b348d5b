/**
 * Counterexamples to the spectral-LDA paper's local-sensitivity Theorems 5 and 6 as configurations 2
 * and 3 use them: two neighbouring corpora (replace one document) whose moments move by O(1/N) —
 * M̂2 by exactly Theorem 4's 2/N in L1 — while the released quantity the algorithm computes moves
 * by O(1) at any N: T̂ = M̂3(W, W, W) (configuration 2, far above eq. (64)'s Δ_T, App. H.3) and the
 * power method's μ̄_i (configuration 3, above Theorem 6's 2√k·Δ_T/γ_s once N ≥ 10⁴).
 *
 * Both rest on one mechanism: when the top k eigenvalues of M̂2 tie (or nearly), one document
 * breaks the tie in a direction of its own, so the top-k eigenvectors — hence W, and W's basis of
 * the top-k subspace — turn by an O(1) angle between neighbours, while σ_k stays large and
 * separated from σ_{k+1} (Procedure 1's private test on σ_k passes easily). T̂ and μ̄ are written in
 * W's basis and turn with it. Eq. (64) depends on σ_k only, not on the gaps among the top k
 * eigenvalues that fix W's basis (its Lemma 28 compares W with a W′ chosen close to it, not with the
 * W′ the algorithm computes); eq. (60) also drops the first-order terms M̂3(W − W′, W, W). No choice
 * of signs or order of W's columns (the trainer's canonical sign rule included) undoes a rotation:
 * each change is also reported after the best signed permutation.
 *
 * Constructions (k = 2, three words w0, w1, w2, N ≡ 1 mod 3, n = (N − 1)/3):
 * - cyclic: n documents each of "w0 w0 w0", "w1 w1 w1", "w2 w2 w2"; D adds "w0 w0 w0", D′ adds
 *   "w0 w1 w1". The common part is invariant under the cyclic permutation of the words, and the
 *   plane orthogonal to (1, 1, 1) carries an irreducible representation of it, so on that plane M̂2
 *   is a multiple of the identity — exactly, at every α0 (Lemma 21's a·M1⊗M1 term lowers only σ_3,
 *   along (1, 1, 1)). M̂3 on the plane is the invariant cubic Σ_i (e_i·u)³, which a rotation by
 *   other than a multiple of 120° changes: T̂ moves by O(1). Its two tensor eigenvalues tie too, so
 *   γ_s is small and Theorem 6's bound large: it refutes Theorem 5, not Theorem 6.
 * - two-topic: n documents "w0 w0 w0" and 2n documents "w1 w1 w2 w2"; D adds "w0 w0 w0", D′ adds
 *   "w0 w1 w2". Topic 1 (e0, weight 1/3) and topic 2 ((e1 + e2)/2, weight 2/3) give M̂2 the
 *   eigenvalue 1/3 along e0 and along (e1 + e2)/√2 at α0 → 0 (Lemma 21's a-term splits them by
 *   O(α0): the construction is for α0 ≪ 1/N), while T̂'s eigenvalues (√3 and √(3/2)) are distinct,
 *   so γ_s ≈ 0.13 is large and μ̄ turns with W by O(1), above Theorem 6's bound.
 * Configuration 4's μ_i = ((α0 + 2)/2)λ_i(Wᵀ)†μ̄_i does not depend on W's basis: the rotation
 * cancels in both constructions (μ moves by O(1/N)), so neither refutes Theorem 7.
 *
 * Everything here is computed with the trainer's own estimators (moments.ts, pipeline.ts).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { seeded } from '../../core/rng.js'
import { fromDocuments } from '../../trainers/corpus/corpus.js'
import { countDocuments, type CountDocuments, secondMomentOperator, whitenedThirdMoment } from '../../trainers/spectral/moments.js'
import { decomposeAndUnwhiten, whiteningOf } from '../../trainers/spectral/pipeline.js'
import { eigengap } from '../../trainers/spectral/private.js'
import { decompositionReleaseSensitivity, equation64, outputReleaseSensitivity, printedRateSensitivity, secondMomentSensitivity, thirdMomentNormBound, thirdMomentSensitivity } from '../../trainers/spectral/sensitivity.js'

const V = 3
const K = 2
const VOCABULARY = ['w0', 'w1', 'w2']

/** A pair of neighbouring corpora: n = (N − 1)/3 sets the common part, then one document differs. */
export interface Construction {
  readonly name: 'cyclic' | 'two-topic'
  /** The common N − 1 documents for n = (N − 1)/3, as word ids. */
  readonly common: (n: number) => ReadonlyArray<ReadonlyArray<number>>
  readonly inD: ReadonlyArray<number>
  readonly inNeighbour: ReadonlyArray<number>
  /** The corpora in words, for n documents a group (a number, or a symbol such as "n"). */
  readonly text: (n: number | string) => string
}

const repeat = (n: number, doc: ReadonlyArray<number>): ReadonlyArray<number>[] => Array.from({ length: n }, () => doc)

export const CONSTRUCTIONS: Readonly<Record<Construction['name'], Construction>> = {
  cyclic: {
    name: 'cyclic',
    common: (n) => [...repeat(n, [0, 0, 0]), ...repeat(n, [1, 1, 1]), ...repeat(n, [2, 2, 2])],
    inD: [0, 0, 0],
    inNeighbour: [0, 1, 1],
    text: (n) => `${n} documents each of "w0 w0 w0", "w1 w1 w1" and "w2 w2 w2"; D adds "w0 w0 w0", its neighbour D′ adds "w0 w1 w1" instead`,
  },
  'two-topic': {
    name: 'two-topic',
    common: (n) => [...repeat(n, [0, 0, 0]), ...repeat(2 * n, [1, 1, 2, 2])],
    inD: [0, 0, 0],
    inNeighbour: [0, 1, 2],
    text: (n) => `${n} documents "w0 w0 w0" and ${typeof n === 'number' ? 2 * n : `2${n}`} documents "w1 w1 w2 w2"; D adds "w0 w0 w0", its neighbour D′ adds "w0 w1 w2" instead`,
  },
}

export interface TensorCounterexample {
  readonly construction: Construction['name']
  readonly documents: number
  readonly alpha0: number
  readonly topics: number
  readonly vocabulary: number
  /** The corpora in words. */
  readonly description: string
  /** σ_1, σ_2, σ_3 of M̂2 on D (σ_k = σ_2). */
  readonly sigmas: readonly [number, number, number]
  /** ‖M̂2(D) − M̂2(D′)‖ entrywise L1 and Frobenius, and the same for M̂3. */
  readonly momentChange: { readonly m2L1: number; readonly m2F: number; readonly m3L1: number; readonly m3F: number }
  /** ‖T̂(D) − T̂(D′)‖_F as computed; and the least over the 8 signed permutations of T̂(D′)'s indices. */
  readonly tensorChange: number
  readonly tensorChangeAligned: number
  /** The released quantities of configurations 3 and 4 (power method and un-whitening after T̂, same seeds): the least change over row orders and signs of μ̄ (k×k) and of μ (k×V). */
  readonly decompositionChange: number
  readonly outputChange: number
  /** Theorems 6 and 7 as dpaudit implements them (joint L2 of every (ᾱ_i, μ̄_i), of every μ_i) at D's σ_k, σ_1 and γ_s: what configurations 3 and 4 calibrate to. */
  readonly boundDecomposition: number
  readonly boundOutput: number
  readonly gammaS: number
  /** ‖T̂(D)‖_F. */
  readonly tensorNorm: number
  /** Eq. (64) at D's σ_k with dpaudit's proved Δ2, Δ3 and ‖M̂3‖_F bound; and with Theorem 4's Δ2 = Δ3 = 2/N. */
  readonly bound64Proved: number
  readonly bound64Theorem4: number
  /** §6.2's printed noise scale read as a sensitivity: k^{3/2}/(N σ_k^{3/2}). */
  readonly printedRate: number
  /** Theorem 4's 2/N and dpaudit's proved Δ2, Δ3 (L2). */
  readonly theorem4: number
  readonly delta2: number
  readonly delta3: number
  /** Range-finder seeds the change was computed with (it is the same for each). */
  readonly seeds: ReadonlyArray<number>
}

const corpus = (c: Construction, N: number, extra: ReadonlyArray<number>): E.Either<DpError, CountDocuments> =>
  countDocuments(fromDocuments(VOCABULARY, [...c.common((N - 1) / 3), extra]))

/** M̂2 as a dense V×V matrix (the operator applied to the identity). */
const denseM2 = (docs: CountDocuments, alpha0: number): Float64Array => {
  const eye = new Float64Array(V * V)
  for (let i = 0; i < V; i++) eye[i * V + i] = 1
  const out = new Float64Array(V * V)
  secondMomentOperator(docs, alpha0)(eye, V, out)
  return out
}

/** M̂3 as a dense V×V×V array (T̂ with W = the identity). */
const denseM3 = (docs: CountDocuments, alpha0: number): Float64Array => {
  const eye = new Float64Array(V * V)
  for (let i = 0; i < V; i++) eye[i * V + i] = 1
  return whitenedThirdMoment(docs, alpha0, eye, V)
}

const norms = (a: Float64Array, b: Float64Array): { l1: number; f: number } => {
  let l1 = 0
  let f = 0
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number)
    l1 += Math.abs(d)
    f += d * d
  }
  return { l1, f: Math.sqrt(f) }
}

/** T̂′ with its indices permuted by p and each index's sign flipped by s (a k×k×k array, k = 2). */
const signedPermutations = (t: Float64Array): Float64Array[] => {
  const out: Float64Array[] = []
  for (const p of [
    [0, 1],
    [1, 0],
  ])
    for (const s of [
      [1, 1],
      [1, -1],
      [-1, 1],
      [-1, -1],
    ]) {
      const u = new Float64Array(K * K * K)
      for (let a = 0; a < K; a++)
        for (let b = 0; b < K; b++)
          for (let c = 0; c < K; c++) u[(a * K + b) * K + c] = (s[a] as number) * (s[b] as number) * (s[c] as number) * (t[((p[a] as number) * K + (p[b] as number)) * K + (p[c] as number)] as number)
      out.push(u)
    }
  return out
}

interface Computed {
  readonly t: Float64Array
  readonly eig: Float64Array
  /** The tensor power method's eigenvectors μ̄_i (rows, k×k) and the un-whitened μ_i (rows, k×V). */
  readonly muBar: Float64Array
  readonly mu: Float64Array
  /** γ_s of the decomposition (min (λ_i − λ_{i+1})/4). */
  readonly gammaS: number
}

/** T̂ of a corpus as the trainer computes it (whiteningOf + whitenedThirdMoment), M̂2's top eigenvalues, and the stages after (same seed for both corpora). */
const computed = (docs: CountDocuments, alpha0: number, seed: number): E.Either<DpError, Computed> => {
  const rng = seeded(seed)
  const w = whiteningOf(secondMomentOperator(docs, alpha0), V, K, rng.next)
  if (E.isLeft(w)) return w
  const t = whitenedThirdMoment(docs, alpha0, w.right.W, K)
  const { decomposition, unwhitened } = decomposeAndUnwhiten(t, w.right, alpha0, seeded(`${seed}-power`).next)
  return E.right({ t, eig: w.right.eigenvalues, muBar: decomposition.vectors, mu: unwhitened.mu, gammaS: eigengap(decomposition) })
}

/** The least Frobenius distance between two sets of k rows (length n each) over the row orders and signs. */
const alignedRows = (a: Float64Array, b: Float64Array, n: number): number => {
  let best = Number.POSITIVE_INFINITY
  for (const p of [
    [0, 1],
    [1, 0],
  ]) {
    let total = 0
    for (let i = 0; i < K; i++) {
      let plus = 0
      let minus = 0
      for (let j = 0; j < n; j++) {
        const x = a[i * n + j] as number
        const y = b[(p[i] as number) * n + j] as number
        plus += (x - y) ** 2
        minus += (x + y) ** 2
      }
      total += Math.min(plus, minus)
    }
    best = Math.min(best, Math.sqrt(total))
  }
  return best
}

/**
 * A construction at N documents (N ≡ 1 mod 3, N ≥ 4) and prior concentration α0. Each change is
 * computed with each seed in `seeds` (range finder and power method) and the smallest is reported
 * (with V = 3 the range finder spans the whole space, so the seeds agree on T̂ to rounding).
 */
export const tensorCounterexample = (construction: Construction, N: number, alpha0: number, seeds: ReadonlyArray<number> = [1, 2, 3]): E.Either<DpError, TensorCounterexample> => {
  // the verdicts of configurations 2, 3 and 4 ask for the same corpora: computed once
  const key = JSON.stringify([construction.name, N, alpha0, seeds])
  const known = memo.get(key)
  if (known !== undefined) return known
  const out = computeCounterexample(construction, N, alpha0, seeds)
  if (memo.size > 64) memo.clear()
  memo.set(key, out)
  return out
}

const memo = new Map<string, E.Either<DpError, TensorCounterexample>>()

const computeCounterexample = (construction: Construction, N: number, alpha0: number, seeds: ReadonlyArray<number>): E.Either<DpError, TensorCounterexample> => {
  if (!(Number.isInteger(N) && N >= 4 && N % 3 === 1)) return E.left(invalidParameter('documents', N, 'the counterexample needs an integer N ≥ 4 with N ≡ 1 (mod 3): its common part has N − 1 documents in groups of (N − 1)/3'))
  if (!(alpha0 > 0 && Number.isFinite(alpha0))) return E.left(invalidParameter('alpha0', alpha0, 'α0 must be a finite number > 0'))
  const d = corpus(construction, N, construction.inD)
  const dn = corpus(construction, N, construction.inNeighbour)
  if (E.isLeft(d)) return d
  if (E.isLeft(dn)) return dn
  const m2 = norms(denseM2(d.right, alpha0), denseM2(dn.right, alpha0))
  const m3 = norms(denseM3(d.right, alpha0), denseM3(dn.right, alpha0))
  let change = Number.POSITIVE_INFINITY
  let aligned = Number.POSITIVE_INFINITY
  let decompositionChange = Number.POSITIVE_INFINITY
  let outputChange = Number.POSITIVE_INFINITY
  let first: Computed | undefined
  for (const seed of seeds) {
    const a = computed(d.right, alpha0, seed)
    const b = computed(dn.right, alpha0, seed)
    if (E.isLeft(a)) return a
    if (E.isLeft(b)) return b
    first ??= a.right
    change = Math.min(change, norms(a.right.t, b.right.t).f)
    aligned = Math.min(aligned, ...signedPermutations(b.right.t).map((u) => norms(a.right.t, u).f))
    decompositionChange = Math.min(decompositionChange, alignedRows(a.right.muBar, b.right.muBar, K))
    outputChange = Math.min(outputChange, alignedRows(a.right.mu, b.right.mu, V))
  }
  if (first === undefined) return E.left(invalidParameter('seeds', 0, 'at least one range-finder seed is needed'))
  // the range finder's block is the whole space here (m = min(V, k + oversampling) = 3): all three eigenvalues
  const sigmas: [number, number, number] = [first.eig[0] as number, first.eig[1] as number, first.eig[2] as number]
  const s2 = sigmas[1]
  let tn = 0
  for (const x of first.t) tn += x * x
  const quantities = { documents: N, topics: K, alpha0, sigmaK: s2, sigma1: sigmas[0], gammaS: first.gammaS }
  const delta2 = secondMomentSensitivity(N, alpha0)
  const delta3 = thirdMomentSensitivity(N, alpha0)
  return E.right({
    construction: construction.name,
    documents: N,
    alpha0,
    topics: K,
    vocabulary: V,
    description: construction.text((N - 1) / 3),
    sigmas,
    momentChange: { m2L1: m2.l1, m2F: m2.f, m3L1: m3.l1, m3F: m3.f },
    tensorChange: change,
    tensorChangeAligned: aligned,
    decompositionChange,
    outputChange,
    boundDecomposition: decompositionReleaseSensitivity(quantities),
    boundOutput: outputReleaseSensitivity(quantities),
    gammaS: first.gammaS,
    tensorNorm: Math.sqrt(tn),
    bound64Proved: equation64(K, s2, delta2, delta3, thirdMomentNormBound(alpha0)),
    bound64Theorem4: equation64(K, s2, 2 / N, 2 / N, thirdMomentNormBound(alpha0)),
    printedRate: printedRateSensitivity('e6', { documents: N, topics: K, alpha0, sigmaK: s2 }),
    theorem4: 2 / N,
    delta2,
    delta3,
    seeds,
  })
}
