import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { DEFAULT_ORDERS, MAX_ORDER, validateOrders } from '../../../src/accounting/rdp/index.js'

describe('the default order grid', () => {
  it('is sorted, > 1, dense near 1 and below 10, every integer to 64, ratios ≤ 1.25 above', () => {
    const g = DEFAULT_ORDERS
    expect(g.length).toBe(125)
    expect(g[0]).toBe(1.05)
    expect(g[g.length - 1]).toBe(1024)
    for (let i = 1; i < g.length; i++) expect(g[i] as number).toBeGreaterThan(g[i - 1] as number)
    for (let a = 2; a <= 64; a++) expect(g).toContain(a)
    expect(g.filter((a) => a < 2)).toHaveLength(19)
    expect(g).toContain(1.5)
    expect(g).toContain(9.75)
    for (let i = 1; i < g.length; i++) if ((g[i] as number) > 64) expect((g[i] as number) / (g[i - 1] as number)).toBeLessThanOrEqual(1.25)
    expect(Object.isFrozen(g)).toBe(true)
  })
})

describe('validateOrders', () => {
  it('sorts, removes duplicates and returns a fresh grid', () => {
    const r = validateOrders([8, 2, 8, 1.5])
    expect(E.isRight(r) && r.right).toEqual([1.5, 2, 8])
  })

  it('refuses empty grids and orders ≤ 1, non-finite or above MAX_ORDER, naming the index', () => {
    const bad = (orders: number[]) => {
      const r = validateOrders(orders)
      return E.isLeft(r) ? r.left.path : 'accepted'
    }
    expect(bad([])).toBe('orders')
    expect(bad([2, 1])).toBe('orders[1]')
    expect(bad([0.5])).toBe('orders[0]')
    expect(bad([2, Number.NaN])).toBe('orders[1]')
    expect(bad([Infinity])).toBe('orders[0]')
    expect(bad([MAX_ORDER + 1])).toBe('orders[0]')
    expect(bad([1.0001, MAX_ORDER])).toBe('accepted')
  })
})
