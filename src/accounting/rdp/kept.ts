/**
 * Process-wide memos of pure computations, keyed by the values they depend on (never by object
 * identity): each RDP query folds its event in a fresh context and its continuous order search
 * evaluates ~32 more orders, each through a fold of its own, so what depends only on a leaf's
 * parameters (a sampled Gaussian's quadrature nodes and values, a sampled Laplace's integer-order
 * values, a leaf's curve on a grid) was recomputed by every context. Kept values are the same bits
 * a fresh computation gives, because the key holds every input of the function memoised.
 *
 * Each table keeps its last `limit` keys (insertion order), so memory stays bounded whatever a
 * process accounts.
 *
 * @module
 */

/** A table of at most `limit` entries: `get` returns a kept value, `set` keeps one (dropping the oldest). */
export interface Kept<V, K extends string | number = string> {
  readonly get: (key: K) => V | undefined
  readonly set: (key: K, v: V) => V
}

/** One table's current Map (replaced, never cleared: see `forgetKept`). */
interface Slot<V, K> {
  map: Map<K, V>
  /** A parameter-free table (a constant of the grid, such as log-binomial rows), not a function of any event. */
  readonly constant: boolean
}

/** Every table made, so a test can compare kept answers with fresh ones (`forgetKept`). */
const TABLES: Array<Slot<unknown, unknown>> = []

/**
 * Empties the kept tables (for tests and the bench's cold queries: answers must not depend on what
 * was kept). Every module-level memo of the RDP accountant is a table made by `kept`. `'all'` (the
 * default) empties every one, the parameter-free constants too (the log-binomial rows of
 * ./log-space.ts): what the first query of a process pays. `'parameters'` keeps the constants and
 * empties every table that depends on an event's parameters: what a query on new parameters pays in
 * a process that has answered one before. Each table gets a new Map rather than `Map.prototype.clear`: V8's clear leaves the old
 * backing store pointing to the new one, and a dead store already promoted to the old generation is
 * a root for the next scavenge, so every table emptied since the last full GC stayed reachable
 * through that chain, with all it kept (~3 MB promoted per scavenge in a loop of cold queries,
 * against ~0.85 MB with replacement; node --trace-gc-nvp, 2,000 cold queries).
 */
export const forgetKept = (scope: 'all' | 'parameters' = 'all'): void => {
  for (const t of TABLES) if (scope === 'all' || !t.constant) t.map = new Map()
}

/** A table of at most `limit` entries; `constant` marks one that depends on no event parameter (see `forgetKept`). */
export const kept = <V, K extends string | number = string>(limit: number, constant = false): Kept<V, K> => {
  const slot: Slot<V, K> = { map: new Map(), constant }
  TABLES.push(slot as Slot<unknown, unknown>)
  return {
    get: (key) => slot.map.get(key),
    set: (key, v) => {
      const table = slot.map
      if (table.size >= limit && !table.has(key)) table.delete(table.keys().next().value as K)
      table.set(key, v)
      return v
    },
  }
}

/** The kept value of `key`, made and kept when there is none. */
export const keptOr = <V, K extends string | number>(table: Kept<V, K>, key: K, make: () => V): V => table.get(key) ?? table.set(key, make())

/** A per-order memo of one kept computation, emptied (a new Map, as in `forgetKept`) when it passes `limit` orders. */
export const byOrder = <V>(limit: number, at: (alpha: number) => V): ((alpha: number) => V) => {
  let values = new Map<number, V>()
  return (alpha) => {
    let v = values.get(alpha)
    if (v === undefined) {
      v = at(alpha)
      if (values.size >= limit) values = new Map()
      values.set(alpha, v)
    }
    return v
  }
}
