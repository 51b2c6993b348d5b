/**
 * The DP-SGD plug-in of examples/ (issue 25): a trainer outside LDA, written only against dpaudit's
 * public API. Checked here: it learns (held-out accuracy above the majority class on SpamAssassin);
 * its plan is DP-SGD's event as dp_accounting writes it, so its ε is the RDP and PLD accountants'
 * answer for that event; the neighbour-differential harness of dpaudit/testing passes it and fails
 * the broken variant (clipping off, sensitivity still declared C); and white-box canary audits
 * through dpaudit's generic trainer audits — the one-run audit (Steinke, Nasr & Jagielski 2023) and
 * the many-run trainer audit of examples/dp-sgd/trainer-audit.json — stay below its accounted ε and
 * flag the broken variant above it.
 *
 * The examples import `dpaudit/<sub>`, which the package's exports map to dist/; here they are
 * mapped to the sources, so the test needs no build.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { account } from '../../src/accounting/index.js'
import { runQueueAudit } from '../../src/cli/commands/queue-audit.js'
import { runTrainModule } from '../../src/cli/commands/train-module.js'
import type { DpError } from '../../src/core/error.js'
import type { Rng } from '../../src/core/rng.js'
import { seeded } from '../../src/core/rng.js'
import { Events, type PrivacyEvent, Relations, type ReleaseRecord, type Schedule } from '../../src/mechanisms/index.js'
import { expectNeighbourIndistinguishable, NeighbourLeakError, type RunOutputs } from '../../src/testing/index.js'
import { type Corpus, type CorpusStats, fromDocuments, loadDataset, planOf, selectDocuments } from '../../src/trainers/index.js'

vi.mock('dpaudit', async () => await import('../../src/index.js'))
vi.mock('dpaudit/accounting', async () => await import('../../src/accounting/index.js'))
vi.mock('dpaudit/mechanisms', async () => await import('../../src/mechanisms/index.js'))
vi.mock('dpaudit/trainers', async () => await import('../../src/trainers/index.js'))
vi.mock('dpaudit/attacks', async () => await import('../../src/attacks/index.js'))
vi.mock('dpaudit/testing', async () => await import('../../src/testing/index.js'))

interface Config {
  readonly steps: number
  readonly batchSize: number
  readonly noiseMultiplier: number
  readonly clip: number
  readonly learningRate: number
  readonly documents?: number
}
interface DpSgdTrainer {
  readonly name: string
  readonly defaults: Config
  readonly accountingRelation: ReturnType<typeof Relations.addRemove>
  readonly schedule: (c: Config, stats: CorpusStats) => E.Either<DpError, Schedule>
  readonly fit: (
    corpus: Corpus,
    c: Config,
    rng: Rng,
    options?: { readonly onRelease?: (r: ReleaseRecord) => void },
  ) => E.Either<{ readonly message: string }, { readonly model: Model; readonly release: { readonly private: boolean } }>
  readonly model: {
    readonly evaluate: (m: Model, test: Corpus) => E.Either<{ readonly message: string }, { readonly values: { readonly accuracy: number; readonly majorityClass: number } }>
  }
}
interface Model {
  readonly vocabulary: number
  readonly weights: Float64Array
}
interface Rows {
  readonly rows: number
}
interface OneRunModule {
  readonly oneRunAudit: (o: { trainer: DpSgdTrainer; canaries?: number; seed?: string }) => {
    readonly epsilonLowerBound: number
    readonly correct: number
    readonly statistic: string
    readonly claim: { readonly epsilon: number; readonly delta: number }
  }
}
interface FeaturesModule {
  readonly presenceRows: (c: Corpus) => Rows
  readonly accuracy: (x: Rows, w: Float64Array) => { readonly accuracy: number; readonly majority: number }
}

const load = async <T>(path: string): Promise<T> => (await import(new URL(`../../examples/${path}`, import.meta.url).href)) as T

let trainer: DpSgdTrainer
let broken: DpSgdTrainer
let oneRun: OneRunModule
let features: FeaturesModule

beforeAll(async () => {
  trainer = (await load<{ trainer: DpSgdTrainer }>('dp-sgd-logreg.mjs')).trainer
  broken = (await load<{ trainer: DpSgdTrainer }>('dp-sgd-logreg-broken.mjs')).trainer
  oneRun = await load<OneRunModule>('dp-sgd/one-run.mjs')
  features = await load<FeaturesModule>('dp-sgd/features.mjs')
})

const DELTA = 1e-5

/** The plug-in's files: the two trainer modules and their helpers. */
const pluginFiles = (): string[] => {
  const dir = fileURLToPath(new URL('../../examples/', import.meta.url))
  return [
    ...['dp-sgd-logreg.mjs', 'dp-sgd-logreg-broken.mjs'].map((f) => `${dir}${f}`),
    ...readdirSync(`${dir}dp-sgd`)
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => `${dir}dp-sgd/${f}`),
  ]
}

describe('DP-SGD logistic regression, a plug-in outside LDA', () => {
  it('imports nothing but public sub-paths of dpaudit (and io-ts, fp-ts, node: and its own files)', () => {
    const PUBLIC = /^(dpaudit(\/(accounting|mechanisms|trainers|attacks|testing|report))?|io-ts|fp-ts\/lib\/[A-Za-z]+\.js|node:[a-z_/]+|\.{1,2}\/[\w./-]+\.mjs)$/
    const specifiers = pluginFiles().flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/^import .* from '([^']+)'/gm)].map((m) => [f, m[1] as string] as const))
    expect(specifiers.length).toBeGreaterThan(10)
    expect(specifiers.filter(([, s]) => !PUBLIC.test(s))).toEqual([])
  })

  it('beats the majority class on the held-out SpamAssassin e-mails (seeded run, default config)', () => {
    const ds = loadDataset('spam')
    if (E.isLeft(ds)) throw new Error(ds.left.message)
    const fit = trainer.fit(ds.right.train, trainer.defaults, seeded('dp-sgd-accuracy'))
    if (E.isLeft(fit)) throw new Error(fit.left.message)
    expect(fit.right.release.private).toBe(false) // seeded: reproducible, not a private release
    const evaluation = trainer.model.evaluate(fit.right.model, ds.right.test)
    if (E.isLeft(evaluation)) throw new Error(evaluation.left.message)
    const a = evaluation.right.values
    expect(a.majorityClass).toBeGreaterThan(0.6)
    expect(a.accuracy).toBeGreaterThan(a.majorityClass + 0.1)
    // the evaluation is the features module's accuracy
    expect(a.accuracy).toBe(features.accuracy(features.presenceRows(ds.right.test), fit.right.model.weights).accuracy)
  })

  it('trains through `dpaudit train ./examples/dp-sgd-logreg.mjs --corpus spam`: the statement\'s ε is the accountants\' for its plan, accuracy above the majority class', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpaudit-dp-sgd-'))
    try {
      const out = join(dir, 'dp-sgd.json')
      const module = fileURLToPath(new URL('../../examples/dp-sgd-logreg.mjs', import.meta.url))
      const r = await runTrainModule([module, '--corpus', 'spam', '--seed', '1', '--out', out, '--json'])
      expect(r.stderr ?? '').toBe('')
      expect(r.code).toBe(0)
      const printed = JSON.parse(r.stdout ?? '') as {
        privacy: { plan: PrivacyEvent; guarantee: ReadonlyArray<{ delta: number; epsilon: number }> }
        evaluation: { accuracy: number; majorityClass: number }
      }
      const stated = printed.privacy.guarantee.find((g) => g.delta === DELTA)?.epsilon
      const report = account({ schemaVersion: 1, relation: Relations.addRemove('document'), event: printed.privacy.plan }, { deltas: [DELTA] })
      if (E.isLeft(report)) throw new Error(report.left.message)
      expect(stated).toBe(report.right.tightest[0]?.epsilon)
      expect(printed.evaluation.accuracy).toBeGreaterThan(printed.evaluation.majorityClass + 0.1)
      // it counts no tokens (the lot sizes would reveal n): a time, but no tokens/s rate of 0
      expect(printed).toHaveProperty('seconds')
      expect(printed).not.toHaveProperty('tokensPerSecond')
      const file = JSON.parse(readFileSync(out, 'utf8')) as { kind: string; weights: ReadonlyArray<number> }
      expect(file.kind).toBe('dpaudit-dp-sgd-logreg-model')
      expect(file.weights).toHaveLength(10_000)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('is a private release only with a declared n̂: without --documents, --private is refused before training and nothing is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpaudit-dp-sgd-'))
    try {
      const out = join(dir, 'dp-sgd.json')
      const module = fileURLToPath(new URL('../../examples/dp-sgd-logreg.mjs', import.meta.url))
      const r = await runTrainModule([module, '--corpus', 'spam', '--private', '--out', out])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/^--private: .*exact number of e-mails sets the sampling rate q = B\/n .*--documents/)
      expect(existsSync(out)).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('answers bad input with an error value naming the field (and no e-mail)', () => {
    const path = (r: E.Either<unknown, unknown>): unknown => (E.isLeft(r) ? (r.left as { path: unknown }).path : 'accepted')
    const corpus = fromDocuments(['alpha', 'bravo'], [[0, 1], [1]], ['a', 'b'], ['spam', 'unknown'])
    expect(path(trainer.fit(corpus, { ...trainer.defaults, batchSize: 1 }, seeded(1)))).toBe('corpus.labels')
    const labelled = fromDocuments(['alpha', 'bravo'], [[0, 1], [1]], ['a', 'b'], ['spam', 'ham'])
    expect(path(trainer.fit(labelled, trainer.defaults, seeded(1)))).toBe('batchSize') // B = 256 > n̂ = 2
    expect(path(trainer.fit(labelled, { ...trainer.defaults, batchSize: 1, steps: 0.5 }, seeded(1)))).toBe('steps')
    expect(path(trainer.fit(labelled, { ...trainer.defaults, batchSize: 1, clip: Number.NaN }, seeded(1)))).toBe('clip')
    expect(path(trainer.fit(labelled, { ...trainer.defaults, batchSize: 1, steps: 2 }, seeded(1)))).toBe('accepted')
  })

  it('plans the DP-SGD event of dp_accounting, so its ε is the RDP and PLD accountants\' answer for it', () => {
    const c = trainer.defaults
    const n = 5434
    const plan = planOf(trainer, c, { documents: n, vocabulary: 0, tokens: 0, maxDocumentLength: 0 })
    if (E.isLeft(plan)) throw new Error('no plan')
    // SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T), add/remove (dp_accounting, Opacus)
    const reference = Events.selfCompose(Events.poissonSample(c.batchSize / n, Events.gaussian(c.noiseMultiplier, 1, Relations.addRemove('document'))), c.steps)
    const eps = (event: PrivacyEvent): Record<string, number> => {
      const r = account({ schemaVersion: 1, relation: Relations.addRemove('document'), event }, { deltas: [DELTA], accountants: ['rdp', 'pld'] })
      if (E.isLeft(r)) throw new Error(r.left.message)
      return Object.fromEntries(r.right.results.map((x) => [x.accountant, x.ok ? (x.answers[0]?.epsilon ?? Number.NaN) : Number.NaN]))
    }
    const ours = eps(plan.right)
    const theirs = eps(reference)
    for (const a of ['rdp', 'pld']) {
      expect(Number.isFinite(ours[a])).toBe(true)
      expect(ours[a]).toBeCloseTo(theirs[a] as number, 9)
    }
  })

  describe('the neighbour-differential harness (dpaudit/testing)', () => {
    let base: Corpus
    let pair: { input: Corpus; neighbour: Corpus; label: string }
    beforeAll(() => {
      const ds = loadDataset('spam', { vocabularySize: 1000 })
      if (E.isLeft(ds)) throw new Error(ds.left.message)
      const corpus = selectDocuments(ds.right.train, Int32Array.from({ length: 41 }, (_, i) => i))
      base = selectDocuments(corpus, Int32Array.from({ length: 40 }, (_, i) => i))
      // add one e-mail at the end; at q = 1 a coin draws no random word, so both runs draw the same noise
      pair = { input: base, neighbour: corpus, label: 'add one e-mail' }
    })
    // q = 1 (B = n̂ = 40): every e-mail is in every lot, so the first releases differ by the added e-mail's gradient
    const config = (): Config => ({ ...trainer.defaults, steps: 3, batchSize: 40, documents: 40, clip: 0.05 })
    const run =
      (t: DpSgdTrainer) =>
      (corpus: Corpus, rng: Rng): RunOutputs => {
        const releases: ReleaseRecord[] = []
        const fit = t.fit(corpus, config(), rng, { onRelease: (r) => releases.push(r) })
        if (E.isLeft(fit)) return { code: 1, stdout: '', stderr: fit.left.message, files: {}, releases }
        return { code: 0, stdout: '', stderr: '', files: { 'model.json': JSON.stringify({ trainer: t.name, weights: Array.from(fit.right.model.weights) }) }, releases }
      }
    const options = { releaseDerived: { 'model.json': { jsonPaths: ['weights'] } }, comparable: [{ release: 0, l2: 0.05 }] }

    it('passes the plug-in: its first release moves by at most C between neighbours', async () => {
      const report = await expectNeighbourIndistinguishable(run(trainer), pair, options)
      expect(report.distances[0]?.l2).toBeGreaterThan(0)
      expect(report.distances[0]?.l2).toBeLessThanOrEqual(0.05 * (1 + 1e-9))
    })

    it('fails the broken variant, whose declared sensitivity C is wrong (it does not clip)', async () => {
      const err = await expectNeighbourIndistinguishable(run(broken), pair, options).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(NeighbourLeakError)
      const report = (err as NeighbourLeakError).report
      expect(report.differences.map((d) => d.path)).toEqual(['L2 distance'])
      expect(report.distances[0]?.l2).toBeGreaterThan(0.05 * 2)
    })
  })

  describe('white-box canary audits, through the generic trainer audits', () => {
    let epsilon = Number.NaN

    it('one run (Steinke, Nasr & Jagielski 2023; `auditTrainerOneRun` on ./trainer-audit.json\'s game): ε_LB below the accounted ε; the broken variant above it', () => {
      const ok = oneRun.oneRunAudit({ trainer, canaries: 1000 })
      const bad = oneRun.oneRunAudit({ trainer: broken, canaries: 1000 })
      epsilon = ok.claim.epsilon
      expect(ok.statistic).toBe('word-release-min')
      expect(bad.claim).toEqual(ok.claim) // the same declared plan
      expect(epsilon).toBeGreaterThan(0.5)
      expect(ok.epsilonLowerBound).toBeLessThan(epsilon)
      expect(bad.epsilonLowerBound).toBeGreaterThan(epsilon)
    })

    it('the generic trainer audit (`dpaudit audit examples/dp-sgd/trainer-audit.json`), from what the plug-in declares it releases: ε_LB below the accounted ε; the broken variant a violation', async () => {
      // the file names the plug-in by its module path and claims the accountant's ε for its plan (the statement `dpaudit train` prints)
      const audited = async (file: string) => {
        const r = await runQueueAudit([fileURLToPath(new URL(`../../examples/dp-sgd/${file}`, import.meta.url)), '--runs', '600', '--json', '--quiet'])
        expect(r.stderr ?? '').toBe('')
        const doc = JSON.parse(r.stdout ?? '') as { result: { verdict: string; epsilonLowerBound: number; claim: { epsilon: number; delta: number }; test: { name: string } } }
        return { code: r.code, ...doc.result }
      }
      const ok = await audited('trainer-audit.json')
      expect(ok.claim.delta).toBe(DELTA)
      if (!Number.isNaN(epsilon)) expect(ok.claim.epsilon).toBe(epsilon) // the one-run audit's accounted claim: the same plan
      expect(ok.code).toBe(0)
      expect(ok.verdict).toBe('consistent')
      expect(ok.epsilonLowerBound).toBeLessThan(ok.claim.epsilon)
      const bad = await audited('trainer-audit-broken.json')
      expect(bad.claim).toEqual(ok.claim) // the same declared plan
      expect(bad.code).toBe(3)
      expect(bad.verdict).toBe('violation')
      expect(bad.epsilonLowerBound).toBeGreaterThan(ok.claim.epsilon)
      expect(bad.test.name).toMatch(/word-release|weights-mass/) // a statistic chosen from the declared releases
    })
  })
})
