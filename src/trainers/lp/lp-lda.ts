/**
 * LP-LDA (Zhao et al., arXiv:2010.04391, §V, Theorems 4–5): local differential privacy by randomized
 * response on word-presence bits. Each user perturbs their own document once (./perturb.ts: keep a
 * bit with probability 1 − f, else a fair coin), the server estimates the presence counts
 * N̂_t = (2n_t − fM)/(2(1 − f)) (eq. 8), reconstructs the vectors to match them (Step 4) and runs
 * collapsed Gibbs sampling on the reconstruction (./estimate.ts).
 *
 * Privacy, with the unit explicit. A bit is flipped with probability f/2, so one differing bit
 * costs ε_b = ln((1 − f/2)/(f/2)) — Theorem 4's "ε for each word" is this per-bit figure.
 * - Replace one word (the relation of Zhao et al., and the one the plan is accounted under): the
 *   replaced token's word may vanish from its document (bit t: 1 → 0) and the new word may appear
 *   (bit t′: 0 → 1), so one report differs in at most 2 bits: BitwiseRandomizedResponse(f/2, 2),
 *   2ε_b. Theorem 4's claim ε_b is below it.
 * - Replace one document (any change of one user's document): all V bits may differ, V·ε_b pure
 *   (Theorem 4's second figure) — sound and nearly vacuous; `unitGuarantees` states it beside the
 *   accounted ε, with the accountant's (ε, δ) for the same event.
 * - Users are disjoint and each perturbs once, so the whole perturbation is ONE release whose event
 *   is the per-report randomized response (parallel composition), not M composed events. The
 *   reconstruction and every Gibbs sweep read only the released reports: post-processing, declared
 *   as NoOp steps so the ledger shows them at no cost.
 * - With a shuffler (`shuffler: true`, an assumption about the deployment) the reports arrive in a
 *   random order and Feldman–McMillan–Talwar 2021 Thm 3.1 (../../accounting/shuffle.ts) gives a
 *   central (ε, δ) under replace-one document from ε0 = V·ε_b, when that ε0 is inside its
 *   condition. The word-level 2ε_b does not qualify as ε0: the other V − 2 bits of a report still
 *   identify its sender.
 *
 * Ambiguities and the readings chosen: N̂_t is real and may leave [0, M]; the reconstruction
 * rounds it stochastically and clamps it (estimate.ts). Eq. (9) is the variance over corpora drawn
 * with presence probability N_t/M; given the corpus the variance is its first term (estimate.ts,
 * tested). Step 5's "reconstructs a dataset" is read as one token per set bit.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { account } from '../../accounting/account.js'
import { shuffleAmplification } from '../../accounting/shuffle.js'
import { type DpError, formatError, invalidParameter } from '../../core/error.js'
import type { Rng } from '../../core/rng.js'
import { wordsFromRng, type WordStream } from '../../core/words.js'
import { bitwiseRandomizedResponse, noOp, type PrivacyEvent } from '../../mechanisms/event.js'
import { declared, type Schedule } from '../../mechanisms/schedule.js'
import { type NeighbouringRelation, replaceOne } from '../../mechanisms/neighbouring.js'
import { LDA_ASSUMPTIONS } from '../assumptions.js'
import { BASE_DEFAULTS, BaseConfig, checkBase } from '../config.js'
import { type CorpusStats, corpusStats, validateCorpus } from '../corpus/corpus.js'
import { jointLogLikelihood } from '../lda/loglik.js'
import { privateFitResult, runIterations } from '../lda/loop.js'
import { FastUniform } from '../lda/random.js'
import { makeSparseSampler } from '../lda/sparse.js'
import { initState, phiFromCounts } from '../lda/state.js'
import { ReleaseGate } from '../../mechanisms/gate.js'
import type { Measurement } from '../../mechanisms/measurement.js'
import { postProcessing } from '../release/post-processing.js'
import { type LdaTrainer, pureClaim } from '../trainer.js'
import { type PresenceColumns, presenceCorpus, reconstruct } from './estimate.js'
import { checkFlip, flipProbability, type LocalReports, perturbDocuments, type UserDocuments } from './perturb.js'
import { LDA_DP_PAPER } from '../papers.js'
import { numericFlag } from '../flags.js'
import { ldaFlags, ldaSurface } from '../lda-surface.js'

export const LpConfig = t.intersection([BaseConfig, t.type({ flip: t.number, shuffler: t.boolean })])
export type LpConfig = t.TypeOf<typeof LpConfig>

const WORD = replaceOne('word')
const DOCUMENT = replaceOne('document')

/** Bits of one report that a neighbouring step can change under replace-one word. */
export const WORD_BITS = 2

/** ε_b = ln((1 − f/2)/(f/2)), the cost of one differing bit (Theorem 4's per-"word" figure). */
export const bitEpsilon = (f: number): number => Math.log1p(-flipProbability(f)) - Math.log(flipProbability(f))

/** The randomized response on a report, when neighbouring reports differ in at most `bits` bits. */
export const presenceEvent = (f: number, bits: number, relation: NeighbouringRelation): PrivacyEvent => bitwiseRandomizedResponse(flipProbability(f), bits, relation)

const RR = 'randomized response on the word-presence bits, once per user (users disjoint: one release)'
const RECON = 'server: counts n_t, estimates N̂_t, reconstruction (Steps 1–4) — post-processing of the reports'
const SWEEP = 'CGS sweep on the reconstructed corpus — post-processing of the reports'

/** Steps 1–3 for all users as one measurement: the event is the per-report randomized response. */
export const perturbation = (c: LpConfig): Measurement<UserDocuments, LocalReports> => ({
  label: RR,
  event: presenceEvent(c.flip, WORD_BITS, WORD),
  run: (docs, words) => perturbDocuments(docs, c.flip, words, c.shuffler),
})

const reconstruction = (f: number): Measurement<LocalReports, PresenceColumns> => postProcessing(RECON, (r: LocalReports, words) => reconstruct(r, f, words))

/** An Rng over the gate's words, to seed the Gibbs sampler's stream from them. */
const gateRng = (words: WordStream): Rng => ({ kind: 'release gate', next: () => words.nextDouble() })

const validate = (c: LpConfig, stats?: CorpusStats): E.Either<DpError, LpConfig> => {
  const b = checkBase(c)
  if (E.isLeft(b)) return b
  const f = checkFlip(c.flip)
  if (E.isLeft(f)) return f
  if (typeof c.shuffler !== 'boolean') return E.left(invalidParameter('shuffler', c.shuffler, 'expected true or false'))
  if (stats !== undefined) {
    // the sampler packs count << bits | topic; a count here is at most M (one token per word per report)
    let bits = 1
    while (1 << bits < c.topics) bits++
    if (stats.documents >= 2 ** (31 - bits) || stats.documents * stats.vocabulary >= 2 ** 31)
      return E.left(invalidParameter('topics', c.topics, `too many reports (${stats.documents}) over V = ${stats.vocabulary} to pack counts for K = ${c.topics}`))
  }
  return E.right(c)
}

/** One release (the users' randomized response), then post-processing: the reconstruction and T sweeps, NoOp. */
const lpSchedule = (c: LpConfig): Schedule => ({
  before: [declared(perturbation(c)), { label: RECON, event: noOp }],
  each: [{ label: SWEEP, event: noOp }],
  iterations: c.iterations,
})

/** --flip F: LP-LDA's and OLP-LDA's randomized response. */
export const FLIP_FLAG = numericFlag('flip', 'flip', 'F', 'keep each presence bit with probability 1 − F')

export const lpLda: LdaTrainer<LpConfig> = {
  name: 'lp-lda',
  description: `LP-LDA (${LDA_DP_PAPER}, §V): randomized response on word-presence bits by each user, reconstruction and CGS at the server`,
  config: LpConfig,
  defaults: { ...BASE_DEFAULTS, flip: 0.5, shuffler: false },
  flags: [...ldaFlags(), FLIP_FLAG, { flag: 'shuffler', type: 'switch', field: 'shuffler', note: 'reports reach the server through a shuffler' }],
  ...ldaSurface,
  releases: ['phi', 'report-bits'],
  statementNotes: (c, stats, deltas) => E.map(unitNotes)(unitGuarantees(c, stats, deltas)),
  validate,
  relation: WORD,
  accountingRelation: WORD,
  schedule: (c) => E.map(lpSchedule)(validate(c)),
  claimed: (c, stats) => {
    const eb = bitEpsilon(c.flip)
    return pureClaim(
      `${LDA_DP_PAPER}, Theorem 4 (LP-LDA satisfies ln((1 − f/2)/(f/2))-LDP for each word, V·ln((1 − f/2)/(f/2)) for each document)`,
      `ε = ${eb.toPrecision(6)} "for each word" (a per-bit figure, claimed here for one replaced word) and V·ε = ${(stats.vocabulary * eb).toPrecision(6)} for each document`,
      eb,
      WORD,
    )
  },
  assumptions: (c) => [
    ...LDA_ASSUMPTIONS.slice(0, 1),
    'one document per user, perturbed once: the M reports come from disjoint users, so the perturbation is one release (parallel composition), not M composed ones',
    `a replaced word changes at most ${WORD_BITS} presence bits of its document's report (the old word may vanish, the new one appear): the plan is BitwiseRandomizedResponse(f/2, ${WORD_BITS}) under replace-one word`,
    `f = ${c.flip} read as in §V-A Step 2: keep a bit with probability 1 − f, else replace it by a fair coin, so each bit flips with probability f/2 = ${flipProbability(c.flip)}`,
    'the vocabulary (the bit positions) is public and fixed before any user reports; the reconstruction and CGS read only the released reports (post-processing, no cost)',
    ...(c.shuffler ? ['a shuffler: the reports reach the server through a party that permutes them and strips identities (a deployment assumption; the central guarantee in the notes rests on it)'] : []),
    LDA_ASSUMPTIONS[1] as string,
  ],
  fit: (corpus, c, rng, options = {}) => {
    const ok = validateCorpus(corpus)
    if (E.isLeft(ok)) return ok
    const v = validate(c, corpusStats(corpus))
    if (E.isLeft(v)) return v
    const gate = new ReleaseGate(wordsFromRng(rng), { ...options, schedule: lpSchedule(c) })
    // the user side: the only step that reads the documents
    const reports = gate.release(perturbation(c), { V: corpus.vocab.length, docStart: corpus.docStart, tokens: corpus.tokens }, 'users')
    // the server side: the reports and nothing else
    const rebuilt = gate.release(reconstruction(c.flip), reports, 'server')
    const data = presenceCorpus(rebuilt, corpus.vocab)
    const state = gate.independent((w) => {
      const u = new FastUniform(gateRng(w))
      return initState(data, c.topics, () => u.next(), 'by-word')
    })
    const sampler = makeSparseSampler(state, c.alpha, c.beta)
    const sweep = postProcessing(SWEEP, (_: undefined, words: WordStream) => sampler.sweep(new FastUniform(gateRng(words))))
    const run = runIterations(
      c.iterations,
      options,
      (it) => {
        gate.release(sweep, undefined, `iteration ${it}`)
        return data.tokens.length
      },
      () => {
        // the reconstruction's log-likelihood: computed from released data only, so no diagnostic
        sampler.syncDense()
        return jointLogLikelihood(state, c.alpha, c.beta)
      },
    )
    sampler.syncDense()
    return E.right(privateFitResult(gate, c, state.V, phiFromCounts(state.nwk, c.topics, state.V, c.beta), run))
  },
}

/** One unit's guarantee: pure ε and the accountant's tightest ε per δ. */
export interface UnitGuarantee {
  readonly relation: string
  readonly bits: number
  readonly pureEpsilon: number
  readonly atDelta: ReadonlyArray<{ readonly delta: number; readonly epsilon: number; readonly method: string }>
}

export interface LpUnits {
  /** ε_b: one differing bit. */
  readonly perBit: number
  /** One report under replace-one word (2 bits): what the plan is accounted under. */
  readonly word: UnitGuarantee
  /** One report under replace-one document (V bits). */
  readonly document: UnitGuarantee
  /** With a shuffler: FMT 2021 from ε0 = V·ε_b per δ, or why it does not apply. Absent unless asked. */
  readonly shuffled?: ReadonlyArray<{ readonly delta: number } & ({ readonly epsilon: number; readonly method: string } | { readonly refused: string })>
}

const unit = (f: number, bits: number, relation: NeighbouringRelation, deltas: ReadonlyArray<number>): E.Either<DpError, UnitGuarantee> => {
  const r = account({ schemaVersion: 1, relation, event: presenceEvent(f, bits, relation) }, { deltas })
  if (E.isLeft(r)) return r
  return E.right({
    relation: `${relation.kind} one ${relation.unit}`,
    bits,
    pureEpsilon: bits * bitEpsilon(f),
    atDelta: r.right.tightest.map((x) => ({ delta: x.delta, epsilon: x.epsilon, method: `${x.accountant}: ${x.method}` })),
  })
}

/**
 * LP-LDA's guarantee per unit, each from the accountant on the same randomized response: per bit,
 * per report under replace-one word (the plan), per report under replace-one document (V bits),
 * and with `config.shuffler` the shuffled central guarantee under replace-one document.
 */
export const unitGuarantees = (c: LpConfig, stats: CorpusStats, deltas: ReadonlyArray<number>): E.Either<DpError, LpUnits> => {
  const f = checkFlip(c.flip)
  if (E.isLeft(f)) return f
  const word = unit(c.flip, WORD_BITS, WORD, deltas)
  if (E.isLeft(word)) return word
  const document = unit(c.flip, stats.vocabulary, DOCUMENT, deltas)
  if (E.isLeft(document)) return document
  const base = { perBit: bitEpsilon(c.flip), word: word.right, document: document.right }
  if (!c.shuffler) return E.right(base)
  const shuffled = deltas.map((delta) => {
    const s = shuffleAmplification(document.right.pureEpsilon, stats.documents, delta)
    return E.isLeft(s) ? { delta, refused: formatError(s.left) } : { delta, epsilon: s.right.epsilon, method: s.right.method }
  })
  return E.right({ ...base, shuffled })
}

const num = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(4))) : '∞')

/** The per-unit guarantees as statement notes: never a per-bit ε presented as a per-document one. */
export const unitNotes = (u: LpUnits): string[] => {
  const atDelta = (g: UnitGuarantee): string => g.atDelta.map((a) => `ε = ${num(a.epsilon)} at δ = ${a.delta.toExponential(0)} [${a.method}]`).join('; ')
  const notes = [
    `per bit: ε_b = ln((1 − f/2)/(f/2)) = ${num(u.perBit)} — the cost of ONE differing bit, not a per-document guarantee (Theorem 4's "ε for each word")`,
    `per document, replace-one word (the accounted plan): ${u.word.bits} bits, pure ε = ${num(u.word.pureEpsilon)}; ${atDelta(u.word)}`,
    `per document, replace-one document (any change of one user's document): ${u.document.bits} bits = V, pure ε = V·ε_b = ${num(u.document.pureEpsilon)}; ${atDelta(u.document)} — sound and nearly vacuous`,
  ]
  for (const s of u.shuffled ?? [])
    notes.push(
      'refused' in s
        ? `with a shuffler, replace-one document at δ = ${s.delta.toExponential(0)}: no amplified guarantee — ${s.refused}`
        : `with a shuffler, replace-one document (central, assuming the shuffler): ε = ${num(s.epsilon)} at δ = ${s.delta.toExponential(0)} [${s.method}]`,
    )
  return notes
}
