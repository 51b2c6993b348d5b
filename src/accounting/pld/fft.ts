/**
 * The FFT: fft.js (Fedor Indutny, radix-4, MIT, typed, no dependencies) — a maintained, widely used
 * npm package and among the fastest pure-JS FFTs; it works on interleaved complex Float64Arrays
 * and needs power-of-two sizes, which the composition window is rounded up to anyway.
 *
 * Two real signals are transformed with one complex FFT (x + iy) and separated by conjugate
 * symmetry, X_k = (Z_k + conj Z_{N−k})/2, Y_k = (Z_k − conj Z_{N−k})/(2i) (done in ./compose.ts
 * while the powers are taken); two real results come back from one inverse FFT the same way.
 * Plans (twiddle tables) are cached per size, up to 2^20.
 *
 * @module
 */
import FFT from 'fft.js'

const cache = new Map<number, FFT>()
const MAX_CACHED = 2 ** 20
const MAX_PLANS = 3

/** A plan of size n (a power of two ≥ 4), cached for reuse. */
export const fftPlan = (n: number): FFT => {
  const hit = cache.get(n)
  if (hit !== undefined) {
    cache.delete(n)
    cache.set(n, hit) // most recently used last
    return hit
  }
  const plan = new FFT(n)
  if (n <= MAX_CACHED) {
    cache.set(n, plan)
    while (cache.size > MAX_PLANS) {
      const oldest = cache.keys().next().value as number
      cache.delete(oldest)
    }
  }
  return plan
}

/**
 * Inverse transform of two Hermitian spectra given by their half spectra (bins 0 … n/2): returns
 * the two real signals (the real and imaginary parts of IDFT(X + iY)), each read cyclically from
 * its own start (x[i] = IDFT(…)_{(startX + i) mod n}), so a composition window comes out in order
 * without a second copy. Starts are in 0 … n − 1.
 */
export const inversePair = (
  plan: FFT,
  xr: Float64Array,
  xi: Float64Array,
  yr: Float64Array,
  yi: Float64Array,
  data: Float64Array,
  work: Float64Array,
  startX = 0,
  startY = 0,
): { readonly x: Float64Array; readonly y: Float64Array } => {
  const n = plan.size
  for (let k = 0; k <= n / 2; k++) {
    // W_k = X_k + i Y_k; W_{n−k} = conj(X_k) + i conj(Y_k).
    data[2 * k] = xr[k]! - yi[k]!
    data[2 * k + 1] = xi[k]! + yr[k]!
    if (k > 0 && k < n / 2) {
      const j = n - k
      data[2 * j] = xr[k]! + yi[k]!
      data[2 * j + 1] = -xi[k]! + yr[k]!
    }
  }
  plan.inverseTransform(work, data)
  return { x: rotatedPart(work, n, startX, 0), y: rotatedPart(work, n, startY, 1) }
}

/** Part `part` (0 real, 1 imaginary) of interleaved complex `work`, read cyclically from `start`. */
const rotatedPart = (work: Float64Array, n: number, start: number, part: 0 | 1): Float64Array => {
  const out = new Float64Array(n)
  const head = n - start
  for (let i = 0; i < head; i++) out[i] = work[2 * (start + i) + part]!
  for (let i = head; i < n; i++) out[i] = work[2 * (start + i - n) + part]!
  return out
}
