/**
 * The collapsed joint log-likelihood log p(w, z | α, β) of a Gibbs state (Griffiths & Steyvers
 * 2004, eq. 2–3), the per-iteration training trace. It touches only non-zero counts: the
 * zero cells contribute ln Γ(β) − ln Γ(β) = 0 after the constant terms.
 *
 * @module
 */
import gammaln from '@stdlib/math-base-special-gammaln'
import type { GibbsState } from './state.js'

export const jointLogLikelihood = (s: GibbsState, alpha: number, beta: number): number => {
  const { K, V, D, nwk, nk, ndk, docStart } = s
  const lgb = gammaln(beta)
  const lga = gammaln(alpha)
  let ll = K * (gammaln(V * beta) - V * lgb)
  for (let i = 0; i < nwk.length; i++) {
    const c = nwk[i] as number
    if (c > 0) ll += gammaln(c + beta) - lgb
  }
  for (let k = 0; k < K; k++) ll -= gammaln((nk[k] as number) + V * beta)
  const lgka = gammaln(K * alpha)
  for (let d = 0; d < D; d++) {
    ll += lgka - gammaln((docStart[d + 1] as number) - (docStart[d] as number) + K * alpha)
    for (let k = 0; k < K; k++) {
      const c = ndk[d * K + k] as number
      if (c > 0) ll += gammaln(c + alpha) - lga
    }
  }
  return ll
}
