/**
 * The checks of the papers' privacy claims. Each takes the claim's parameters (decoded with io-ts,
 * so a bad claims file gets one clear message), recomputes the claim with dpaudit's accountants and
 * trainers' plans, and returns a Verdict whose sentence carries the computed numbers. The wording of
 * each verdict follows the independent recomputation recorded in issue 17; the numbers in it are
 * computed here.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { zhuWangPoissonRdp } from '../../accounting/rdp/poisson-general.js'
import { gaussianRdp } from '../../accounting/rdp/closed-forms.js'
import type { DpError } from '../../core/error.js'
import { compose, discreteLaplace, gaussian, labeled, poissonSample, selfCompose } from '../../mechanisms/event.js'
import { addRemove, replaceOne } from '../../mechanisms/neighbouring.js'
import { topicDrawEvent, inherentEpsilon } from '../../trainers/hdp.js'
import { presenceEvent, bitEpsilon } from '../../trainers/lp/lp-lda.js'
import { TRAINERS } from '../../trainers/registry.js'
import { privacyStatement } from '../../trainers/statement.js'
import type { CorpusStats } from '../../trainers/corpus/corpus.js'
import { discreteLaplaceTableEvent } from '../../mechanisms/measurement.js'
import { multiplierEvent } from '../../trainers/svi/accounting.js'
import { samplingRelation } from '../../trainers/svi/trainer.js'
import { type DeltaReading, zcdpChain } from '../../trainers/svi/chain.js'
import type { PaperClaim } from './codec.js'
import { all, cell, claimHead, decodeAt, list, pureEpsilon, range, rdpAt, sig, tightestEpsilon } from './evidence.js'
import type { ClaimVerdict } from './verdict.js'

const params = <A>(codec: t.Decoder<unknown, A>, claim: PaperClaim): E.Either<DpError, A> => decodeAt(codec, claim.parameters, `${claim.id}.parameters`)
const head = claimHead

const WORD_AR = addRemove('word')
const WORD_RO = replaceOne('word')

// ---------------------------------------------------------------------------------------------
// The SUB-LDA paper
// ---------------------------------------------------------------------------------------------

const Table3Params = t.type({
  alpha: t.number,
  epsilonAlpha: t.number,
  sigma2: t.number,
  sensitivity: t.number,
  rows: t.array(t.type({ gamma: t.number, iterations: t.number, epsSub: t.number, total: t.number })),
})

/**
 * SUB-LDA Table 3 against its own eq. (3) (Theorem 3.1, the tight Zhu–Wang expression, which for the
 * Gaussian is the exact Poisson-subsampled Gaussian RDP of Mironov–Talwar–Zhang 2019) and against
 * Zhu–Wang 2019 Thm 6 (the general bound §5.4 says was used), at the paper's α and σ.
 */
export const checkSubLdaTable3 = (claim: PaperClaim, paper: string): E.Either<DpError, ClaimVerdict> => {
  const p = params(Table3Params, claim)
  if (E.isLeft(p)) return p
  const { alpha, sigma2, sensitivity, rows } = p.right
  const sigma = Math.sqrt(sigma2)
  const base = (gamma: number) => poissonSample(gamma, gaussian(sigma, sensitivity, WORD_AR))
  const computed = all(
    rows.map((r) =>
      E.map((exact: number) => ({
        ...r,
        exact,
        zhuWang: zhuWangPoissonRdp(r.gamma, (l) => gaussianRdp(sigma / sensitivity, l), alpha),
      }))(rdpAt(base(r.gamma), WORD_AR, alpha)),
    ),
  )
  if (E.isLeft(computed)) return computed
  const cs = computed.right
  // printed to two decimals: a claim more than half a printed unit below the exact value is understated
  const below = cs.filter((r) => r.epsSub < r.exact - 0.005)
  const reproduced = cs.filter((r) => Math.abs(r.epsSub - r.exact) <= 0.005)
  const worst = below.reduce((w, r) => (r.exact - r.epsSub > w.exact - w.epsSub ? r : w), below[0] ?? cs[0]!)
  const inconsistent = cs.filter((r) => Math.abs(r.iterations * r.epsSub - r.total) > 0.005)
  const gap = (r: (typeof cs)[number]) => r.exact - r.epsSub
  const statement =
    below.length === 0
      ? `Every printed ε_sub reproduces the paper's own eq. (3) in its own model to the printed precision.`
      : `Table 3's printed ε_sub at γ = ${below.map((r) => r.gamma).join(', ')} are below the paper's own eq. (3) evaluated in its own model ` +
        `(Poisson rate γ per word, Gaussian σ² = ${sigma2}, L2 sensitivity ${sensitivity}, add/remove one word, α = ${alpha}) by ${range(below.map(gap))} ` +
        `(${range(below.map((r) => (100 * gap(r)) / r.exact), 2)} % of the exact value; the accumulated totals by up to ${sig(worst.iterations * gap(worst), 3)} at γ = ${worst.gamma}); ` +
        `${reproduced.length > 0 ? `γ = ${reproduced.map((r) => r.gamma).join(', ')} reproduce${reproduced.length === 1 ? 's' : ''} to the printed precision. ` : ''}` +
        `They are also below Zhu–Wang Theorem 6, the bound §5.4 says was used. The reason is unknown. ` +
        `The larger problems are elsewhere (claim sub-lda.algorithm1): Algorithm 1 as written noises the global counts, so there is no amplification at all, and word replacement has L2 sensitivity √2.`
  return E.right({
    claim: head(claim, paper),
    kind: below.length === 0 ? 'holds' : 'understated',
    statement,
    ...(below.length === 0
      ? {}
      : { understatedBy: `ε_sub by up to ${sig(gap(worst), 3)} (${sig((100 * gap(worst)) / worst.exact, 3)} %) at γ = ${worst.gamma}; Iter·ε_sub by up to ${sig(worst.iterations * gap(worst), 3)}` }),
    assumptions: {
      relation: 'add/remove one word (the relation of Theorem 3.1 and of Lemma 4.1’s proof)',
      sampling: 'Poisson sampling of words at rate γ',
      reading: `the paper's own model: one Gaussian release per iteration of L2 sensitivity ${sensitivity}, σ² = α/(2ε(α)) = ${sigma2}; RDP composed at the fixed order α = ${alpha}`,
      other: ['this takes the amplification at face value; claim sub-lda.algorithm1 shows it does not apply to Algorithm 1'],
    },
    evidence: [
      {
        title: `ε_sub(α = ${alpha}) per iteration and Iter·ε_sub`,
        columns: ['γ', 'Iter', 'claimed ε_sub', 'exact (eq. 3)', 'Zhu–Wang Thm 6', 'claimed − exact', 'relative', 'claimed total', 'Iter × claimed', 'exact total'],
        rows: cs.map((r) => [
          r.gamma,
          r.iterations,
          r.epsSub,
          cell(r.exact),
          cell(r.zhuWang),
          cell(r.epsSub - r.exact, 3),
          `${sig((100 * (r.epsSub - r.exact)) / r.exact, 3)} %`,
          r.total,
          cell(r.iterations * r.epsSub),
          cell(r.iterations * r.exact),
        ]),
      },
    ],
    notes: [
      'exact: dpaudit’s RDP accountant on PoissonSample(γ, Gaussian(σ, Δ)) — Mironov, Talwar & Zhang 2019 (integer α: the binomial expansion; equal term by term to eq. (3) for the Gaussian)',
      'Zhu–Wang Thm 6: the general Poisson-subsampled RDP bound (3 × the ℓ ≥ 3 terms), dpaudit’s zhuWangPoissonRdp',
      ...(inconsistent.length > 0
        ? [`printed totals that are not Iter × ε_sub: ${inconsistent.map((r) => `γ = ${r.gamma}: ${r.iterations} × ${r.epsSub} = ${sig(r.iterations * r.epsSub, 5)}, printed ${r.total}`).join('; ')} (kept as printed)`]
        : []),
    ],
  })
}

const Algorithm1Params = t.type({
  alpha: t.number,
  epsilonAlpha: t.number,
  sigma2: t.number,
  delta: t.number,
  rows: t.array(t.type({ gamma: t.number, iterations: t.number, total: t.number })),
})

/** SUB-LDA Algorithm 1 as written: global counts noised (no amplification), word replacement Δ₂ = √2. */
export const checkSubLdaAlgorithm1 = (claim: PaperClaim, paper: string): E.Either<DpError, ClaimVerdict> => {
  const p = params(Algorithm1Params, claim)
  if (E.isLeft(p)) return p
  const { alpha, sigma2, delta, rows } = p.right
  const sigma = Math.sqrt(sigma2)
  const ar = gaussian(sigma, 1, WORD_AR)
  const ro = gaussian(sigma, Math.SQRT2, WORD_RO)
  const perAr = rdpAt(ar, WORD_AR, alpha)
  const perRo = rdpAt(ro, WORD_RO, alpha)
  if (E.isLeft(perAr)) return perAr
  if (E.isLeft(perRo)) return perRo
  const computed = all(
    rows.map((r) => {
      const amplified = tightestEpsilon(selfCompose(poissonSample(r.gamma, ar), r.iterations), WORD_AR, delta, ['rdp', 'pld'])
      const unamplifiedRo = tightestEpsilon(selfCompose(ro, r.iterations), WORD_RO, delta, ['rdp', 'pld', 'zcdp'])
      const rdpRo = rdpAt(selfCompose(ro, r.iterations), WORD_RO, alpha)
      if (E.isLeft(amplified)) return amplified
      if (E.isLeft(unamplifiedRo)) return unamplifiedRo
      if (E.isLeft(rdpRo)) return rdpRo
      return E.right({ ...r, amplified: amplified.right, unamplifiedRo: unamplifiedRo.right, rdpRo: rdpRo.right })
    }),
  )
  if (E.isLeft(computed)) return computed
  const cs = computed.right
  const statement =
    `Table 3's amplified totals cannot be derived for Algorithm 1 as written. Algorithm 1 noises the global counts n_t^k, which hold the current topic of every word whether or not it was sampled, ` +
    `so the differing word enters every release and Poisson subsampling gives no amplification at all: each release costs the unsubsampled ε(${alpha}) = ${sig(perAr.right)} under add/remove one word. ` +
    `Under word replacement (HDP-LDA's relation, which SUB-LDA inherits) two counts move, the L2 sensitivity is √2, and the same σ² = ${sigma2} gives ε(${alpha}) = ${sig(perRo.right)} per release: ` +
    `Iter × ${sig(perRo.right)} = ${range(cs.map((r) => r.rdpRo))} at α = ${alpha} against the printed ${range(cs.map((r) => r.total))}, ` +
    `or (ε, ${delta}) = ${range(cs.map((r) => r.unamplifiedRo.epsilon))} against ${range(cs.map((r) => r.amplified.epsilon))} if the amplification applied.`
  return E.right({
    claim: head(claim, paper),
    kind: 'not-derivable',
    statement,
    assumptions: {
      relation: 'replace one word (Zhao et al.’s relation for HDP-LDA, which SUB-LDA extends); add/remove one word shown for the paper’s own model',
      sampling: 'Poisson sampling of words at rate γ — it selects which words are re-drawn, not which enter the noised counts',
      reading: 'one Gaussian release of the count matrix per iteration (§4.1’s reading); Algorithm 1 places the noise inside the per-word loop, which adds releases and can only be worse',
      other: ['the topic draws’ inherent privacy (HDP-LDA’s ε_I) and the un-noised document–topic counts behind the released Θ are not charged here; both only add to the loss'],
    },
    evidence: [
      {
        title: `per release at α = ${alpha}`,
        columns: ['model', 'L2 sensitivity', 'relation', `ε(${alpha})`],
        rows: [
          ['Gaussian, σ² = 3.5', 1, 'add/remove one word', cell(perAr.right)],
          ['Gaussian, σ² = 3.5', cell(Math.SQRT2), 'replace one word', cell(perRo.right)],
        ],
      },
      {
        title: `accumulated over Iter iterations (δ = ${delta})`,
        columns: ['γ', 'Iter', 'printed total (amplified RDP)', `replace-one, no amplification: ε(${alpha})`, '(ε, δ) if amplified (paper’s model)', '(ε, δ) replace-one, no amplification'],
        rows: cs.map((r) => [r.gamma, r.iterations, r.total, cell(r.rdpRo), cell(r.amplified.epsilon), cell(r.unamplifiedRo.epsilon)]),
      },
    ],
    notes: [
      `RDP: dpaudit’s RDP accountant (Gaussian α/(2z²); composition sums at each order); (ε, δ): the tightest of dpaudit’s RDP and PLD accountants (${cs[0]?.unamplifiedRo.method ?? ''})`,
    ],
  })
}

// ---------------------------------------------------------------------------------------------
// Zhao et al.: HDP-LDA Theorem 3, the CDP baselines, LP-LDA Theorem 4
// ---------------------------------------------------------------------------------------------

const Corpus = t.type({ name: t.string, documents: t.number, vocabulary: t.number, tokens: t.number, maxDocumentLength: t.number })
const HdpParams = t.type({
  corpus: Corpus,
  config: t.type({ topics: t.number, iterations: t.number, alpha: t.number, beta: t.number, epsilonL: t.number, clip: t.number }),
  delta: t.number,
})

const stats = (c: t.TypeOf<typeof Corpus>): CorpusStats => ({ documents: c.documents, vocabulary: c.vocabulary, tokens: c.tokens, maxDocumentLength: c.maxDocumentLength })

/** A trainer's statement on public corpus sizes: the claim, the pure ε of its plan, the accounted (ε, δ). */
const trainerFigures = (name: keyof typeof TRAINERS, config: Record<string, unknown>, corpus: CorpusStats, delta: number) => {
  const trainer = TRAINERS[name]
  const s = privacyStatement(trainer, { ...trainer.defaults, ...config } as unknown as never, corpus, [delta])
  if (E.isLeft(s)) return s
  const pure = pureEpsilon(s.right.plan, trainer.accountingRelation)
  if (E.isLeft(pure)) return pure
  const g = s.right.guarantee[0]!
  return E.right({ claimed: s.right.claim.atDelta[0]?.epsilon ?? Number.NaN, pure: pure.right, accounted: g.epsilon, accountant: g.accountant, method: g.method })
}

/** HDP-LDA Theorem 3: exact under fresh noise and a snapshot sampler; the literal in-place Algorithm 1 falls short. */
export const checkHdpTheorem3 = (claim: PaperClaim, paper: string): E.Either<DpError, ClaimVerdict> => {
  const p = params(HdpParams, claim)
  if (E.isLeft(p)) return p
  const { corpus, config, delta } = p.right
  const fresh = trainerFigures('hdp-lda', { ...config, noise: 'fresh' }, stats(corpus), delta)
  const acc = trainerFigures('hdp-lda', { ...config, noise: 'accumulate' }, stats(corpus), delta)
  if (E.isLeft(fresh)) return fresh
  if (E.isLeft(acc)) return acc
  const f = fresh.right
  const a = acc.right
  const T = config.iterations
  const short = a.pure - a.claimed
  const statement =
    `Theorem 3 holds for fresh noise and a sampler that reads only the iteration's release: the plan's pure ε is ${sig(f.pure, 6)}, exactly the claimed T(ε_L + ε_I) = ${sig(f.claimed, 6)} ` +
    `(T = ${T}, ε_L = ${config.epsilonL}, ε_I = 2 ln(C/β + 1) with C = ${config.clip}, β = ${config.beta}), and (ε, ${delta}) accounting gives ${sig(f.accounted, 5)}. ` +
    `The literal Algorithm 1 updates the noised counts in place (line 9): iteration i then releases the true counts plus all the noise so far, every release after the first costs 2ε_L, ` +
    `and the claim falls more than (T − 1)ε_L = ${sig((T - 1) * config.epsilonL)} short — the releases alone give a pure ε of ${sig(a.pure, 6)} (${sig(short, 4)} above the claim; (ε, ${delta}) ${sig(a.accounted, 5)}), ` +
    `and the in-place sampler also reads counts its own draws have moved since the release, which no bound here covers.`
  return E.right({
    claim: head(claim, paper),
    kind: 'holds-under-reading',
    statement,
    assumptions: {
      relation: 'replace one word (Zhao et al.’s relation; the number of documents, their lengths and the token positions are public)',
      sampling: 'none',
      reading: 'fresh noise on the true counts every iteration, and topic draws that read only that iteration’s noised, clipped release (the proof’s A1(D) = counts + η)',
      other: [`public corpus sizes: ${corpus.name}, ${corpus.documents} documents, ${corpus.tokens} tokens, V = ${corpus.vocabulary}`],
    },
    evidence: [
      {
        title: `HDP-LDA, K = ${config.topics}, T = ${T}, ε_L = ${config.epsilonL}, C = ${config.clip}, β = ${config.beta}`,
        columns: ['reading of line 9', 'claim T(ε_L + ε_I)', 'pure ε of the plan', 'pure ε − claim', `accounted ε at δ = ${delta}`, 'accountant'],
        rows: [
          ['fresh noise, sampler reads the release', cell(f.claimed), cell(f.pure), cell(f.pure - f.claimed, 3), cell(f.accounted), f.accountant],
          ['noise accumulates in the counts (releases only)', cell(a.claimed), cell(a.pure), cell(short, 4), cell(a.accounted), a.accountant],
        ],
      },
    ],
    notes: [
      `ε_I = ${sig(inherentEpsilon(config.clip, config.beta), 6)} per iteration as the plan declares it (eq. 7 plus the double-precision slack of the sampler)`,
      'pure ε: basic composition of the trainer’s plan (the release gate’s events); accounted: the tightest of dpaudit’s accountants on the same plan',
      `accumulate: the plan declares each increment n_i − n_{i−1} + η_i as four cells of discrete Laplace (src/trainers/hdp.ts)`,
      `fresh: ${f.method}`,
    ],
  })
}

const CdpParams = t.type({
  corpus: Corpus,
  config: t.type({ topics: t.number, iterations: t.number, alpha: t.number, beta: t.number, epsilon: t.number }),
  delta: t.number,
})

/** The CDP baselines: labels of the Laplace noise, not end-to-end claims; CDP-LDA+ finite with a public corpus size. */
export const checkCdpLabels = (claim: PaperClaim, paper: string): E.Either<DpError, ClaimVerdict> => {
  const p = params(CdpParams, claim)
  if (E.isLeft(p)) return p
  const { corpus, config, delta } = p.right
  const eps = config.epsilon
  const T = config.iterations
  const oneTableAr = pureEpsilon(discreteLaplace(1 / eps, 1, WORD_AR), WORD_AR)
  const twoCells = { cells: 2, perCell: 1, relation: WORD_RO }
  const oneTableRo = pureEpsilon(discreteLaplaceTableEvent(1 / eps, twoCells), WORD_RO)
  const cdp = trainerFigures('cdp-lda', config, stats(corpus), delta)
  const plus = trainerFigures('cdp-lda+', config, stats(corpus), delta)
  // With the number of tokens N public, counts clamped to [0, N] (post-processing of the release; a
  // clip at C = N never binds on true counts) make the draws HDP-LDA's exponential mechanism with C = N.
  const N = corpus.tokens
  const bounded = selfCompose(
    compose([
      labeled('N_tk', discreteLaplaceTableEvent(1 / eps, twoCells)),
      labeled('N_km', discreteLaplaceTableEvent(1 / eps, twoCells)),
      labeled('draws, counts clamped to [0, N]', topicDrawEvent(N, config.beta)),
    ]),
    T,
  )
  const boundedPure = pureEpsilon(bounded, WORD_RO)
  const boundedAcc = tightestEpsilon(bounded, WORD_RO, delta)
  for (const x of [oneTableAr, oneTableRo, cdp, plus, boundedPure, boundedAcc]) if (E.isLeft(x)) return x as E.Left<DpError>
  const [ar, ro, c, pl, bp, ba] = [oneTableAr, oneTableRo, cdp, plus, boundedPure, boundedAcc].map((x) => (x as E.Right<unknown>).right) as [
    number,
    number,
    { claimed: number; accounted: number },
    { claimed: number; accounted: number },
    number,
    { epsilon: number; accountant: string; method: string },
  ]
  const statement =
    `The paper labels the baselines' noise with ε (Lap(1/ε) on N_tk and N_km) but does not claim an end-to-end ε for either. Read as a label, ε is the cost of one table's release under add/remove of one token ` +
    `(${sig(ar)} at ε = ${eps}); under word replacement each table costs ${sig(ro)} and both ${sig(2 * ro)} per release. End to end, CDP-LDA has no finite ε (ε = ${sig(c.accounted)}: ` +
    `the first iteration's noise is reused on new counts, and the draws read unclipped counts). With the corpus size public (N = ${N} tokens), CDP-LDA+ has a finite but very large (ε, δ): ` +
    `(${sig(ba.epsilon, 5)}, ${delta}) for T = ${T} at label ε = ${eps} (pure ${sig(bp, 5)}), against the label's ${sig(pl.claimed)} for T·ε.`
  return E.right({
    claim: head(claim, paper),
    kind: 'holds-under-reading',
    statement,
    assumptions: {
      relation: 'replace one word (Zhao et al.’s relation); add/remove one token for the label reading',
      sampling: 'none',
      reading: 'the ε in "Lap(1/ε)" labels one table’s noise; for CDP-LDA+ end to end, the sampler clamps the released counts to [0, N] with N the public number of tokens, so the draws are HDP-LDA’s exponential mechanism with C = N',
      other: [`public corpus sizes: ${corpus.name}, ${corpus.documents} documents, ${N} tokens`],
    },
    evidence: [
      {
        title: `at label ε = ${eps}, T = ${T}, β = ${config.beta}`,
        columns: ['what', 'paper’s label', 'dpaudit', 'how'],
        rows: [
          ['one table, add/remove one token', eps, cell(ar), 'pure ε of discrete Laplace of scale 1/ε, L1 sensitivity 1'],
          ['one table, replace one word', eps, cell(ro), 'two cells move by 1'],
          ['CDP-LDA end to end', cell(c.claimed), cell(c.accounted), 'the trainer’s plan: reused noise and unclipped draws are NonPrivate'],
          ['CDP-LDA+ end to end, counts unbounded', cell(pl.claimed), cell(pl.accounted), 'the trainer’s plan: unclipped draws are NonPrivate'],
          [`CDP-LDA+ end to end, N = ${N} public (pure)`, cell(pl.claimed), cell(bp), `draws with ε_I = 2 ln(N/β + 1) = ${sig(inherentEpsilon(N, config.beta), 5)} per iteration`],
          [`CDP-LDA+ end to end, N = ${N} public, δ = ${delta}`, cell(pl.claimed), cell(ba.epsilon), ba.accountant],
        ],
      },
    ],
    notes: [`(ε, δ) of the bounded CDP-LDA+ plan: ${ba.method}`],
  })
}

const LpParams = t.type({ flip: t.number, vocabulary: t.number, delta: t.number })

/** LP-LDA Theorem 4: ε_b per presence bit, 2ε_b per replaced word, V·ε_b per document. */
export const checkLpTheorem4 = (claim: PaperClaim, paper: string): E.Either<DpError, ClaimVerdict> => {
  const p = params(LpParams, claim)
  if (E.isLeft(p)) return p
  const { flip, vocabulary: V } = p.right
  const eb = bitEpsilon(flip)
  const bit = pureEpsilon(presenceEvent(flip, 1, WORD_RO), WORD_RO)
  const word = pureEpsilon(presenceEvent(flip, 2, WORD_RO), WORD_RO)
  const doc = pureEpsilon(presenceEvent(flip, V, replaceOne('document')), replaceOne('document'))
  for (const x of [bit, word, doc]) if (E.isLeft(x)) return x
  const [b, w, d] = [bit, word, doc].map((x) => (x as E.Right<number>).right) as [number, number, number]
  const statement =
    `The per-word figure ε_b = ln((1 − f/2)/(f/2)) = ${sig(eb)} (f = ${flip}) holds when neighbouring reports differ in one presence bit, the reading of Theorem 4's proof. ` +
    `Replacing one word — Zhao et al.'s relation for their central trainers — can clear one bit and set another, so one report differs in two bits and the loss is ${sig(w)} = 2ε_b: read that way, the per-word claim is understated by ε_b (a factor 2). ` +
    `The per-document figure V·ε_b = ${sig(d, 6)} (V = ${V}) holds (pure, sound and nearly vacuous).`
  return E.right({
    claim: head(claim, paper),
    kind: 'holds-under-reading',
    statement,
    assumptions: {
      relation: 'local DP of one report: one presence bit differs (the proof’s reading); replace one word (two bits); replace one document (V bits)',
      sampling: 'none: every user perturbs once',
      reading: 'a "word" in Theorem 4 is one bit of the presence vector',
      other: [],
    },
    evidence: [
      {
        title: `randomized response on presence bits, f = ${flip} (flip probability f/2)`,
        columns: ['neighbouring reports differ in', 'paper', 'dpaudit pure ε'],
        rows: [
          ['one presence bit', cell(eb), cell(b)],
          ['one replaced word (two bits)', cell(eb), cell(w)],
          [`one document (V = ${V} bits)`, cell(V * eb), cell(d)],
        ],
      },
    ],
    notes: ['pure ε: basic composition of BitwiseRandomizedResponse(f/2, bits) (dpaudit’s accountants; ε per bit ln((1 − f/2)/(f/2)))'],
  })
}

// ---------------------------------------------------------------------------------------------
// The private-SVI paper, eq. (5)–(6)
// ---------------------------------------------------------------------------------------------

const SviParams = t.type({
  documents: t.number,
  documentsSeen: t.number,
  deltaTotal: t.number,
  epsilonTotals: t.array(t.number),
  batchSizes: t.array(t.number),
  deltaIteration: t.number,
  /** PLD discretisation interval (a coarser one is faster and still a certified upper bound). */
  pldInterval: t.number,
})

const READING_WORDS: Readonly<Record<DeltaReading, string>> = {
  'total-over-J': 'δ′ = δ_tot/J',
  'per-iteration': `δ′ = ν·δ_iter`,
}

/**
 * Private SVI's chain: the zCDP step is invalid; the budgets hold or not by the δ′ reading and the
 * sampling model. The paper's noise is σ = z·N/D (eq. 3–4: the add/remove sensitivity N/D). Under
 * Poisson sampling that is the relation's own sensitivity; under fixed-size batches without
 * replacement the relation is replace-one, whose sensitivity is √2·N/D, so the paper's σ is the
 * multiplier z/√2 there — reported first — and noise calibrated to replace-one (√2 times the paper's
 * σ, multiplier z) beside it.
 */
export const checkSviChain = (claim: PaperClaim, paper: string): E.Either<DpError, ClaimVerdict> => {
  const p = params(SviParams, claim)
  if (E.isLeft(p)) return p
  const P = p.right
  const readings: DeltaReading[] = ['total-over-J', 'per-iteration']
  const rows: Array<{ reading: DeltaReading; epsTot: number; S: number; J: number; z: number; rhoPaper: number; rhoTrue: number; poisson: number; worPaper: number; wor: number }> = []
  for (const reading of readings)
    for (const epsTot of P.epsilonTotals)
      for (const S of P.batchSizes) {
        const J = P.documentsSeen / S
        const chain = zcdpChain({ epsilonTotal: epsTot, deltaTotal: P.deltaTotal, iterations: J, rate: S / P.documents, deltaReading: reading, deltaIteration: P.deltaIteration })
        if (E.isLeft(chain)) return chain
        const setting = { documents: P.documents, batchSize: S, iterations: J }
        const z = chain.right.z
        const po = tightestEpsilon(multiplierEvent('poisson', setting, z), samplingRelation('poisson'), P.deltaTotal, ['pld'], P.pldInterval)
        // the paper's σ = z·N/D against replace-one's sensitivity √2·N/D: multiplier z/√2
        const woPaper = tightestEpsilon(multiplierEvent('without-replacement', setting, z / Math.SQRT2), samplingRelation('without-replacement'), P.deltaTotal, ['rdp'])
        const wo = tightestEpsilon(multiplierEvent('without-replacement', setting, z), samplingRelation('without-replacement'), P.deltaTotal, ['rdp'])
        if (E.isLeft(po)) return po
        if (E.isLeft(woPaper)) return woPaper
        if (E.isLeft(wo)) return wo
        rows.push({ reading, epsTot, S, J, z, rhoPaper: chain.right.rhoPerIteration, rhoTrue: 1 / (2 * z * z), poisson: po.right.epsilon, worPaper: woPaper.right.epsilon, wor: wo.right.epsilon })
      }
  const n = rows.length / readings.length
  type Row = (typeof rows)[number]
  const model = (r: Row, m: 'poisson' | 'worPaper' | 'wor'): number => r[m]
  const certified = (m: 'poisson' | 'worPaper' | 'wor', reading: DeltaReading): { ok: Row[]; fail: Row[] } => {
    const rs = rows.filter((r) => r.reading === reading)
    return { ok: rs.filter((r) => model(r, m) <= r.epsTot), fail: rs.filter((r) => model(r, m) > r.epsTot) }
  }
  const allPoisson = readings.every((rd) => certified('poisson', rd).fail.length === 0)
  const countText = (m: 'worPaper' | 'wor'): string =>
    readings
      .map((rd) => {
        const c = certified(m, rd)
        return `${c.ok.length} of ${n} under ${READING_WORDS[rd]}${c.fail.length === 0 ? '' : ` (bounds ${range(c.fail.map((r) => model(r, m)))} where it fails)`}`
      })
      .join(' and ')
  const worFails = readings.flatMap((rd) => certified('wor', rd).fail)
  const ratio = rows.map((r) => r.rhoTrue / r.rhoPaper)
  const big = (x: number): string => (x >= 1e5 ? x.toExponential(1).replace('e+', '·10^') : sig(x, 2))
  const statement =
    `The zCDP step is invalid: eq. (5) treats the amplified per-iteration (ε′, δ′) as ρ′-zCDP, but an (ε, δ) guarantee implies no zCDP bound and the subsampled Gaussian's zCDP parameter is 1/(2z²), which subsampling does not reduce — ` +
    `the paper's ρ′ is ${big(Math.min(...ratio))}–${big(Math.max(...ratio))} times too small. Whether the budgets (ε_tot, δ_tot = ${P.deltaTotal}) hold then depends on the reading of δ′ and on the sampling model. ` +
    `${allPoisson ? `With the paper's own noise σ = z·N/D, Poisson sampling at ν = S/D and add/remove one document (whose sensitivity is the paper's N/D), dpaudit's PLD accountant certifies every setting under both readings of δ′` : `Under PLD with Poisson sampling and the paper's own noise not every setting holds`} ` +
    `(ε = ${range(rows.map((r) => r.poisson))} for targets ${P.epsilonTotals.join(' and ')}). ` +
    `With fixed-size batches without replacement — the paper's "uniformly sampled subset" — the relation is replace one document, whose sensitivity is √2·N/D, so the paper's σ = z·N/D is only z/√2 times it: with the paper's noise, RDP (the best bound dpaudit has there) certifies ${countText('worPaper')}. ` +
    `Noise calibrated to the replace-one sensitivity, √2 times the paper's σ (not what eq. (3)–(4) prescribe), is certified in ${countText('wor')}${worFails.length === 0 ? '' : `; RDP cannot decide ${list(worFails.map((r) => `ε_tot = ${r.epsTot}, S = ${r.S} under ${READING_WORDS[r.reading]}`))}`}.`
  return E.right({
    claim: head(claim, paper),
    kind: 'holds-under-reading',
    statement,
    assumptions: {
      relation: 'add/remove one document under Poisson sampling; replace one document under sampling without replacement',
      sampling: 'Poisson at ν = S/D, or uniform fixed-size batches of S without replacement (the paper’s "uniformly sampled subset")',
      reading:
        'the paper as designed: noise σ = z·N/D with z from eq. (3)–(6) (eq. 4’s sensitivity N/D), accounted under each sampling model’s relation — under replace-one the same σ is the multiplier z/√2; beside it, noise calibrated to replace-one (σ = z·√2·N/D); J = 160,000/S; δ′ read as δ_tot/J or as ν·δ_iter with δ_iter = ' +
        P.deltaIteration,
      other: ['Algorithm 1 as written noises a (1/S)-normalised statistic with noise for N/D (effectively non-private); this verdict is about the chain, not that slip — see docs/svi.md'],
    },
    evidence: [
      {
        title: `the chain's noise multiplier and dpaudit's ε at δ_tot = ${P.deltaTotal} (D = ${P.documents})`,
        columns: [
          'δ′ reading',
          'ε_tot',
          'S',
          'J',
          'z = σ/(N/D)',
          'paper ρ′',
          'true ρ = 1/(2z²)',
          'ε Poisson, paper’s σ (PLD)',
          'ε without replacement, paper’s σ (RDP)',
          'ε without replacement, σ·√2 for replace-one (RDP)',
        ],
        rows: rows.map((r) => [READING_WORDS[r.reading], r.epsTot, r.S, r.J, cell(r.z), cell(r.rhoPaper, 3), cell(r.rhoTrue, 3), cell(r.poisson, 4), cell(r.worPaper, 4), cell(r.wor, 4)]),
      },
    ],
    notes: [
      'z: the paper’s chain (src/trainers/svi/chain.ts: zCDP of (ε′, δ′), J-fold composition, Bun–Steinke back; eq. (6) to (ε_iter, δ_iter); eq. (3) for σ/Δ with Δ = N/D)',
      `Poisson: dpaudit’s PLD accountant (discretisation interval ${P.pldInterval}) on SelfCompose(J, PoissonSample(S/D, Gaussian(z, 1))) — a certified upper bound`,
      'without replacement: dpaudit’s RDP accountant (Wang–Balle–Kasiviswanathan 2019 for sampling without replacement) on SelfCompose(J, SampleWithoutReplacement(S, D, Gaussian(m, 1))) with m = z/√2 (the paper’s σ against sensitivity √2·N/D) and m = z (noise calibrated to replace-one)',
    ],
  })
}

/** Claims whose trainer dpaudit does not have yet. */
export const notYetChecked = (claim: PaperClaim, paper: string): E.Either<DpError, ClaimVerdict> =>
  E.right({
    claim: head(claim, paper),
    kind: 'unknown',
    statement: 'Not yet checked: dpaudit has no trainer for this paper yet (src/trainers/spectral), so its plan cannot be accounted. The claim is recorded with its references so that the check can be added.',
    assumptions: { relation: 'not stated by dpaudit yet', sampling: 'none', reading: 'none yet', other: [] },
    evidence: [],
    notes: [],
  })
