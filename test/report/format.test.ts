/** The ε cells of the account report (src/report/format.ts): the PLD's error bar only where it has a width. */
import { describe, expect, it } from 'vitest'
import { showEpsilonAnswer } from '../../src/report/format.js'

describe('showEpsilonAnswer', () => {
  it('prints the accounting error bar of a bracket with a width, rounded to it', () => {
    expect(showEpsilonAnswer({ epsilon: 1.23456789, lower: 1.2344 })).toBe('1.2346 (−1.7e-4)')
  })

  it('prints no bar for a bracket of width 0 (it printed "0 (−0.0e+0)") nor for an answer without a lower end', () => {
    expect(showEpsilonAnswer({ epsilon: 0, lower: 0 })).toBe('0')
    expect(showEpsilonAnswer({ epsilon: 0.5, lower: 0.5 })).toBe(showEpsilonAnswer({ epsilon: 0.5 }))
    expect(showEpsilonAnswer({ epsilon: Infinity, lower: 3 })).toBe('∞')
  })
})
