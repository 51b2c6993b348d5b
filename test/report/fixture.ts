// Report inputs on disk for the report tests (unit and browser): two tiny private models (HDP-LDA at
// two ε_L, so the utility chart has two points), a short seeded Laplace audit, a spec, and a
// manifest that combines them. A few seconds in all.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runAudit } from '../../src/cli/commands/audit.js'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { writeTinyUci } from '../trainers/tiny-uci.js'

export interface ReportFixture {
  readonly dir: string
  readonly manifest: string
  readonly models: ReadonlyArray<string>
  readonly audit: string
  readonly spec: string
}

export const writeReportFixture = (dir: string): ReportFixture => {
  mkdirSync(dir, { recursive: true })
  const corpus = writeTinyUci(dir)
  const models = [0.5, 2].map((epsilonL) => {
    const out = join(dir, `hdp-${epsilonL}.json`)
    const r = runTrainCli(['hdp-lda', '--corpus', corpus, '--topics', '2', '--iterations', '4', '--epsilon-l', String(epsilonL), '--clip', '2', '--beta', '1', '--eval-corpus', corpus, '--out', out, '--quiet'])
    if (r.code !== 0) throw new Error(`train: ${r.stderr ?? ''}`)
    return out
  })
  const audit = join(dir, 'laplace.audit.json')
  const a = runAudit({ target: 'zoo:laplace', workers: '1', trials: '20000', seed: 'report-fixture', out: audit })
  if (a.code !== 0 && a.code !== 4) throw new Error(`audit: ${a.stderr ?? ''}`)
  const spec = join(dir, 'spec.json')
  writeFileSync(
    spec,
    JSON.stringify({
      schemaVersion: 1,
      name: 'DP-SGD, 200 steps',
      relation: { kind: 'add-remove', unit: 'record' },
      event: { _tag: 'SelfCompose', count: 200, event: { _tag: 'PoissonSample', q: 0.01, event: { _tag: 'Gaussian', sigma: 1.1, sensitivity: 1, relation: { kind: 'add-remove', unit: 'record' } } } },
    }),
  )
  const manifest = join(dir, 'manifest.json')
  writeFileSync(manifest, JSON.stringify({ kind: 'dpaudit-report-input', schemaVersion: 1, title: 'HDP-LDA on a tiny corpus, with a Laplace audit', models: models.map((m) => m.slice(dir.length + 1)), audit: 'laplace.audit.json', claims: ['lp-lda.theorem4'] }))
  return { dir, manifest, models, audit, spec }
}
