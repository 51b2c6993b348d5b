// Report inputs on disk for the report tests (unit and browser): two tiny private models (HDP-LDA at
// two ε_L, so the utility chart has two points), three short seeded zoo audits (Laplace and Gaussian,
// correct; histogram-inverted, broken), a trainer audit of HDP-LDA (local executor), a Laplace spec
// and a DP-SGD spec, and a manifest that groups them by subject. Some seconds in all.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { auditTrainer } from '../../src/attacks/trainers/audit.js'
import { decodeTrainerAuditFile } from '../../src/attacks/trainers/file.js'
import { runAudit } from '../../src/cli/commands/audit.js'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { stringifyJson } from '../../src/core/json.js'
import { writeTinyUci } from '../trainers/tiny-uci.js'

export interface ReportFixture {
  readonly dir: string
  /** Models, audits, specs and a claim grouped by subject. */
  readonly manifest: string
  readonly models: ReadonlyArray<string>
  /** The Laplace audit (zoo:laplace, correct). */
  readonly audit: string
  /** zoo:laplace, zoo:gaussian (correct) and zoo:histogram-inverted (broken). */
  readonly mechanismAudits: ReadonlyArray<string>
  readonly trainerAudit: string
  /** DP-SGD, 200 steps. */
  readonly spec: string
  /** Laplace(b = 1) on a count: the plan zoo:laplace implements at ε = 1. */
  readonly laplaceSpec: string
}

const zooAudit = (dir: string, name: string, trials: number): string => {
  const out = join(dir, `${name}.audit.json`)
  const a = runAudit({ target: `zoo:${name}`, workers: '1', trials: String(trials), seed: 'report-fixture', out })
  if (a.code !== 0 && a.code !== 3 && a.code !== 4) throw new Error(`audit ${name}: ${a.stderr ?? ''}`)
  return out
}

export const writeReportFixture = async (dir: string): Promise<ReportFixture> => {
  mkdirSync(dir, { recursive: true })
  const corpus = writeTinyUci(dir)
  const models = [0.5, 2].map((epsilonL) => {
    const out = join(dir, `hdp-${epsilonL}.json`)
    const r = runTrainCli(['hdp-lda', '--corpus', corpus, '--topics', '2', '--iterations', '4', '--epsilon-l', String(epsilonL), '--clip', '2', '--beta', '1', '--eval-corpus', corpus, '--out', out, '--quiet'])
    if (r.code !== 0) throw new Error(`train: ${r.stderr ?? ''}`)
    return out
  })
  const mechanismAudits = [zooAudit(dir, 'laplace', 20_000), zooAudit(dir, 'gaussian', 20_000), zooAudit(dir, 'histogram-inverted', 20_000)]
  const file = decodeTrainerAuditFile({
    game: {
      trainer: 'hdp-lda',
      config: { topics: 2, iterations: 2, epsilonL: 0.5, clip: 2, beta: 1 },
      corpus: { synthetic: { documents: 12, vocabulary: 10, topics: 2, meanDocumentLength: 8, unused: 2, seed: 'report' } },
      neighbour: { kind: 'replace-word', document: 0, position: 0, word: 10 },
      view: 'white-box',
    },
    claim: { epsilon: 1, delta: 1e-5 },
    runs: 120,
    seed: 'report-fixture',
  })
  if (E.isLeft(file)) throw new Error(`trainer audit file: ${file.left.message}`)
  const ta = await auditTrainer(file.right)
  if (E.isLeft(ta)) throw new Error(`trainer audit: ${ta.left.message}`)
  const trainerAudit = join(dir, 'hdp.trainer-audit.json')
  writeFileSync(trainerAudit, stringifyJson(ta.right, 2))
  const spec = join(dir, 'spec.json')
  const addRemove = { kind: 'add-remove', unit: 'record' }
  writeFileSync(
    spec,
    JSON.stringify({
      schemaVersion: 1,
      name: 'DP-SGD, 200 steps',
      relation: addRemove,
      event: { _tag: 'SelfCompose', count: 200, event: { _tag: 'PoissonSample', q: 0.01, event: { _tag: 'Gaussian', sigma: 1.1, sensitivity: 1, relation: addRemove } } },
    }),
  )
  const laplaceSpec = join(dir, 'laplace.spec.json')
  writeFileSync(laplaceSpec, JSON.stringify({ schemaVersion: 1, name: 'Laplace, b = 1', relation: addRemove, event: { _tag: 'Laplace', scale: 1, sensitivity: 1, relation: addRemove } }))
  const manifest = join(dir, 'manifest.json')
  const rel = (p: string): string => p.slice(dir.length + 1)
  writeFileSync(
    manifest,
    JSON.stringify({
      kind: 'dpaudit-report-input',
      schemaVersion: 1,
      title: 'HDP-LDA on a tiny corpus, three zoo audits and a trainer audit',
      subjects: [
        { name: 'Laplace, b = 1', claim: { epsilon: 1, delta: 0, source: 'the textbook Laplace mechanism' }, specs: [rel(laplaceSpec)], audits: [rel(mechanismAudits[0] as string)] },
        { name: 'HDP-LDA, ε_L = 0.5', models: [rel(models[0] as string)], audits: [rel(trainerAudit)] },
      ],
      models: [rel(models[1] as string)],
      audits: mechanismAudits.slice(1).map(rel),
      specs: [rel(spec)],
      claims: ['lp-lda.theorem4'],
    }),
  )
  return { dir, manifest, models, audit: mechanismAudits[0] as string, mechanismAudits, trainerAudit, spec, laplaceSpec }
}
