/**
 * Fig. 2 of the spectral-LDA paper, configurations 2–4, under both calibrations (issue 28, item 3):
 * the verdict reports the appendix's eq. (64) runs (examples/spectral-figures.json) and §6.2–6.4's
 * printed-rate runs (examples/spectral-calibrations.json) side by side, the numbers being the data
 * files', and says that which one the paper used cannot be told.
 */
import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { formatError } from '../../src/core/error.js'
import { loadClaims } from '../../src/report/claims/codec.js'
import { verifyClaim } from '../../src/report/claims/verify.js'
import { printedRateSensitivity } from '../../src/trainers/spectral/sensitivity.js'

const measured = (name: string) => JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8')) as Record<string, any>

describe('spectral.figure2: both calibrations of configurations 2–4', () => {
  const papers = loadClaims()
  if (E.isLeft(papers)) throw new Error(formatError(papers.left))
  const v = verifyClaim(papers.right, 'spectral.figure2')
  if (E.isLeft(v)) throw new Error(formatError(v.left))
  const verdict = v.right
  const table = verdict.evidence.find((t) => t.title.startsWith('configurations 2–4 under both calibrations'))

  it('a table with eq. (64) and the printed rate per configuration, the cells the data files’ numbers', () => {
    expect(table).toBeDefined()
    const cal = measured('spectral-calibrations.json')['rows'] as Array<{ configuration: string; targetEpsilon: number; calibration: string; released: boolean; error?: number }>
    const fig = measured('spectral-figures.json')['synthetic']['figure2'] as Array<{ configuration: string; targetEpsilon: number; released: boolean; error?: number }>
    for (const row of table!.rows)
      for (const c of ['2', '3', '4']) {
        const p = cal.find((r) => r.configuration === c && r.targetEpsilon === row[0] && r.calibration === 'printed')!
        const e = fig.find((r) => r.configuration === c && r.targetEpsilon === row[0])!
        const at = (name: string) => row[table!.columns.indexOf(name)]
        if (p.released) expect(at(`config ${c} printed rate`) as number).toBeCloseTo(p.error!, 3)
        else expect(at(`config ${c} printed rate`)).toMatch(/^no model/)
        if (e.released) expect(at(`config ${c} eq. (64)`) as number).toBeCloseTo(e.error!, 3)
        else expect(at(`config ${c} eq. (64)`)).toMatch(/^no model/)
      }
  })

  it('the sentence names both, the ratio of their sensitivities at the corpus’s own quantities, and that the paper’s choice cannot be told', () => {
    const s = verdict.statement
    expect(s).toMatch(/the appendix's eq\. \(64\) and Theorems 6–7, which dpaudit's trainer uses, against the noise §6\.2–6\.4 print/)
    expect(s).toMatch(/Which calibration the paper's Fig\. 2 used cannot be told/)
    const sens = measured('spectral-figures.json')['synthetic']['sensitivities']
    const ratio = sens['e6_T'] / printedRateSensitivity('e6', sens['quantities'])
    expect(ratio).toBeGreaterThan(10) // the appendix's bound is far above the printed rate
    expect(s).toContain(`${Number(ratio.toPrecision(3))}×`)
  })
})
