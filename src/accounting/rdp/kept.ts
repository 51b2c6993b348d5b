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
export interface Kept<V> {
  readonly get: (key: string) => V | undefined
  readonly set: (key: string, v: V) => V
}

/** Every table made, so a test can compare kept answers with fresh ones (`forgetKept`). */
const TABLES: Array<Map<string, unknown>> = []

/** Empties every kept table (for tests: answers must not depend on what was kept). */
export const forgetKept = (): void => {
  for (const t of TABLES) t.clear()
}

export const kept = <V>(limit: number): Kept<V> => {
  const table = new Map<string, V>()
  TABLES.push(table)
  return {
    get: (key) => table.get(key),
    set: (key, v) => {
      if (table.size >= limit && !table.has(key)) table.delete(table.keys().next().value as string)
      table.set(key, v)
      return v
    },
  }
}

/** The kept value of `key`, made and kept when there is none. */
export const keptOr = <V>(table: Kept<V>, key: string, make: () => V): V => table.get(key) ?? table.set(key, make())

/** A per-order memo of one kept computation, cleared when it passes `limit` orders. */
export const byOrder = <V>(limit: number, at: (alpha: number) => V): ((alpha: number) => V) => {
  const values = new Map<number, V>()
  return (alpha) => {
    let v = values.get(alpha)
    if (v === undefined) {
      v = at(alpha)
      if (values.size >= limit) values.clear()
      values.set(alpha, v)
    }
    return v
  }
}
