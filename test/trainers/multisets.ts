/** All multisets of 1..N words over a vocabulary of V, as sorted word lists: the brute-force documents of the sensitivity tests. */
export const multisets = (V: number, N: number): number[][] => {
  const out: number[][] = []
  const rec = (prefix: number[], from: number): void => {
    if (prefix.length > 0) out.push(prefix)
    if (prefix.length === N) return
    for (let v = from; v < V; v++) rec([...prefix, v], v)
  }
  rec([], 0)
  return out
}
