/**
 * The checks of the private spectral method's utility claims (the spectral-LDA paper, §7): Fig. 2's ordering of
 * the four noise configurations by topic-recovery error against the composite ε on synthetic data
 * (l. 966–967), and "our method outperforms private VI under the same privacy level" (Fig. 2 and
 * Fig. 4, l. 960–964 and 1002–1004). The paper prints no numbers for either figure (the extraction
 * keeps the captions and the stated orderings), so each check reads dpaudit's measured numbers —
 * examples/spectral-figures.mjs and examples/spectral-brown-comparison.mjs, seeded runs — tests the
 * stated ordering on them, and lists what the paper shows that was not measured.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { DpError } from '../../core/error.js'
import { showDelta } from '../format.js'
import type { PaperClaim } from './codec.js'
import { cell as round, claimHead, list, sci, sig } from './evidence.js'
import { loadMeasuredPair, readMeasured } from './utility-checks.js'
import { printedRateSensitivity } from '../../trainers/spectral/sensitivity.js'
import type { Cell, ClaimVerdict } from './verdict.js'

const Num = t.union([t.number, t.null])
const CONFIGURATIONS = ['1', '2', '3', '4'] as const

/** One seeded fit of the spectral trainer as examples/spectral-figures.mjs writes it. */
const SpectralRun = t.intersection([
  t.type({ configuration: t.string, targetEpsilon: t.number, accountedEpsilon: Num, released: t.boolean, ms: t.number }),
  t.partial({ error: Num, perplexity: Num, reason: t.string, weights: t.record(t.string, t.number) }),
])
type SpectralRun = t.TypeOf<typeof SpectralRun>

const SpectralFigures = t.intersection([
  t.type({
    command: t.string,
    synthetic: t.intersection([
      t.type({ topics: t.number, vocabulary: t.number, documents: t.number, alpha0: t.number, delta: t.number, unnoisedError: t.number, figure2: t.array(SpectralRun) }),
      t.partial({
        sensitivities: t.intersection([
          t.type({ e2e4e5e8_M2: t.number, e3_M3: t.number, e6_T: t.number, e7_decomposition: t.number, e9_output: t.number }),
          t.partial({ quantities: t.type({ documents: t.number, topics: t.number, alpha0: t.number, sigmaK: t.number, sigma1: t.number, gammaS: t.number }) }),
        ]),
      }),
    ]),
  }),
  t.partial({
    budgetSearch: t.type({ configuration: t.string, epsilon: t.number, rows: t.array(SpectralRun) }),
    brown: t.union([t.null, t.type({ documents: t.number, vocabulary: t.number, delta: t.number, unigram: t.number, unnoised: t.number, rows: t.array(SpectralRun) })]),
  }),
])
type SpectralFigures = t.TypeOf<typeof SpectralFigures>

/** examples/spectral-calibrations.mjs: configurations 2–4 with their local edges calibrated to §6.2–6.4's printed rates. */
const Calibrations = t.type({
  command: t.string,
  synthetic: t.type({ documents: t.number, alpha0: t.number, delta: t.number, unnoisedError: t.number }),
  rows: t.array(
    t.intersection([
      t.type({ configuration: t.string, targetEpsilon: t.number, calibration: t.string, released: t.boolean }),
      t.partial({ error: t.number, reason: t.string, sensitivities: t.record(t.string, t.number), ms: t.number }),
    ]),
  ),
  seconds: t.number,
})
type Calibrations = t.TypeOf<typeof Calibrations>

/** Why a run left no model, in a few words (the full reason is in the data file). */
const whyNoModel = (r: SpectralRun): string =>
  r.reason?.startsWith('the propose-test-release test failed') === true ? 'PTR test failed' : r.reason?.includes('cannot be whitened') === true ? 'released M̂2 not whitenable' : 'no reason recorded'
const noModel = (r: SpectralRun): string => `no model: ${whyNoModel(r)}`

/** The runs of one figure as a grid: the ε values in order, and the run of a configuration at an ε. */
const grid = (rows: ReadonlyArray<SpectralRun>) => {
  const epsilons = [...new Set(rows.map((r) => r.targetEpsilon))].sort((a, b) => a - b)
  const run = (c: string, eps: number): SpectralRun | undefined => rows.find((r) => r.configuration === c && r.targetEpsilon === eps)
  /** The measured value of a configuration at ε, null when it released no model (or was not run). */
  const value = (c: string, eps: number, field: 'error' | 'perplexity'): number | null => {
    const r = run(c, eps)
    const v = r?.released === true ? r[field] : null
    return typeof v === 'number' && Number.isFinite(v) ? v : null
  }
  const lowest = (eps: number, field: 'error' | 'perplexity'): string | null => {
    const have = CONFIGURATIONS.flatMap((c) => {
      const v = value(c, eps, field)
      return v === null ? [] : [{ c, v }]
    })
    return have.length === 0 ? null : have.reduce((a, b) => (b.v < a.v ? b : a)).c
  }
  const cell = (c: string, eps: number, field: 'error' | 'perplexity'): Cell => {
    const r = run(c, eps)
    const v = value(c, eps, field)
    return r === undefined ? 'not run' : v === null ? noModel(r) : round(v, field === 'error' ? 4 : 5)
  }
  return { epsilons, value, lowest, cell }
}

/** The wall time of a figure's fits, from the rows' ms (data generation and evaluation not included). */
const fitSeconds = (d: SpectralFigures): number => d.synthetic.figure2.reduce((a, r) => a + r.ms, 0) / 1000
const roundOrDash = (x: number | null | undefined): Cell => (typeof x === 'number' ? round(x, 6) : '—')
const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹'
/** 10000 as 10⁴ (a power of ten from 10⁴ up), other ε as they are. */
const epsText = (e: number): string => {
  const k = Math.log10(e)
  return e >= 1e4 && Number.isInteger(k) ? `10${[...String(k)].map((d) => SUPERSCRIPT[Number(d)]).join('')}` : String(e)
}

// ---------------------------------------------------------------------------------------------

const LOCAL: Readonly<Record<string, 'e6' | 'e7' | 'e9'>> = { '2': 'e6', '3': 'e7', '4': 'e9' }

/**
 * Configurations 2–4 under both calibrations the paper gives their local edges: the appendix's
 * explicit bounds (eq. 64, Theorems 6–7: the figure's own runs, dpaudit's trainer) and §6.2–6.4's
 * printed noise (the O(·) rates with constant 1: the calibrations file). Which one the paper's
 * Fig. 2 used is not stated; the section says so and reports both.
 */
const calibrationsSection = (data: SpectralFigures, cal: Calibrations, file: string): { text: string; table: { title: string; columns: string[]; rows: Cell[][] } } => {
  const g = grid(data.synthetic.figure2)
  const printed = (c: string, e: number) => cal.rows.find((r) => r.configuration === c && r.targetEpsilon === e && r.calibration === 'printed')
  const eps = g.epsilons.filter((e) => ['2', '3', '4'].some((c) => printed(c, e) !== undefined))
  const value = (r: ReturnType<typeof printed>): number | null => (r?.released === true && typeof r.error === 'number' ? r.error : null)
  const show = (r: ReturnType<typeof printed>): Cell => (r === undefined ? 'not run' : value(r) === null ? `no model: ${r.reason?.startsWith('the propose-test-release test failed') === true ? 'PTR test failed' : 'no reason recorded'}` : round(value(r) as number, 4))
  // at the corpus's own σ_k, σ_1, γ_s (the un-noised values): each calibration's sensitivity per local edge
  const sens = data.synthetic.sensitivities
  const q = sens?.quantities
  const atData =
    sens === undefined || q === undefined
      ? ''
      : ` At this corpus's own σ_k, σ_1 and γ_s the two give e6 ${sci(sens.e6_T)} against ${sci(printedRateSensitivity('e6', q))}, e7 ${sci(sens.e7_decomposition)} against ${sci(printedRateSensitivity('e7', q))} and e9 ${sci(sens.e9_output)} against ${sci(printedRateSensitivity('e9', q))} (${sig(sens.e6_T / printedRateSensitivity('e6', q), 3)}×, ${sig(sens.e7_decomposition / printedRateSensitivity('e7', q), 3)}× and ${sig(sens.e9_output / printedRateSensitivity('e9', q), 3)}× less noise under the printed rates; the runs calibrate to PTR's noisy bounds instead).`
  const lowestPrinted = (e: number): string | null => {
    const have = [{ c: '1', v: g.value('1', e, 'error') }, ...['2', '3', '4'].map((c) => ({ c, v: value(printed(c, e)) }))].filter((x): x is { c: string; v: number } => x.v !== null)
    return have.length === 0 ? null : have.reduce((a, b) => (b.v < a.v ? b : a)).c
  }
  const range2 = (c: string, pick: (e: number) => number | null): string => {
    const vs = eps.map(pick).filter((v): v is number => v !== null)
    return vs.length === 0 ? 'no model at any ε' : `${sig(Math.min(...vs), 3)}–${sig(Math.max(...vs), 3)}`
  }
  const unnoised = data.synthetic.unnoisedError
  const best = ['2', '3', '4'].flatMap((c) => eps.map((e) => value(printed(c, e))).filter((v): v is number => v !== null))
  const text =
    ` Configurations 2–4 under the two calibrations the paper gives (${file}, the same corpus, seeds and composite ε): the appendix's eq. (64) and Theorems 6–7, which dpaudit's trainer uses, against the noise §6.2–6.4 print, the O(·) rates of Theorems 5–7 with constant 1 — ` +
    `${list(['2', '3', '4'].map((c) => `configuration ${c} ${range2(c, (e) => g.value(c, e, 'error'))} against ${range2(c, (e) => value(printed(c, e)))}`))} (error, eq. (64) against printed, over ε = ${list(eps.map(epsText))}; un-noised ${sig(unnoised, 3)}). ` +
    `Under the printed rates the lowest error is ${list(eps.map((e) => `configuration ${lowestPrinted(e) ?? 'none'} at ε = ${epsText(e)}`))}` +
    `${best.length === 0 ? '' : `; configurations 2–4 come no closer than ${sig(Math.min(...best) / unnoised, 3)}× the un-noised error`}. ` +
    `${atData.trimStart()} Which calibration the paper's Fig. 2 used cannot be told: §6 prints only the O(·) noise, the appendix derives the explicit bounds, and the figure prints no values. Neither is a sensitivity of what is released (claims spectral.config2–4).`
  return {
    text,
    table: {
      title: `configurations 2–4 under both calibrations (recovery error; composite δ = ${data.synthetic.delta}, N = ${data.synthetic.documents})`,
      columns: ['composite ε', ...['2', '3', '4'].flatMap((c) => [`config ${c} eq. (64)`, `config ${c} printed rate`, `config ${c} printed-rate sensitivity`]), 'lowest (printed; config 1 as in the figure)'],
      rows: eps.map((e) => [
        e,
        ...['2', '3', '4'].flatMap((c): Cell[] => {
          const r = printed(c, e)
          const sens = r?.sensitivities?.[LOCAL[c] as string]
          return [g.cell(c, e, 'error'), show(r), typeof sens === 'number' ? round(sens, 4) : '—']
        }),
        lowestPrinted(e) ?? '—',
      ]),
    },
  }
}

/**
 * Fig. 2a: configuration 2 has the lowest error at small ε, configuration 1 at larger ε, and
 * configurations 3 and 4 are worse throughout. "Worse than the other configs" is read as worse
 * than the better of configurations 1 and 2 (the strict reading — worse than each — is reported).
 */
export const checkSpectralFigure2 = (claim: PaperClaim, paper: string, root: string): E.Either<DpError, ClaimVerdict> => {
  const l = loadMeasuredPair(claim, root, SpectralFigures, 'alpha0Data', SpectralFigures)
  if (E.isLeft(l)) return l
  const { p, data, file: alpha0Data, second: a10 } = l.right
  const s = data.synthetic
  // the printed-rate calibration of configurations 2–4, when the claim names its data
  const calibrationsFile = (claim.parameters as { calibrationsData?: unknown }).calibrationsData
  const cal = typeof calibrationsFile === 'string' ? readMeasured(root, calibrationsFile, 'examples/spectral-calibrations.mjs', `${claim.id}.parameters.calibrationsData`, Calibrations) : undefined
  if (cal !== undefined && E.isLeft(cal)) return cal
  const calibrationPart = cal === undefined ? undefined : calibrationsSection(data, cal.right, calibrationsFile as string)
  const g = grid(s.figure2)
  const eps = g.epsilons
  const lo = eps[0]!
  const hi = eps[eps.length - 1]!
  const err = (c: string, e: number): number | null => g.value(c, e, 'error')
  const lowBest = g.lowest(lo, 'error')
  const highBest = g.lowest(hi, 'error')
  // configurations 3 and 4 against the better of 1 and 2 (the reading) and against each (strict)
  const lenient: string[] = []
  const strict: string[] = []
  for (const e of eps)
    for (const c of ['3', '4']) {
      const v = err(c, e)
      if (v === null) continue
      const others = ['1', '2'].flatMap((o) => {
        const w = err(o, e)
        return w === null ? [] : [{ o, w }]
      })
      if (others.length > 0 && v < Math.min(...others.map((x) => x.w))) lenient.push(`configuration ${c} at ε = ${epsText(e)}`)
      for (const { o, w } of others) if (v < w) strict.push(`configuration ${c} (${sig(v, 4)}) below configuration ${o} (${sig(w, 4)}) at ε = ${epsText(e)}`)
    }
  const silent = eps.flatMap((e) =>
    ['3', '4'].flatMap((c) => {
      const r = s.figure2.find((x) => x.configuration === c && x.targetEpsilon === e)
      return err(c, e) === null && r !== undefined ? [`configuration ${c} released no model at ε = ${epsText(e)} (${whyNoModel(r)})`] : []
    }),
  )
  const ordered = lowBest === '2' && highBest === '1'
  const kind = ordered && lenient.length === 0 ? (strict.length === 0 ? 'holds' : 'holds-under-reading') : 'not-reproduced'
  // the smallest ε from which configuration 1 is the lowest at every larger ε too
  const crossover = eps.find((e, i) => eps.slice(i).every((x) => g.lowest(x, 'error') === '1'))
  const c1 = eps.map((e) => err('1', e)).filter((v): v is number => v !== null)
  const c2 = eps.map((e) => err('2', e)).filter((v): v is number => v !== null)
  const c1Hi = err('1', hi)
  const atLo = CONFIGURATIONS.map((c) => err(c, lo)).filter((v): v is number => v !== null)
  const unnoised = s.unnoisedError
  const sens = s.sensitivities
  const setting = `synthetic LDA, N = ${s.documents}, K = ${s.topics}, V = ${s.vocabulary}, α0 = ${s.alpha0}, composite δ = ${s.delta}`
  const ordering = ordered
    ? `The ordering reproduces in the letter (${setting}): configuration 2 has the lowest recovery error at the smallest ε = ${epsText(lo)} (${list(CONFIGURATIONS.map((c) => `${c}: ${err(c, lo) === null ? 'no model' : sig(err(c, lo)!, 4)}`))}) and configuration 1 from ε = ${crossover === undefined ? '—' : epsText(crossover)} on (${sig(c1Hi ?? Number.NaN, 3)} at ε = ${epsText(hi)}).`
    : `The ordering does not reproduce (${setting}): the lowest error is configuration ${lowBest ?? 'none'} at the smallest ε = ${epsText(lo)} and configuration ${highBest ?? 'none'} at the largest ε = ${epsText(hi)}.`
  const threeFour =
    lenient.length === 0
      ? ` Configurations 3 and 4 are never below the better of 1 and 2${strict.length === 0 ? '' : `, but not worse than each of them: ${list(strict)}`}${silent.length === 0 ? '' : `; ${list(silent)}`}.`
      : ` Configurations 3 and 4 are not worse throughout: ${list(lenient)} is below the better of 1 and 2.`
  const substance =
    ` Against the un-noised spectral error ${sig(unnoised, 3)}: configuration 1's error falls from ${sig(c1[0] ?? Number.NaN, 4)} to ${sig(c1[c1.length - 1] ?? Number.NaN, 3)} (${sig(Math.min(...c1) / unnoised, 3)}× the un-noised) over ε = ${epsText(lo)}–${epsText(hi)}, configuration 2's moves only from ${sig(c2[0] ?? Number.NaN, 4)} to ${sig(c2[c2.length - 1] ?? Number.NaN, 4)}, never below ${sig(Math.min(...c2) / unnoised, 3)}× the un-noised, and at ε = ${epsText(lo)} every released model is at least ${sig(Math.min(...atLo) / unnoised, 3)}× it${lowBest === '2' ? ": configuration 2's lead there is between models far from the topics" : ''}.` +
    (sens === undefined
      ? ''
      : ` Why: calibrated to the paper's Theorems 5–7 as stated, at this corpus's own σ_k, σ_1 and γ_s the edges after the whitening have sensitivities Δ_T = ${sci(sens.e6_T)} (e6), ${sci(sens.e7_decomposition)} (e7) and ${sci(sens.e9_output)} (e9), against ${sci(sens.e2e4e5e8_M2)} for M̂2 and ${sci(sens.e3_M3)} for M̂3 (configuration 1's proved global sensitivities), and noise scaled to them swamps the signal at every ε measured.`)
  const ag = grid(a10.synthetic.figure2)
  const a10Text = ` Fig. 2b (N = 1,000), Fig. 2c (α0 = 1000) and private VI on synthetic data were not measured; at α0 = ${a10.synthetic.alpha0} (${alpha0Data}) the lowest error is ${list(ag.epsilons.map((e) => `configuration ${ag.lowest(e, 'error') ?? 'none'} at ε = ${epsText(e)}`))} (un-noised ${sig(a10.synthetic.unnoisedError, 3)}, every private error ≥ ${sig(Math.min(...ag.epsilons.flatMap((e) => CONFIGURATIONS.map((c) => ag.value(c, e, 'error')).filter((v): v is number => v !== null))), 3)}).`
  const bs = data.budgetSearch
  const equal = bs?.rows.filter((r) => r.released && new Set(Object.values(r.weights ?? {})).size === 1 && typeof r.error === 'number') ?? []
  const best = bs?.rows.filter((r) => r.released && typeof r.error === 'number').reduce<SpectralRun | undefined>((a, b) => (a === undefined || (b.error as number) < (a.error as number) ? b : a), undefined)
  const budgetText =
    bs === undefined || best === undefined || equal.length === 0
      ? ' The paper picks each configuration\'s per-edge split by a grid search; dpaudit\'s figure splits every composite ε with equal weights, and no budget search was measured.'
      : ` The paper picks each configuration's per-edge split by a grid search; dpaudit's figure splits every composite ε with equal weights. Its budget search for configuration ${bs.configuration} at ε = ${epsText(bs.epsilon)} finds ${sig(best.error as number, 3)} (${Object.entries(best.weights ?? {}).map(([k, w]) => `${k} = ${w}`).join(', ')}) against ${sig(Math.min(...equal.map((r) => r.error as number)), 3)}–${sig(Math.max(...equal.map((r) => r.error as number)), 3)} for equal weights (the same noise, other seeds: the seed spread), an oracle choice on the true topics as in the paper's synthetic figure.`
  const figureTable = (d: SpectralFigures, title: string) => {
    const fg = grid(d.synthetic.figure2)
    return {
      title,
      columns: ['composite ε', ...CONFIGURATIONS.map((c) => `config ${c}`), 'lowest', 'config 1 accounted ε'],
      rows: fg.epsilons.map((e) => [e, ...CONFIGURATIONS.map((c) => fg.cell(c, e, 'error')), fg.lowest(e, 'error') ?? '—', roundOrDash(d.synthetic.figure2.find((r) => r.configuration === '1' && r.targetEpsilon === e)?.accountedEpsilon)]),
    }
  }
  return E.right({
    claim: claimHead(claim, paper),
    kind,
    statement: ordering + threeFour + substance + (calibrationPart?.text ?? '') + a10Text + budgetText + ' The paper prints no values for Fig. 2.',
    assumptions: {
      relation: 'replace one document; N, V, K and α0 public (the spectral-LDA paper, §3); ε is the accountant’s composite on each plan',
      sampling: 'none',
      reading:
        '"performs better" read as a lower recovery error (the matched L1 distance of the topics, topicRecoveryError), whatever its size; "Config. 3 and 4 perform universally worse than the other Configs" read as worse than the better of configurations 1 and 2 (the strict reading, worse than each, is reported); a run that releases no model (a failed PTR test, or a released M̂2 that cannot be whitened) counts as worse',
      other: [`paper's numbers: ${p.paperNumbers}`, `paper's scale: ${p.paperScale}`, 'seeded runs, one seed per point: not private releases'],
    },
    evidence: [
      figureTable(data, `recovery error against composite ε (${setting}; un-noised spectral ${sig(unnoised, 4)})`),
      ...(calibrationPart === undefined ? [] : [calibrationPart.table]),
      figureTable(
        a10,
        `the same at α0 = ${a10.synthetic.alpha0} (N = ${a10.synthetic.documents}; un-noised spectral ${sig(a10.synthetic.unnoisedError, 4)})`,
      ),
      ...(bs === undefined
        ? []
        : [
            {
              title: `per-edge budget search, configuration ${bs.configuration} at composite ε = ${bs.epsilon} (each weighting calibrated to the same composite)`,
              columns: ['weights', 'recovery error'],
              rows: bs.rows.map((r) => [Object.entries(r.weights ?? {}).map(([k, w]) => `${k} = ${w}`).join(', '), r.released && typeof r.error === 'number' ? round(r.error, 4) : noModel(r)]),
            },
          ]),
      {
        title: 'what Fig. 2 shows, and what dpaudit measured',
        columns: ['the paper', 'dpaudit'],
        rows: [
          ['Fig. 2a: N = 100k, composite δ = 1e-7 (K, V, α0 and the ε grid not stated in the text)', `measured: ${setting} (${p.data})`],
          ['Fig. 2b: N = 1,000', 'not measured'],
          ['Fig. 2c: N = 100k, α0 = 1000', `not measured (α0 = ${a10.synthetic.alpha0} measured: ${alpha0Data})`],
          ['private VI and un-noised VI (vi-u) on the synthetic data', 'not measured (on Brown: claim spectral.figure4)'],
          ['per-edge split by grid search at every point', `equal weights at every point; a budget search for configuration 1 at one ε${bs === undefined ? ': not measured' : ''}`],
        ],
      },
    ],
    notes: [
      `measured by ${data.command} → ${p.data} (the ${data.synthetic.figure2.length} fits of the figure: ${sig(fitSeconds(data), 3)} s)`,
      `α0 = ${a10.synthetic.alpha0}: ${a10.command} → ${alpha0Data} (${a10.synthetic.figure2.length} fits: ${sig(fitSeconds(a10), 3)} s)`,
      ...(cal === undefined ? [] : [`printed-rate calibration: ${cal.right.command} → ${calibrationsFile as string} (${cal.right.seconds} s); its eq. (64) rows are the figure's own (same corpus and seeds)`]),
    ],
  })
}

// ---------------------------------------------------------------------------------------------

const Trials = t.type({ released: t.number, of: t.number, medianPerplexity: Num })
const BrownComparison = t.type({
  command: t.string,
  corpus: t.type({ name: t.string, vocabularySize: t.number, documents: t.number, tokens: t.number, maxDocumentLength: t.number }),
  settings: t.type({ topics: t.number, delta: t.number, seeds: t.number }),
  references: t.type({ unigram: t.number, cgs: t.type({ perplexity: t.number }), unnoisedSpectral: t.number }),
  rows: t.array(
    t.type({
      epsilon: t.number,
      spectral: t.intersection([Trials, t.type({ accounted: t.type({ epsilon: t.number, accountant: t.string }), runs: t.array(t.type({ released: t.boolean, perplexity: Num })) })]),
      svi: t.array(t.intersection([Trials, t.type({ iterations: t.number })])),
      hdpLda: t.array(t.intersection([Trials, t.type({ iterations: t.number })])),
    }),
  ),
  seconds: t.number,
})

const median = (x: t.TypeOf<typeof Trials>): number | null => (x.medianPerplexity !== null && Number.isFinite(x.medianPerplexity) ? x.medianPerplexity : null)

/**
 * Fig. 4 and §7 "VI vs Spectral": under every configuration the private spectral method has lower
 * error / perplexity than private VI at the same privacy level. Measured on Brown (the paper's
 * Fig. 4 is on Wikipedia, which dpaudit does not ship): configuration 1 against private SVI at the
 * same composite ε per replaced document, and configurations 1–4 on their own.
 */
export const checkSpectralFigure4 = (claim: PaperClaim, paper: string, root: string): E.Either<DpError, ClaimVerdict> => {
  const l = loadMeasuredPair(claim, root, BrownComparison, 'configurationsData', SpectralFigures)
  if (E.isLeft(l)) return l
  const { p, data, file: configurationsData, second: cf } = l.right
  const brown = cf.brown ?? null
  const rows = [...data.rows].sort((a, b) => a.epsilon - b.epsilon)
  const compared = rows.map((r) => {
    const sp = median(r.spectral)
    const svi = r.svi.map(median).filter((v): v is number => v !== null)
    return { e: r.epsilon, sp, sviBest: svi.length === 0 ? null : Math.min(...svi), sviWorst: svi.length === 0 ? null : Math.max(...svi) }
  })
  // the paper's claim on these data: the spectral median below private SVI's at every J, at every ε
  const wins = compared.filter((c) => c.sp !== null && c.sviWorst !== null && c.sp < c.sviWorst)
  const losses = compared.filter((c) => c.sp !== null && c.sviBest !== null && c.sp > c.sviBest)
  const above = losses.map((c) => (100 * ((c.sp as number) - (c.sviBest as number))) / (c.sviBest as number))
  const bg = brown === null ? null : grid(brown.rows)
  const silent = bg === null ? [] : CONFIGURATIONS.filter((c) => bg.epsilons.every((e) => bg.value(c, e, 'perplexity') === null))
  const everyConfigReleases = bg !== null && silent.length === 0
  const holds = wins.length === compared.length && everyConfigReleases
  const sviJ = rows[0]?.svi.map((x) => x.iterations) ?? []
  const hdpT = rows[0]?.hdpLda.map((x) => x.iterations) ?? []
  const c = data.corpus
  const setting = `V = ${c.vocabularySize}, K = ${data.settings.topics}, ${c.documents} training documents, replace-one document at composite δ = ${showDelta(data.settings.delta)}, median of ${data.settings.seeds} seeded runs`
  const spread = rows.flatMap((r) => r.spectral.runs.flatMap((x) => (x.released && x.perplexity !== null ? [{ e: r.epsilon, v: x.perplexity }] : [])))
  const widest = rows
    .map((r) => {
      const v = r.spectral.runs.flatMap((x) => (x.released && x.perplexity !== null ? [x.perplexity] : []))
      return { e: r.epsilon, lo: Math.min(...v), hi: Math.max(...v) }
    })
    .filter((x) => Number.isFinite(x.lo))
    .reduce<{ e: number; lo: number; hi: number } | undefined>((a, b) => (a === undefined || b.hi / b.lo > a.hi / a.lo ? b : a), undefined)
  const statement =
    `${holds ? 'Reproduced' : 'Not reproduced'} on Brown (${setting}): ` +
    (losses.length === compared.length
      ? `at every composite ε = ${list(compared.map((x) => epsText(x.e)))} the private spectral method (configuration 1) has higher held-out perplexity than private SVI at every J = ${sviJ.join(', ')}, by ${sig(Math.min(...above), 3)}–${sig(Math.max(...above), 3)} % over SVI's best J (${list(compared.map((x) => `${sig(x.sp as number, 5)} against ${sig(x.sviBest as number, 5)} at ε = ${epsText(x.e)}`))}). `
      : `configuration 1 is below private SVI at every J at ${wins.length} of ${compared.length} ε values (${list(wins.map((x) => `ε = ${epsText(x.e)}`)) || 'none'}) and above SVI's best J at ${losses.length}. `) +
    (bg === null
      ? 'Configurations 2–4 on Brown were not measured. '
      : silent.length > 0
        ? `Configuration${silent.length > 1 ? 's' : ''} ${list(silent)} released no model at any ε = ${list(bg.epsilons.map(epsText))} on the same corpus (${configurationsData}, N = ${brown!.documents}: a propose-test-release test fails or the released M̂2 cannot be whitened; the reason of each run is in the table), so "under every configuration" cannot hold here. `
        : '') +
    `References (not private): unigram ${sig(data.references.unigram, 5)}, CGS ${sig(data.references.cgs.perplexity, 5)}, un-noised spectral ${sig(data.references.unnoisedSpectral, 5)}. ` +
    (widest === undefined || spread.length === 0
      ? ''
      : `Configuration 1's released runs spread widely (${sig(widest.lo, 5)} to ${sig(widest.hi, 5)} at ε = ${epsText(widest.e)}; ${rows.reduce((n, r) => n + r.spectral.of - r.spectral.released, 0)} of ${rows.reduce((n, r) => n + r.spectral.of, 0)} runs released no model). `) +
    `Why (docs/spectral.md): at N = ${c.documents} the noise on the V×V M̂2 is comparable to σ_K(M̂2), so a released copy often cannot be whitened or whitens into a poor basis; the spectral method needs N in the tens of thousands (claim spectral.figure2). ` +
    `Not measured: the paper's corpus (Wikipedia; dpaudit ships no Wikipedia corpus, and the paper states neither its size nor V, K or the ε grid), private VI on Fig. 2's synthetic data, and config. 3's improvement with larger k. The paper prints no values for Fig. 4.`
  const configurationTable =
    bg === null || brown === null
      ? []
      : [
          {
            title: `Brown, the four configurations (${configurationsData}: V = ${brown.vocabulary}, K = ${cf.synthetic.topics}, ${brown.documents} documents, δ = ${showDelta(brown.delta)}, one seed; unigram ${sig(brown.unigram, 5)}, un-noised spectral ${sig(brown.unnoised, 5)})`,
            columns: ['composite ε', ...CONFIGURATIONS.map((x) => `config ${x}`)],
            rows: bg.epsilons.map((e) => [e, ...CONFIGURATIONS.map((x) => bg.cell(x, e, 'perplexity'))]),
          },
        ]
  return E.right({
    claim: claimHead(claim, paper),
    kind: holds ? 'holds' : 'not-reproduced',
    statement,
    assumptions: {
      relation: 'replace one document, one unit for every trainer (HDP-LDA by group privacy over L_max word replacements, document lengths public)',
      sampling: 'private SVI: mini-batches without replacement (svi-lda-wor); the others none',
      reading:
        '"private VI" (the paper\'s [17]; the extraction has no reference list, but "perturbing sufficient statistics, as described in [17]" (Appendix J) is the private-SVI paper\'s method) read as private SVI with its noise calibrated by dpaudit to the same composite (ε, δ) at J ∈ {' +
        sviJ.join(', ') +
        '}; "outperforms" as a lower median held-out perplexity than SVI at every J; Brown in place of Wikipedia',
      other: [`paper's numbers: ${p.paperNumbers}`, `paper's scale: ${p.paperScale}`, 'seeded runs: not private releases'],
    },
    evidence: [
      {
        title: `held-out perplexity against composite ε (${setting}; released runs of ${data.settings.seeds} in brackets)`,
        columns: [
          'composite ε',
          'spectral config 1',
          ...sviJ.map((j) => `private SVI J = ${j}`),
          'spectral above SVI’s best J (%)',
          ...hdpT.map((x) => `HDP-LDA T = ${x}`),
          'spectral accounted ε',
        ],
        rows: rows.map((r, i) => {
          const x = compared[i]!
          const show = (m: t.TypeOf<typeof Trials>): Cell => (median(m) === null ? `no model (0/${m.of})` : `${median(m)} (${m.released}/${m.of})`)
          return [
            r.epsilon,
            show(r.spectral),
            ...r.svi.map(show),
            x.sp === null || x.sviBest === null ? '—' : Number(sig((100 * (x.sp - x.sviBest)) / x.sviBest, 3)),
            ...r.hdpLda.map(show),
            round(r.spectral.accounted.epsilon, 6),
          ]
        }),
      },
      ...configurationTable,
      {
        title: 'what Fig. 4 and §7 show, and what dpaudit measured',
        columns: ['the paper', 'dpaudit'],
        rows: [
          ['Fig. 4: perplexity on Wikipedia, all configurations against private VI', 'not measured (no Wikipedia corpus); Brown measured instead'],
          ['Fig. 2: recovery error of every configuration against private VI, synthetic data', 'private VI on synthetic data not measured'],
          ['config. 3 improves with larger k (Fig. 4)', 'not measured'],
          ['Table 2: Wikipedia topic words at ε = 1', 'not measured'],
        ],
      },
    ],
    notes: [`measured by ${data.command} → ${p.data} (${data.seconds} s)`, `configurations 1–4 on Brown: ${cf.command} → ${configurationsData}`],
  })
}
