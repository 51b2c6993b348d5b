/**
 * The report's one-sentence summary over its subjects (src/report/audit/subjects.ts `overallSentence`):
 * a subject "holds up" only when a check was made and passed. An audit that could not test its claim
 * (the mechanism failed, too few trials) and a subject with nothing to set its accounting against are
 * named as such, and "the rest" is never said of no subject.
 */
import { describe, expect, it } from 'vitest'
import type { SummaryRow } from '../../src/report/audit/document.js'
import { overallSentence } from '../../src/report/audit/subjects.js'
import { showDelta } from '../../src/report/format.js'

const claimed = { epsilon: 1, delta: 0, source: 'the claim' }
const audited = (verdict: string, lb = 0.9) => ({ epsilonLowerBound: lb, confidence: 0.95, ceiling: 9.9, delta: 0, audit: 'a.json', verdict })
const accounted = (epsilon: number, delta = 0) => ({ epsilon, delta, accountant: 'rdp', method: 'm', relation: 'add-remove' })
const row = (subject: string, r: Partial<SummaryRow>): SummaryRow => ({ subject, verdict: '', ...r })

describe('the summary sentence', () => {
  it('holds up only where a check passed', () => {
    expect(overallSentence([row('a', { claimed, audited: audited('consistent') })])).toBe('The subject holds up against every check made here (an audit can refute a claim, never prove it).')
    expect(overallSentence([row('a', { claimed, audited: audited('consistent') }), row('b', { claimed, accounted: accounted(0.8) })])).toMatch(/^All 2 subjects hold up/)
  })
  it('an audit that could not test its claim is not a check passed', () => {
    expect(overallSentence([row('m1', { claimed, audited: audited('inconclusive', 0) })])).toBe('The subject’s audit could not test its claim, and nothing else here checks it.')
    expect(overallSentence([row('m1', { claimed, accounted: accounted(0.8), audited: audited('inconclusive', 0) })])).toBe('The subject’s audit could not test its claim; only its accounting checks it.')
    expect(overallSentence([row('ok', { claimed, audited: audited('consistent') }), row('m1', { claimed, audited: audited('inconclusive', 0) })])).toBe(
      'Of 2 subjects, 1 whose audit could not test the claim (m1); the other holds up against every check made here.',
    )
  })
  it('a subject with nothing to check it against is said to be so', () => {
    expect(overallSentence([row('model', { accounted: accounted(2) })])).toBe('Nothing here checks the subject: no audit, and no claim to set its accounting against.')
    // a claim at another δ than the accounting's is not compared
    expect(overallSentence([row('x', { claimed, accounted: accounted(2, 1e-5) }), row('y', { claimed, audited: audited('consistent') })])).toBe(
      'Of 2 subjects, 1 with nothing to check it against (x); the other holds up against every check made here.',
    )
  })
  it('refuted and understated subjects come first, and "the rest" is never said of none', () => {
    expect(overallSentence([row('bad', { claimed, audited: audited('violation', 3) })])).toBe('The subject is refuted by an audit.')
    expect(overallSentence([row('u', { claimed, accounted: accounted(2) })])).toBe('The subject’s accounting is above its claim: the claim understates ε.')
    expect(overallSentence([row('bad', { claimed, audited: audited('violation', 3) }), row('u', { claimed, accounted: accounted(2) })])).toBe(
      'Of 2 subjects, 1 refuted by an audit (bad); 1 whose accounting is above the claim (u).',
    )
    expect(overallSentence([row('bad', { claimed, audited: audited('violation', 3) }), row('p', { claimed, audited: audited('consistent') }), row('q', { claimed, audited: audited('consistent') })])).toBe(
      'Of 3 subjects, 1 refuted by an audit (bad); the other 2 hold up against every check made here.',
    )
  })
})

describe('δ in a table header', () => {
  it('is 0 at pure DP, not 0e+0', () => {
    expect(showDelta(0)).toBe('0')
    expect(showDelta(1e-5)).toBe('1e-5')
    expect(showDelta(0.05)).toBe('0.05')
  })
})
