// The features of the DP-SGD example (examples/dp-sgd-logreg.mjs): each e-mail becomes the
// L2-normalised indicator of the vocabulary words it contains, x = 1_S/√|S| (so ‖x‖₂ = 1), and its
// label y = 1 for spam, 0 for ham. Rows are stored as one compressed sparse row table of typed
// arrays, built in one pass without a per-document allocation.
//
// Why presence and unit norm: the gradient of the logistic loss at one example is (σ(w·x) − y)·x,
// of norm |σ(w·x) − y|·‖x‖₂ ≤ 1 — bounded before clipping, so the clipping norm C is the only
// thing the privacy analysis needs, and a C below 1 is active on the examples the model gets wrong
// (as clipping is in practice: Abadi et al. 2016, §3.1). No intercept: a constant feature would be
// one more coordinate every example moves, and the vocabulary already holds words common to ham.

/**
 * The bag-of-words `corpus` (a dpaudit Corpus: docStart, tokens, vocab, labels) as sparse rows.
 * `positive` is the label read as 1 (default "spam").
 */
export const presenceRows = (corpus, positive = 'spam') => {
  const D = corpus.docStart.length - 1
  const V = corpus.vocab.length
  const rowStart = new Int32Array(D + 1)
  // distinct words per document ≤ its tokens, so tokens.length bounds the non-zeros
  const cols = new Int32Array(corpus.tokens.length)
  const labels = new Float64Array(D)
  const stamp = new Int32Array(V) // stamp[w] = d + 1 once word w was seen in document d
  let nnz = 0
  for (let d = 0; d < D; d++) {
    for (let i = corpus.docStart[d]; i < corpus.docStart[d + 1]; i++) {
      const w = corpus.tokens[i]
      if (stamp[w] !== d + 1) {
        stamp[w] = d + 1
        cols[nnz++] = w
      }
    }
    rowStart[d + 1] = nnz
    labels[d] = corpus.labels[d] === positive ? 1 : 0
  }
  const values = new Float64Array(nnz)
  for (let d = 0; d < D; d++) {
    const n = rowStart[d + 1] - rowStart[d]
    const v = n === 0 ? 0 : 1 / Math.sqrt(n)
    values.fill(v, rowStart[d], rowStart[d + 1])
  }
  return { rows: D, columns: V, rowStart, cols: cols.slice(0, nnz), values, labels }
}

/** w·x_d for row d. */
export const rowDot = (x, d, w) => {
  let s = 0
  for (let k = x.rowStart[d]; k < x.rowStart[d + 1]; k++) s += w[x.cols[k]] * x.values[k]
  return s
}

/** ‖x_d‖₂ (1 for a non-empty row of `presenceRows`; computed, not assumed, so other features can be used). */
export const rowNorm = (x, d) => {
  let s = 0
  for (let k = x.rowStart[d]; k < x.rowStart[d + 1]; k++) s += x.values[k] * x.values[k]
  return Math.sqrt(s)
}

/** The logistic function, computed without overflow on either side. */
export const sigmoid = (z) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)))

/**
 * Accuracy of the linear classifier w (predict spam when w·x > 0) on the rows of `x`, and the
 * accuracy of always predicting the majority class of those rows (the baseline to beat).
 */
export const accuracy = (x, w) => {
  let correct = 0
  let positives = 0
  for (let d = 0; d < x.rows; d++) {
    const predicted = rowDot(x, d, w) > 0 ? 1 : 0
    if (predicted === x.labels[d]) correct++
    positives += x.labels[d]
  }
  return { accuracy: correct / x.rows, majority: Math.max(positives, x.rows - positives) / x.rows, documents: x.rows }
}
