// The synthetic setting of the spectral-LDA paper's Fig. 2 as dpaudit's spectral examples run it
// (examples/spectral-figures.mjs, examples/spectral-calibrations.mjs): K = 10 topics, V = 500 words,
// mean document length 100, β = 0.1, α = α0/K, and one generator seed per (N, α0), so that every
// script draws the same corpus.
import { seeded } from '../dist/core/rng.js'
import { generateLda, selectDocuments } from '../dist/trainers/index.js'

export const K = 10
export const V = 500

/** The corpus (documents of at least 3 tokens, as the third-moment estimator needs) and the true topics. */
export const syntheticCorpus = (N, alpha0) => {
  const g = generateLda({ topics: K, vocabulary: V, documents: N, alpha: alpha0 / K, beta: 0.1, meanDocumentLength: 100 }, seeded(`spectral-figures-${N}-${alpha0}`))
  const keep = []
  for (let d = 0; d < N; d++) if (g.right.corpus.docStart[d + 1] - g.right.corpus.docStart[d] >= 3) keep.push(d)
  return { corpus: selectDocuments(g.right.corpus, keep), truth: g.right.phi, kept: keep.length }
}

/** The options both scripts share, parsed: documents, ε grid, α0, δ, configurations. */
export const sharedSettings = (values) => ({
  N: Number(values.documents),
  EPSILONS: values.epsilons.split(',').map(Number),
  ALPHA0: Number(values.alpha0),
  DELTA: Number(values.delta),
  CONFIGS: values.configs.split(','),
})

export const log = (s) => process.stderr.write(`${s}\n`)
