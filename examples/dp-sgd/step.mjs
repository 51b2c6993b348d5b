// One DP-SGD step as a measurement (the function and its privacy event in one value), run through
// the release gate (Abadi et al. 2016, "Deep learning with differential privacy", Algorithm 1,
// with the Poisson-sampled lots of dp_accounting and Opacus):
//
//   1. Poisson sampling: each of the n training e-mails joins the lot independently with rate q;
//   2. per-example gradient of the logistic loss, g_i = (σ(w·x_i) − y_i)·x_i, clipped to L2 norm C:
//      ḡ_i = g_i · min(1, C/‖g_i‖₂);
//   3. the released value: Σ_{i ∈ lot} ḡ_i + N(0, σ²C²·I).
//
// Adding or removing one e-mail moves the clipped sum by one ḡ_i, of norm ≤ C, so step 3 is the
// Gaussian mechanism Gaussian(σC, Δ = C) and the whole step is PoissonSample(q, Gaussian(σC, C))
// under add/remove one document — the event dp_accounting writes
// PoissonSampledDpEvent(q, GaussianDpEvent(σ)) (the ratio σC/C = σ is all an accountant reads).
// Averaging by the expected lot size and the update of w are post-processing of the release.
//
// dpaudit/mechanisms gives the pieces: `miniBatchRelease` draws the lot's coins from the gate's
// words, calls `clippedSum` on the lot, and releases the sum through `gaussianVector`; its event is
// the sampling wrapper around the Gaussian's. The sum is written into one buffer allocated here, so
// the per-example work allocates nothing.
//
// `clipping: false` leaves step 2 out while still declaring Δ = C: the broken variant of
// examples/dp-sgd-logreg-broken.mjs, whose real sensitivity is max ‖g_i‖₂ ≤ 1 > C.
import { gaussianVector, miniBatchRelease } from 'dpaudit/mechanisms'
import { rowDot, rowNorm, sigmoid } from './features.mjs'

export const STEP_LABEL = 'clipped per-example gradient sum of a Poisson-sampled lot, Gaussian noise on every coordinate'

/**
 * The step measurement over the rows `x` (./features.mjs): its input is the current weights w
 * (computed from earlier releases only), its output the noisy clipped gradient sum. The expected
 * lot size is `batchSize` out of the declared `documents` (q = batchSize/documents).
 */
export const dpSgdStep = ({ x, batchSize, documents, clip, noiseMultiplier, relation, clipping = true }) => {
  const norms = new Float64Array(x.rows)
  for (let d = 0; d < x.rows; d++) norms[d] = rowNorm(x, d)
  const sum = new Float64Array(x.columns)
  const clippedSum = (lot, size, _words, w) => {
    sum.fill(0)
    for (let b = 0; b < size; b++) {
      const d = lot[b]
      const residual = sigmoid(rowDot(x, d, w)) - x.labels[d]
      const norm = Math.abs(residual) * norms[d]
      const c = residual * (clipping && norm > clip ? clip / norm : 1)
      for (let k = x.rowStart[d]; k < x.rowStart[d + 1]; k++) sum[x.cols[k]] += c * x.values[k]
    }
    return sum
  }
  return miniBatchRelease(STEP_LABEL, 'poisson', batchSize, x.rows, gaussianVector(STEP_LABEL, noiseMultiplier * clip, clip, relation), clippedSum, documents)
}
