/**
 * Online variational Bayes for LDA (Hoffman, Blei & Bach 2010; the private-SVI paper's Algorithm 1 without the
 * noise) on typed arrays. Per document the E-step alternates
 *   φ_wk ∝ exp(E[ln θ_k] + E[ln β_kw]),  γ_k = α + Σ_w c_w φ_wk
 * until the mean |Δγ_k| is below `tolerance` (0.001, as Hoffman's onlineldavb.py) or `maxIterations`,
 * with φ implicit as in scikit-learn's `_update_doc_distribution`: per iteration K digammas give
 * e^{E ln θ}; norm_w = Σ_k e^{E ln θ_k} e^{E ln β_kw} + 1e-100; γ = α + e^{E ln θ} ⊙ Σ_w (c_w/norm_w)
 * e^{E ln β_·w}. The document's contribution c_w φ_wk = e^{E ln β_kw} · e^{E ln θ_k} c_w/norm_w is
 * accumulated without its first factor, which multiplies the mini-batch's rows once (`endBatch`).
 *
 * Layout and cost. λ, e^{E ln β} and the statistics are word-major (V×K, entry w·K + k). e^{E ln β}
 * is computed lazily, once per update and only for the rows the next mini-batch reads (the column
 * sums Σ_w λ_wk are kept by the M-step, so a row costs K digammas). The E-step gathers the
 * document's rows into a reused m×K block and runs its iterations there with the kernel of
 * ./gamma-sums.ts: WebAssembly SIMD by default (the block, e^{E ln θ}, the counts and the sums live
 * in the kernel's memory, rows padded to an even stride), the eight-words-at-a-time JavaScript loop
 * where WebAssembly SIMD is unavailable or `kernel: 'js'` is asked. No allocation per document
 * (the scratch doubles when a document has more distinct words than it holds). Measured on Brown
 * (bench/svi.bench.mjs): the typed-array layout ×2–2.5 the previous one-word loops, the SIMD
 * kernel a further ×2–3 over the JavaScript one, same γ iteration counts.
 *
 * @module
 */
import { digamma } from './digamma.js'
import { gammaSumsJs, wasmGammaSums, wasmSimdAvailable, type WasmGammaSums } from './gamma-sums.js'

export interface OvbOptions {
  /** E-step iterations per document at most (default 100). */
  readonly maxIterations?: number
  /** Stop when the mean |Δγ_k| falls below this (default 0.001). */
  readonly tolerance?: number
  /**
   * The kernel of the γ iterations (./gamma-sums.ts): 'wasm-simd' (the default; falls back to 'js'
   * where WebAssembly SIMD is unavailable, `OnlineLda.kernel` says which runs) or 'js'. The two
   * differ only in the association order of the sums.
   */
  readonly kernel?: GammaKernel
  /**
   * λ, e^{E ln β} and ψ(Σ_w λ_wk) in SharedArrayBuffers, for an E-step on worker threads
   * (./e-step-part.ts) that reads them in place (default false).
   */
  readonly shared?: boolean
}

export type GammaKernel = 'wasm-simd' | 'js'

/** One document as distinct words and their counts (`n` of each array used). */
export interface BagOfWords {
  readonly words: Int32Array
  readonly counts: Float64Array
  n: number
}

export const emptyBag = (capacity: number): BagOfWords => ({ words: new Int32Array(capacity), counts: new Float64Array(capacity), n: 0 })

/** Row w of e^{E ln β} (word-major, stride K) from λ: E[ln β_kw] = ψ(λ_wk) − ψ(Σ_w λ_wk). */
export const expElogBetaRow = (K: number, lambda: Float64Array, psiColSum: Float64Array, expElogBeta: Float64Array, w: number): void => {
  const o = w * K
  for (let k = 0; k < K; k++) expElogBeta[o + k] = Math.exp(digamma(lambda[o + k] as number) - (psiColSum[k] as number))
}

/**
 * One document's E-step with its own scratch (one per thread): the γ iterations against rows of
 * e^{E ln β} that the caller keeps current, leaving e^{E ln θ} (`theta`) and c_w/norm_w per word,
 * the two factors of the document's term c_w φ_wk = e^{E ln β_kw} · e^{E ln θ_k} c_w/norm_w.
 */
export class DocumentEStep {
  private readonly maxIterations: number
  private readonly tolerance: number
  /** The kernel that runs (the requested one, or 'js' where WebAssembly SIMD is unavailable). */
  readonly kernel: GammaKernel
  /** Row stride of `block`: K for the JS kernel, K rounded up to even for the SIMD kernel. */
  private readonly stride: number
  /** Distinct words per document that `block` holds; grown (doubled) on demand. */
  private capacity = 0
  private wasm: WasmGammaSums | undefined
  /** Byte addresses of e^{E ln θ}, acc, counts and block in the kernel's memory. */
  private readonly address = { theta: 0, acc: 0, counts: 0, block: 0 }
  // scratch: views into the kernel's memory for 'wasm-simd', plain arrays for 'js'
  private block = new Float64Array(0)
  private expElogTheta = new Float64Array(0)
  private acc = new Float64Array(0)
  private counts = new Float64Array(0)
  private readonly gamma: Float64Array

  constructor(
    readonly K: number,
    readonly alpha: number,
    options: Pick<OvbOptions, 'maxIterations' | 'tolerance' | 'kernel'> = {},
  ) {
    this.maxIterations = options.maxIterations ?? 100
    this.tolerance = options.tolerance ?? 0.001
    this.gamma = new Float64Array(K)
    this.kernel = (options.kernel ?? 'wasm-simd') === 'wasm-simd' && wasmSimdAvailable ? 'wasm-simd' : 'js'
    this.stride = this.kernel === 'wasm-simd' ? K + (K % 2) : K
    this.allocate(64)
  }

  /** e^{E ln θ} of the last document (the first K entries). */
  get theta(): Float64Array {
    return this.expElogTheta
  }

  /**
   * Scratch for documents of up to `capacity` distinct words. For the SIMD kernel one fresh, zeroed
   * memory laid out as e^{E ln θ} (stride), acc (stride), counts (capacity), block (capacity × stride):
   * the padding column stays 0 because only k < K is ever written.
   */
  private allocate(capacity: number): void {
    const { K, stride } = this
    this.capacity = capacity
    if (this.kernel === 'js') {
      this.block = new Float64Array(capacity * K)
      this.expElogTheta = new Float64Array(K)
      this.acc = new Float64Array(K)
      this.counts = new Float64Array(capacity)
      return
    }
    const a = this.address
    a.theta = 0
    a.acc = 8 * stride
    a.counts = 16 * stride
    a.block = 16 * stride + 8 * capacity
    const wasm = wasmGammaSums(a.block + 8 * capacity * stride) as WasmGammaSums
    this.wasm = wasm
    this.expElogTheta = new Float64Array(wasm.buffer, a.theta, stride)
    this.acc = new Float64Array(wasm.buffer, a.acc, stride)
    this.counts = new Float64Array(wasm.buffer, a.counts, capacity)
    this.block = new Float64Array(wasm.buffer, a.block, capacity * stride)
  }

  /** exp(ψ(γ_k) − ψ(Σγ)) into expElogTheta: K digammas per iteration. */
  private thetaExpectation(): void {
    const { K, gamma, expElogTheta } = this
    let s = 0
    for (let k = 0; k < K; k++) s += gamma[k] as number
    const ps = digamma(s)
    for (let k = 0; k < K; k++) expElogTheta[k] = Math.exp(digamma(gamma[k] as number) - ps)
  }

  /**
   * The document words[from..from+m) with counts[from..from+m), against the current rows of
   * `expElogBeta`: writes c_j/norm_j to ratio[ratioAt + j] and leaves e^{E ln θ} in `theta`.
   * Returns the number of γ iterations run; `gammaOut` (length K), when given, receives γ.
   */
  run(words: Int32Array, docCounts: Float64Array, from: number, m: number, expElogBeta: Float64Array, ratio: Float64Array, ratioAt: number, gammaOut?: Float64Array): number {
    if (m > this.capacity) this.allocate(Math.max(2 * this.capacity, m))
    const { K, stride, alpha, gamma, expElogTheta, acc, block, wasm, address } = this
    const counts = this.counts
    for (let j = 0; j < m; j++) {
      const src = (words[from + j] as number) * K
      const dst = j * stride
      // a plain copy: block.set(eb.subarray(…)) allocated a view per word
      for (let k = 0; k < K; k++) block[dst + k] = expElogBeta[src + k] as number
      counts[j] = docCounts[from + j] as number
    }
    gamma.fill(1)
    this.thetaExpectation()
    let it = 0
    for (; it < this.maxIterations; it++) {
      if (wasm === undefined) gammaSumsJs(block, expElogTheta, counts, acc, K, m)
      else wasm.run(address.block, address.theta, address.counts, address.acc, stride, m)
      let change = 0
      for (let k = 0; k < K; k++) {
        const g = alpha + (expElogTheta[k] as number) * (acc[k] as number)
        change += Math.abs(g - (gamma[k] as number))
        gamma[k] = g
      }
      this.thetaExpectation()
      if (change / K < this.tolerance) {
        it++
        break
      }
    }
    // with the final γ: c_w/norm_w
    for (let j = 0; j < m; j++) {
      const o = j * stride
      let s = 1e-100
      for (let k = 0; k < K; k++) s += (expElogTheta[k] as number) * (block[o + k] as number)
      ratio[ratioAt + j] = (counts[j] as number) / s
    }
    if (gammaOut !== undefined) gammaOut.set(gamma)
    return it
  }
}

export class OnlineLda {
  /** λ, V×K word-major. Callers that write it directly must call `refresh` afterwards. */
  readonly lambda: Float64Array
  /**
   * exp(E_q[ln β_kw]), V×K word-major; a row is current only when `rowVersion[w] === version`
   * (here), or when the caller computed it after the last `refresh` (`expElogBetaRow`).
   */
  readonly expElogBeta: Float64Array
  private readonly rowVersion: Int32Array
  private version = 1
  /** ψ(Σ_w λ_wk). */
  readonly psiColSum: Float64Array
  /** The E-step on this thread. */
  private readonly document: DocumentEStep
  /** The kernel that runs (the requested one, or 'js' where WebAssembly SIMD is unavailable). */
  readonly kernel: GammaKernel
  private ratio: Float64Array
  /** Words touched since `beginBatch` (rows of the statistic to finish), with a per-word stamp. */
  private readonly touched: Int32Array
  private readonly touchedStamp: Int32Array
  private nTouched = 0
  private batchStamp = 1

  constructor(
    readonly K: number,
    readonly V: number,
    readonly alpha: number,
    readonly eta: number,
    /** As given (the E-step on worker threads, ./statistic.ts, runs with the same). */
    readonly options: OvbOptions = {},
  ) {
    const f64 = (n: number): Float64Array => (options.shared === true ? new Float64Array(new SharedArrayBuffer(8 * n)) : new Float64Array(n))
    this.lambda = f64(V * K)
    this.expElogBeta = f64(V * K)
    this.rowVersion = new Int32Array(V)
    this.psiColSum = f64(K)
    this.ratio = new Float64Array(64)
    this.touched = new Int32Array(V)
    this.touchedStamp = new Int32Array(V)
    this.document = new DocumentEStep(K, alpha, options)
    this.kernel = this.document.kernel
  }

  /** After λ changed: ψ(Σ_w λ_wk) recomputed, every row of e^{E ln β} marked stale. */
  refresh(): void {
    const { K, V, lambda, psiColSum } = this
    psiColSum.fill(0)
    for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) psiColSum[k] = (psiColSum[k] as number) + (lambda[w * K + k] as number)
    for (let k = 0; k < K; k++) psiColSum[k] = digamma(psiColSum[k] as number)
    this.version++
  }

  /** Row w of e^{E ln β} (offset w·K), computed if stale. */
  private row(w: number): number {
    if (this.rowVersion[w] !== this.version) {
      expElogBetaRow(this.K, this.lambda, this.psiColSum, this.expElogBeta, w)
      this.rowVersion[w] = this.version
    }
    return w * this.K
  }

  /** e^{E ln β} as K×V topic-major (every row brought up to date); for inspection and tests. */
  expectedLogBetaExp(): Float64Array {
    const { K, V } = this
    const out = new Float64Array(K * V)
    for (let w = 0; w < V; w++) {
      const o = this.row(w)
      for (let k = 0; k < K; k++) out[k * V + w] = this.expElogBeta[o + k] as number
    }
    return out
  }

  /** Starts a mini-batch (the caller zeroes its V×K statistic). */
  beginBatch(): void {
    this.nTouched = 0
    this.batchStamp++
  }

  /**
   * The E-step for one document of the current batch: adds e^{E ln θ_k}·c_w/norm_w to row w of
   * `stats` (the contribution c_w φ_wk before its factor e^{E ln β_kw}, applied by `endBatch`).
   * Returns the number of γ iterations run; `gammaOut` (length K), when given, receives γ.
   */
  eStep(doc: BagOfWords, stats: Float64Array, gammaOut?: Float64Array): number {
    const m = doc.n
    if (this.ratio.length < m) this.ratio = new Float64Array(2 * m)
    const { K, ratio, touched, touchedStamp, batchStamp } = this
    for (let j = 0; j < m; j++) {
      const w = doc.words[j] as number
      this.row(w)
      if (touchedStamp[w] !== batchStamp) {
        touchedStamp[w] = batchStamp
        touched[this.nTouched++] = w
      }
    }
    const it = this.document.run(doc.words, doc.counts, 0, m, this.expElogBeta, ratio, 0, gammaOut)
    // e^{E ln θ_k}·c_w/norm_w into row w
    const theta = this.document.theta
    for (let j = 0; j < m; j++) {
      const dst = (doc.words[j] as number) * K
      const r = ratio[j] as number
      for (let k = 0; k < K; k++) stats[dst + k] = (stats[dst + k] as number) + r * (theta[k] as number)
    }
    return it
  }

  /** Ends the batch: multiplies the touched rows of `stats` by e^{E ln β}, giving Σ_d c_dw φ_dwk. */
  endBatch(stats: Float64Array): Float64Array {
    const { K, touched, expElogBeta } = this
    for (let i = 0; i < this.nTouched; i++) {
      const o = (touched[i] as number) * K
      for (let k = 0; k < K; k++) stats[o + k] = (stats[o + k] as number) * (expElogBeta[o + k] as number)
    }
    return stats
  }

  /** One document's contribution c_w φ_wk alone, into `stats` (zeroed first): begin, E-step, end. */
  documentStatistic(doc: BagOfWords, stats: Float64Array, gammaOut?: Float64Array): number {
    stats.fill(0)
    this.beginBatch()
    const it = this.eStep(doc, stats, gammaOut)
    this.endBatch(stats)
    return it
  }

  /** The M-step: λ ← (1 − ρ)λ + ρ(η + scale·s), then refresh. */
  update(stats: ArrayLike<number>, rho: number, scale: number): void {
    const { lambda, eta } = this
    const keep = 1 - rho
    for (let i = 0; i < lambda.length; i++) lambda[i] = keep * (lambda[i] as number) + rho * (eta + scale * (stats[i] as number))
    this.refresh()
  }

  /** φ = λ normalised per topic, K×V topic-major (the common protocol's φ). */
  topics(): Float64Array {
    const { K, V, lambda } = this
    const phi = new Float64Array(K * V)
    const sums = new Float64Array(K)
    for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) sums[k] = (sums[k] as number) + (lambda[w * K + k] as number)
    for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) phi[k * V + w] = (lambda[w * K + k] as number) / (sums[k] as number)
    return phi
  }
}
/** ρ_t = (τ0 + t)^−κ, t = 1, 2, … (Hoffman et al. 2010; the authors' code starts at τ0 + 1 too). */
export const learningRate = (tau0: number, kappa: number, t: number): number => Math.pow(tau0 + t, -kappa)

/**
 * Fills `bag` with the distinct words and counts of tokens[from..to) (order of first occurrence),
 * using `seen` (length V, all zero on entry and on exit) as scratch.
 */
export const bagOf = (tokens: ArrayLike<number>, from: number, to: number, bag: BagOfWords, seen: Int32Array): BagOfWords => {
  let m = 0
  for (let i = from; i < to; i++) {
    const w = tokens[i] as number
    const slot = seen[w] as number
    if (slot === 0) {
      bag.words[m] = w
      bag.counts[m] = 1
      seen[w] = ++m
    } else bag.counts[slot - 1] = (bag.counts[slot - 1] as number) + 1
  }
  for (let j = 0; j < m; j++) seen[bag.words[j] as number] = 0
  bag.n = m
  return bag
}
