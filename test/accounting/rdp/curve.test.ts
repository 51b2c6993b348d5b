import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import {
  DEFAULT_ORDERS,
  WBK_NOTE,
  ZHU_WANG_NOTE,
  gaussianRdp,
  laplaceRdp,
  poissonGeneralCurve,
  pureDpRdp,
  rdpCurve,
  rdpCurveDetailed,
  subsampledGaussianCurve,
  withoutReplacementCurve,
} from '../../../src/accounting/rdp/index.js'
import { formatError } from '../../../src/core/error.js'
import { forgetKept } from '../../../src/accounting/rdp/kept.js'
import { makeRdpAccountant } from '../../../src/accounting/rdp/accountant.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'

const AR = addRemove('record')
const RO = replaceOne('record')
const ORDERS = [1.5, 2, 3, 4.5, 10, 32]
const SEED = 31_415

const curveOf = (e: ev.PrivacyEvent, rel = AR, orders: ReadonlyArray<number> = ORDERS): Float64Array => {
  const r = rdpCurve(e, rel, orders)
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
}
const errorOf = (e: ev.PrivacyEvent, rel = AR): string => {
  const r = rdpCurve(e, rel, ORDERS)
  return E.isLeft(r) ? formatError(r.left) : 'no error'
}
const near = (a: ArrayLike<number>, b: ArrayLike<number>, rel = 1e-12) =>
  Array.from(a).every((x, i) => Math.abs(x - (b[i] as number)) <= rel * Math.max(1, Math.abs(b[i] as number)))

describe('the curve fold', () => {
  it('composition adds curves, SelfCompose multiplies, Labeled is transparent, NoOp is 0, NonPrivate ∞', () => {
    const g = ev.gaussian(2, 1, AR)
    const l = ev.laplace(3, 1, AR)
    const sum = curveOf(ev.compose([g, ev.labeled('step', l), ev.noOp]))
    expect(near(sum, ORDERS.map((a) => gaussianRdp(2, a) + laplaceRdp(3, a)))).toBe(true)
    expect(near(curveOf(ev.selfCompose(g, 7)), ORDERS.map((a) => 7 * gaussianRdp(2, a)))).toBe(true)
    expect(Array.from(curveOf(ev.compose([])))).toEqual(ORDERS.map(() => 0))
    expect(Array.from(curveOf(ev.compose([g, ev.nonPrivate])))).toEqual(ORDERS.map(() => Infinity))
    expect(Array.from(curveOf(ev.selfCompose(ev.nonPrivate, 0)))).toEqual(ORDERS.map(() => 0))
  })

  it('is sound against sensitivity: Gaussian σ = 4, Δ = 2 equals σ/Δ = 2', () => {
    expect(near(curveOf(ev.gaussian(4, 2, AR)), curveOf(ev.gaussian(2, 1, AR)))).toBe(true)
  })

  it('caps by the composed pure ε: three RR(0.01) cost at most 0.03 at every order', () => {
    const c = curveOf(ev.selfCompose(ev.randomizedResponse(0.01, 4, AR), 3), AR, [1.5, 1000])
    expect(Math.max(...c)).toBeLessThanOrEqual(0.03 * (1 + 1e-12))
  })

  it('PoissonSample of one Gaussian (even under Labeled) is the exact sampled Gaussian', () => {
    const e = ev.poissonSample(0.05, ev.labeled('grad', ev.labeled('clip', ev.gaussian(2.2, 2, AR))))
    const r = rdpCurveDetailed(e, AR, ORDERS)
    expect(E.isRight(r) && near(r.right.curve, subsampledGaussianCurve(0.05, 1.1, ORDERS).curve, 0)).toBe(true)
    expect(E.isRight(r) && r.right.notes).toEqual([])
  })

  it('PoissonSample of anything else uses Zhu–Wang on the inner curve, and says so', () => {
    // A Compose around one Laplace is not a single Laplace leaf, so the general bound applies.
    const inner = ev.compose([ev.laplace(2, 1, AR)])
    const r = rdpCurveDetailed(ev.poissonSample(0.1, inner), AR, ORDERS)
    expect(E.isRight(r)).toBe(true)
    if (E.isLeft(r)) return
    // The fold rounds leaves up by 1e-13, and caps by the amplified pure ε log(1 + q(e^{1/b} − 1))
    // (Balle, Barthe & Gaboardi 2018), which binds at high orders here.
    const pure = Math.log1p(0.1 * Math.expm1(0.5))
    const expected = Array.from(poissonGeneralCurve(ORDERS, 0.1, (a) => laplaceRdp(2, a)), (x) => Math.min(x, pure))
    expect(near(r.right.curve, expected, 1e-11)).toBe(true)
    expect(r.right.curve[ORDERS.length - 1]).toBeCloseTo(pure, 12)
    expect(r.right.curve[0]).toBeLessThan(pure)
    expect(r.right.notes.some((n) => n.startsWith(ZHU_WANG_NOTE))).toBe(true)
    expect(r.right.notes.some((n) => n.includes('PoissonSample at $'))).toBe(true)
  })

  it('a sampled composition of two Gaussians is bounded by Zhu–Wang, never below the exact combined Gaussian', () => {
    // Two σ = 2 releases on the same batch = one release with σ/√2 (exact for this pair of inputs).
    const two = curveOf(ev.poissonSample(0.02, ev.compose([ev.gaussian(2, 1, AR), ev.gaussian(2, 1, AR)])))
    const exact = subsampledGaussianCurve(0.02, 2 / Math.SQRT2, ORDERS).curve
    expect(Array.from(two).every((x, i) => x >= (exact[i] as number) * (1 - 1e-10))).toBe(true)
  })

  it('SampleWithoutReplacement uses WBK with the pure ε(∞) under replace-one', () => {
    const r = rdpCurveDetailed(ev.sampleWithoutReplacement(10, 1000, ev.pureDP(1, RO)), RO, ORDERS)
    expect(E.isRight(r)).toBe(true)
    if (E.isLeft(r)) return
    const expected = withoutReplacementCurve(ORDERS, 0.01, (a) => pureDpRdp(1, a), 1)
    expect(near(r.right.curve, expected, 1e-11)).toBe(true)
    expect(r.right.notes.some((n) => n.startsWith(WBK_NOTE))).toBe(true)
    // Amplified pure ε: log(1 + γ(e − 1)).
    expect(r.right.pureEpsilon).toBeCloseTo(Math.log1p(0.01 * Math.expm1(1)), 14)
  })

  it('converts add/remove leaves under a replace-one accountant, with a note', () => {
    const r = rdpCurveDetailed(ev.labeled('x', ev.gaussian(2, 1, AR)), RO, ORDERS)
    expect(E.isRight(r) && near(r.right.curve, ORDERS.map((a) => gaussianRdp(1, a)))).toBe(true)
    expect(E.isRight(r) && r.right.notes[0]).toMatch(/^\$\.event: Gaussian stated under add-remove/)
  })

  it('q = 1 and m = n are no sampling at all', () => {
    const l = ev.laplace(1, 1, AR)
    expect(near(curveOf(ev.poissonSample(1, l)), curveOf(l), 0)).toBe(true)
    const p = ev.pureDP(0.5, RO)
    expect(near(curveOf(ev.sampleWithoutReplacement(7, 7, p), RO), curveOf(p, RO), 0)).toBe(true)
  })

  it('returns one value per requested order, in the order given', () => {
    const c = curveOf(ev.gaussian(1, 1, AR), AR, [3, 1.5, 3])
    expect(c.length).toBe(3)
    expect(c[0]).toBe(c[2])
    expect(c[0]).toBeCloseTo(1.5, 12)
    expect(c[1]).toBeCloseTo(0.75, 12)
  })
})

describe('errors name the offending sub-event', () => {
  it('ApproxDP with δ > 0 deep in the tree', () => {
    const tree = ev.compose([ev.noOp, ev.selfCompose(ev.labeled('s', ev.approxDP(1, 1e-6, AR)), 3)])
    expect(errorOf(tree)).toMatch(/^\$\.events\[1\]\.event\.event: the rdp accountant cannot handle ApproxDP/)
  })

  it('Poisson sampling under replace-one, sampling without replacement under add/remove', () => {
    expect(errorOf(ev.compose([ev.poissonSample(0.1, ev.gaussian(1, 1, RO))]), RO)).toMatch(/^\$\.events\[0\]: Poisson/)
    expect(errorOf(ev.labeled('w', ev.sampleWithoutReplacement(1, 10, ev.gaussian(1, 1, AR))))).toMatch(/^\$\.event: sampling without/)
  })

  it('a relation mismatch on a sampled Gaussian leaf points at the leaf', () => {
    expect(errorOf(ev.poissonSample(0.1, ev.labeled('g', ev.gaussian(1, 1, RO))))).toMatch(/^\$\.event\.event: /)
  })

  it('invalid parameters and orders', () => {
    expect(errorOf(ev.poissonSample(1.5, ev.gaussian(1, 1, AR)))).toMatch(/^\$\.q: /)
    const r = rdpCurve(ev.noOp, AR, [2, 1])
    expect(E.isLeft(r) && r.left.path).toBe('orders[1]')
    expect(E.isLeft(rdpCurve(ev.noOp, AR, []))).toBe(true)
    expect(E.isLeft(rdpCurve(ev.noOp, AR, [Number.NaN]))).toBe(true)
  })
})

describe('memoisation', () => {
  it('SelfCompose of a subsampled event T = 10,000 times costs about as much as once', () => {
    const step = ev.poissonSample(0.01, ev.laplace(1, 1, AR))
    const t0 = performance.now()
    const one = curveOf(step, AR, DEFAULT_ORDERS)
    const t1 = performance.now()
    const many = curveOf(ev.selfCompose(step, 10_000), AR, DEFAULT_ORDERS)
    const t2 = performance.now()
    expect(near(many, Array.from(one, (x) => 10_000 * x))).toBe(true)
    expect(t2 - t1).toBeLessThan(Math.max(50, 3 * (t1 - t0)))
  })

  it('a Compose of 2,000 references to one sampled event computes its curve once', () => {
    const step = ev.poissonSample(0.01, ev.compose([ev.laplace(1, 1, AR), ev.randomizedResponse(1, 3, AR)]))
    const t0 = performance.now()
    const c = curveOf(ev.compose(Array.from({ length: 2000 }, () => step)), AR, DEFAULT_ORDERS)
    expect(performance.now() - t0).toBeLessThan(2000)
    expect(near(c, Array.from(curveOf(step, AR, DEFAULT_ORDERS), (x) => 2000 * x), 1e-12)).toBe(true)
  })
})

describe('leaf memo keys', () => {
  it('two different stated RDP curves in one tree are both counted (their key is their value, nested fields too)', () => {
    const a = ev.statedRdp([2, 4], [0.1, 0.2], AR)
    const b = ev.statedRdp([2, 4], [1, 2], AR)
    const sum = curveOf(ev.compose([a, b]), AR, [2, 4])
    const parts = [curveOf(a, AR, [2, 4]), curveOf(b, AR, [2, 4])]
    expect(near(sum, [0, 1].map((i) => (parts[0]![i] as number) + (parts[1]![i] as number)), 1e-12)).toBe(true)
    expect(near(curveOf(ev.compose([b, a]), AR, [2, 4]), sum, 1e-12)).toBe(true)
  })
})

describe('kept computations (./kept.ts)', () => {
  it('answers are the same bits with everything forgotten and after other grids, orders and events filled the tables', () => {
    const leaf = fc.oneof(
      fc.record({ k: fc.constant('g'), s: fc.double({ min: 0.4, max: 8, noNaN: true }) }),
      fc.record({ k: fc.constant('l'), s: fc.double({ min: 0.2, max: 8, noNaN: true }) }),
      fc.record({ k: fc.constant('rr'), s: fc.double({ min: 0.1, max: 4, noNaN: true }) }),
    )
    const build = (x: { k: string; s: number }, q: number, T: number, wor: boolean): ev.PrivacyEvent => {
      if (wor) return ev.selfCompose(ev.sampleWithoutReplacement(10, 1000 + Math.round(1e4 * q), ev.gaussian(x.s, 1, RO)), T)
      const base = x.k === 'g' ? ev.gaussian(x.s, 1, AR) : x.k === 'l' ? ev.laplace(x.s, 1, AR) : ev.randomizedResponse(x.s, 2, AR)
      return ev.repeatAndSelect(ev.selfCompose(ev.poissonSample(q, base), T), 3, T % 2 === 0 ? Infinity : 1)
    }
    fc.assert(
      fc.property(leaf, fc.double({ min: 1e-3, max: 0.3, noNaN: true }), fc.integer({ min: 1, max: 500 }), fc.boolean(), (x, q, T, wor) => {
        const rel = wor ? RO : AR
        const answer = (): unknown => {
          const acct = makeRdpAccountant({ relation: rel })
          const s = acct.compose(build(x, q, T, wor))(acct.empty)
          if (E.isLeft(s)) return s.left.message
          const a = acct.epsilon(1e-6)(s.right)
          return [Array.from(s.right.curve), E.isRight(a) ? [a.right.epsilon, a.right.order] : a.left.message]
        }
        forgetKept()
        const fresh = answer()
        // Fill the tables from other grids and orders first, then ask again.
        curveOf(build(x, q, T + 1, wor), rel, [1.5, 2.5, 7, 33.3, 200])
        expect(answer()).toEqual(fresh)
        expect(answer()).toEqual(fresh)
      }),
      { seed: 2026_1127, numRuns: 25 },
    )
  })
})

describe('fold properties', () => {
  it('subsampling never increases the curve, and ε is monotone in q (general path)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.2, max: 5, noNaN: true }), fc.double({ min: 1e-3, max: 1, noNaN: true }), (b, q) => {
        const inner = ev.compose([ev.laplace(b, 1, AR), ev.gaussian(b, 1, AR)])
        const full = curveOf(inner)
        const sub = curveOf(ev.poissonSample(q, inner))
        const half = curveOf(ev.poissonSample(q / 2, inner))
        return Array.from(sub).every((x, i) => x <= (full[i] as number) * (1 + 1e-12) && (half[i] as number) <= x * (1 + 1e-12))
      }),
      { seed: SEED, numRuns: 40 },
    )
  })
})
