/**
 * The randomness private SVI draws from the release gate's words beyond the mechanisms' samplers
 * (normals, coins and subsets live in src/mechanisms/noise): the random N-token truncation of long
 * documents, and Gamma variates for the data-independent initial λ.
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { fillNormal, openUniform } from '../../mechanisms/noise/normal.js'

/**
 * The document tokens[from..to) truncated to at most N tokens: all of them if it is that short,
 * else N positions chosen uniformly without replacement (the private-SVI paper, §3: "randomly selecting N words").
 * Writes the kept word ids to `out` and returns how many; `scratch` holds at least to − from slots.
 */
export const truncate = (words: WordStream, tokens: Int32Array, from: number, to: number, N: number, out: Int32Array, scratch: Int32Array): number => {
  const len = to - from
  if (len <= N) {
    out.set(tokens.subarray(from, to))
    return len
  }
  for (let i = 0; i < len; i++) scratch[i] = i
  for (let i = 0; i < N; i++) {
    const j = i + words.uniformBelow(len - i)
    const t = scratch[j] as number
    scratch[j] = scratch[i] as number
    scratch[i] = t
    out[i] = tokens[from + t] as number
  }
  return N
}

/**
 * Gamma(shape, 1) for shape ≥ 1 by Marsaglia & Tsang (2000), on the normals and uniforms above; used
 * only for the data-independent initial λ (Gamma(100, 1/100) per entry, as Hoffman's onlineldavb).
 */
export const gammaVariate = (words: WordStream, shape: number): number => {
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  const z = new Float64Array(1)
  for (;;) {
    const x = fillNormal(words, 1, z)[0] as number
    const t = 1 + c * x
    if (t <= 0) continue
    const v = t * t * t
    if (Math.log(openUniform(words)) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v
  }
}
