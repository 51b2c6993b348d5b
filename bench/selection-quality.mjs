// Selection quality, taken apart (issue 23, small claims): for one zoo entry, every pair gets the same
// selection sample (n outputs per side), every applicable family chooses its event there through the
// audit's own code (search.ts pairJobs, fitInline, bestOfPair: the selection objective, the bound
// form, the event moved to the whole-sample model), and each event is then counted on fresh outputs
// (N per side) and bounded as the estimation phase would (ratio-bound.ts boundFromCounts at 95 %).
// It prints, per (pair, family), the objective, the event's counts on the selection and the fresh
// sample, and its certified bound ("actual"); per seed, the candidate the objective chooses and the
// best actual among all candidates — what an oracle chooser would certify. The first says how good the
// choice is, the second how good the events are: at Lyu et al.'s Alg. 3 at ε = 0.1 the second is the
// binding one (docs/auditing.md, "Tried and not landed", 2026-11-28 third session).
//
// The halving rounds of a real audit are not reproduced: every pair gets n here, and the choice is
// over all pairs × families at once (harder than the audit's last round, which sees two pairs).
//
//   npm run build && node bench/selection-quality.mjs [--entry NAME] [--n 51000] [--est 325000]
//     [--seeds 1,2,3,4] [--pairs label,label] [--families joint,logistic]
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { boundFromCounts } from '../dist/attacks/ratio-bound.js'
import { ATTACK_FAMILIES, compileScorer } from '../dist/attacks/score.js'
import { bestOfPair, fitInline, pairJobs } from '../dist/attacks/search.js'
import { zFor } from '../dist/attacks/select.js'
import { TrialRng } from '../dist/attacks/stream.js'
import { zooEntry } from '../dist/attacks/zoo/index.js'

const { values } = parseArgs({
  options: {
    entry: { type: 'string', default: 'sparse-vector-noisy-value-small-epsilon' },
    n: { type: 'string', default: '51000' },
    est: { type: 'string', default: '325000' },
    seeds: { type: 'string', default: '1,2,3,4' },
    pairs: { type: 'string' },
    families: { type: 'string' },
  },
})
const entry = zooEntry(values.entry)
if (entry === undefined) throw new Error(`no zoo entry ${values.entry}`)
const claim = entry.defaultClaim
const mechanism = entry.make(claim)
const n = Number(values.n)
const N = Number(values.est)
// Each pair keeps its index in the entry's list, and with it its streams, whichever pairs are listed.
const pairs = [...entry.pairs().entries()].filter(([, p]) => values.pairs === undefined || values.pairs.split(',').includes(p.label))
const families = values.families?.split(',') ?? ATTACK_FAMILIES
const alpha = 0.05
// The audit's projection at N estimation trials per side (engine/selection.ts `evaluate`).
const projection = { n: N, z: zFor(alpha / 2), ...(claim.delta === 0 ? { zRatio: zFor(alpha) } : {}) }

/** `count` outputs of the mechanism on x, trial i drawing from stream (key, i); numbers or vectors, flattened. */
const outputs = (x, count, key) => {
  const rng = new TrialRng(key)
  const first = mechanism(x, rng)
  const dim = typeof first === 'number' || typeof first === 'boolean' ? 1 : first.length
  const v = new Float64Array(count * dim)
  for (let i = 0; i < count; i++) {
    rng.reset(i)
    const y = mechanism(x, rng)
    if (dim === 1) v[i] = Number(y)
    else for (let j = 0; j < dim; j++) v[i * dim + j] = Number(y[j])
  }
  return { v, dim, scalar: typeof first === 'number' }
}

/** Outputs i of v (dim per output) in the event {σ·score ≥ t}. */
const inEvent = (score, v, count, dim, sigma, t) => {
  let k = 0
  for (let i = 0; i < count; i++) if (sigma * (score.kind === 'vector' ? score.score(v, i * dim) : score.score(v[i])) >= t) k++
  return k
}

console.log(`${values.entry}: claim ε = ${claim.epsilon}, ${pairs.length} pairs, ${n.toLocaleString('en-US')} selection and ${N.toLocaleString('en-US')} fresh outputs per pair and side, load ${loadavg()[0].toFixed(1)}`)
const summary = []
for (const seed of values.seeds.split(',').map(Number)) {
  const rows = []
  for (const [p, pair] of pairs) {
    const a = outputs(pair.input, n, [seed, 4 * p])
    const b = outputs(pair.neighbour, n, [seed, 4 * p + 1])
    const shape = a.scalar ? { kind: 'number', dim: 1 } : { kind: 'vector', dim: a.dim }
    const s = { shape, n: [n, n], values: [a.v, b.v], codes: [new Int32Array(0), new Int32Array(0)], categories: [] }
    const fresh = [outputs(pair.input, N, [seed + 1000, 4 * p + 2]), outputs(pair.neighbour, N, [seed + 1000, 4 * p + 3])]
    for (const family of families) {
      const best = bestOfPair(p, pair.label, shape, [family], fitInline(pairJobs(p, s, [family], claim.delta, projection.z, projection))).best
      if (best === null) continue
      const score = compileScorer(best.attack.model, shape)
      const { orientation: o, threshold: t } = best.attack
      const sel = [inEvent(score, a.v, n, a.dim, o, t), inEvent(score, b.v, n, b.dim, o, t)]
      const k = [inEvent(score, fresh[0].v, N, a.dim, o, t), inEvent(score, fresh[1].v, N, a.dim, o, t)]
      const actual = boundFromCounts(best.form, k[1], N, N - k[0], N, claim.delta, alpha)
      rows.push({ pair: pair.label, family, objective: best.objective, form: best.form, sel, est: k, actual })
      console.log(`  seed ${seed}  ${pair.label.padEnd(24)} ${family.padEnd(11)} objective ${best.objective.toFixed(3)}  ${best.form.padEnd(9)} event: selection ${sel.join('/')}, fresh ${k.join('/')}  certified ${actual.toFixed(3)}`)
    }
  }
  if (rows.length === 0) continue
  const chosen = rows.reduce((x, y) => (y.objective > x.objective ? y : x))
  const oracle = rows.reduce((x, y) => (y.actual > x.actual ? y : x))
  summary.push({ seed, chosen, oracle })
  console.log(`seed ${seed}: chosen ${chosen.pair} / ${chosen.family} (objective ${chosen.objective.toFixed(3)}) certifies ${chosen.actual.toFixed(3)}; best candidate ${oracle.pair} / ${oracle.family} certifies ${oracle.actual.toFixed(3)}`)
}
const above = (xs) => xs.filter((x) => x > claim.epsilon).length
console.log(`\nchosen by the objective: ${summary.map((s) => s.chosen.actual.toFixed(3)).join(' ')} (above the claim: ${above(summary.map((s) => s.chosen.actual))} of ${summary.length})`)
console.log(`best candidate (oracle chooser): ${summary.map((s) => s.oracle.actual.toFixed(3)).join(' ')} (above the claim: ${above(summary.map((s) => s.oracle.actual))} of ${summary.length})`)
