// Auditing the DP-SGD plug-in with canaries, white-box (the auditor sees every step's release, as
// Nasr et al. 2021 and Steinke, Nasr & Jagielski 2023 assume for DP-SGD).
//
// A canary is an e-mail made of one word that no other e-mail contains, labelled spam: its feature
// vector is the unit vector e_j of its own word j (a "Dirac canary"), so its clipped gradient lands
// on coordinate j alone and nothing else moves coordinate j. The score of canary j is
// max_t −s_t[j], the largest step the releases took toward "spam" on its coordinate: a canary in
// the lot at step t adds min(C, |σ(w_j) − 1|) there (the clipped gradient), on top of N(0, σ²C²).
// Without clipping it adds |σ(w_j) − 1| ≈ ½ — many times C when C is small, which is how the
// broken variant is caught.
//
// Two audits (dpaudit/attacks):
// - `canaryMechanism`: the distinguishing game of one canary, run many times (`auditMechanism`, or
//   `dpaudit audit examples/dp-sgd/canary-audit.mjs`): training sets D and D ∪ {canary}, score as
//   above, the auditor picks a threshold on separate trials and bounds ε by Clopper–Pearson;
// - `oneRunAudit`: m canaries, each included with probability ½, ONE training run, guesses on the
//   top and bottom scores (`auditOneRun`, Steinke, Nasr & Jagielski 2023, Theorem 5.2).
// Both bound ε under add/remove one e-mail, the relation the trainer is accounted under.
//
// The audited configuration is small (AUDIT_CONFIG: 100 e-mails, a 200-word vocabulary, 100 steps),
// so a run takes milliseconds; its accounted ε is computed for that configuration. Nothing but the
// canary moves its coordinate, so the size of the rest changes the cost of a run, not the score.
import * as E from 'fp-ts/lib/Either.js'
import { account } from 'dpaudit/accounting'
import { auditOneRun } from 'dpaudit/attacks'
import { fromDocuments, loadDataset, planOf, selectDocuments } from 'dpaudit/trainers'

/** The audited configuration: q = 5/100 = 0.05, T = 100, σ = 2, and a small C = 0.05. */
export const AUDIT_CONFIG = { steps: 100, batchSize: 5, documents: 100, noiseMultiplier: 2, clip: 0.05, learningRate: 4 }

/** The first `documents` training e-mails of SpamAssassin over the first `vocabulary` words of its shipped vocabulary. */
export const auditCorpus = ({ documents = AUDIT_CONFIG.documents, vocabulary = 200 } = {}) => {
  const ds = loadDataset('spam', { vocabularySize: vocabulary })
  if (E.isLeft(ds)) throw new Error(`cannot load SpamAssassin: ${ds.left.message}`)
  return selectDocuments(ds.right.train, Int32Array.from({ length: Math.min(documents, ds.right.train.docStart.length - 1) }, (_, i) => i))
}

/** `base` plus the canaries i with included[i], canary i being word V + i (the vocabulary grows by m words either way). */
export const withCanaries = (base, included) => {
  const V = base.vocab.length
  const D = base.docStart.length - 1
  const docs = Array.from({ length: D }, (_, d) => base.tokens.subarray(base.docStart[d], base.docStart[d + 1]))
  const names = [...base.names]
  const labels = [...base.labels]
  included.forEach((inc, i) => {
    if (!inc) return
    docs.push(Int32Array.of(V + i))
    names.push(`canary-${i}`)
    labels.push('spam')
  })
  const vocab = [...base.vocab, ...included.map((_, i) => `zzcanary${i}`)]
  return fromDocuments(vocab, docs, names, labels)
}

/** Trains once and returns each canary word's score max_t −s_t[V + i] (white-box: read from the gate's releases). */
export const canaryScores = (trainer, corpus, config, canaries, rng) => {
  const V0 = corpus.vocab.length - canaries
  const scores = new Float64Array(canaries).fill(Number.NEGATIVE_INFINITY)
  const fit = trainer.fit(corpus, config, rng, {
    onRelease: (r) => {
      const s = r.value
      for (let i = 0; i < canaries; i++) if (-s[V0 + i] > scores[i]) scores[i] = -s[V0 + i]
    },
  })
  if (E.isLeft(fit)) throw new Error(`training failed: ${fit.left.message}`)
  return scores
}

/** The accounted ε of `config` at δ (the tightest of dpaudit's accountants on the trainer's plan). */
export const accountedEpsilon = (trainer, config, delta) => {
  const plan = planOf(trainer, { ...trainer.defaults, ...config }, { documents: config.documents })
  if (E.isLeft(plan)) throw new Error(plan.left.message)
  const r = account({ schemaVersion: 1, relation: trainer.accountingRelation, event: plan.right }, { deltas: [delta] })
  if (E.isLeft(r)) throw new Error(r.left.message)
  return r.right.tightest[0].epsilon
}

/**
 * The distinguishing game of one canary, as `dpaudit audit` takes it: input { canary: boolean }
 * (the corpus is `base` with or without the canary), output its score.
 */
export const canaryMechanism = (trainer, base, config) => {
  const sides = [withCanaries(base, [false]), withCanaries(base, [true])]
  // without the canary the vocabulary still has its word (no e-mail uses it): the two runs release vectors of one length
  return (input, rng) => canaryScores(trainer, sides[input.canary ? 1 : 0], config, 1, rng)[0]
}

/** The one-run audit: m canaries, one training run, the top and bottom `guesses/2` scores guessed in and out. */
export const oneRunAudit = ({ trainer, base, config, canaries = 1000, guesses = canaries, delta = 1e-5, seed = 'dp-sgd-one-run', confidence = 0.95 }) =>
  auditOneRun({
    canaries,
    run: (included, rng) => canaryScores(trainer, withCanaries(base, included), config, canaries, rng),
    score: (scores, i) => scores[i],
    guessIn: guesses / 2,
    guessOut: guesses / 2,
    delta,
    confidence,
    seed,
  })
