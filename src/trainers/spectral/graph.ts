/**
 * The mechanism graph of the private spectral algorithm (the spectral-LDA paper, arXiv:1805.10341,
 * Figure 1) as a value: nodes, edges e0–e9 with the operation each performs and the sensitivity of the
 * quantity noise on it releases (./sensitivity.ts), noise configurations as typed sets of edges, the
 * cut check, and the text that goes into the privacy statement.
 *
 * Figure 1 itself did not survive the text extraction; the graph is rebuilt from §4 steps (1)–(6)
 * and §6, and is the one reading consistent with everything the paper says about it: (e3, e4, e8),
 * (e6, e8), (e7, e8) and (e9) are cuts, and (e0, e2) is not ("the non-private information could
 * flow to the output through the path below", i.e. data → M̂3 → T̂ → …). W† hangs off M̂2 (e5), not
 * off W: §6.2 makes "the whitening matrix from a noiseless M̂2, but the pseudo-inverse from a noisy
 * M̂2", so the two are computed separately.
 *
 * Noise on an edge releases the value its tail node passes along (§1: "differentially privately
 * releasing all nodes preceding the edges in E"); W and W† are released by computing them from a
 * fresh noisy copy of M̂2 (§6.1: noise "on M̂2 to ensure DP W for edge e4 … W† for edge e8"). Each
 * noised edge draws its own noise and is charged on its own.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { SPECTRAL_PAPER } from '../papers.js'
import {
  type DataQuantities,
  decompositionReleaseSensitivity,
  outputReleaseSensitivity,
  QUANTITY_TEXT,
  type QuantityName,
  secondMomentSensitivity,
  type SensitivityStatus,
  thirdMomentSensitivity,
  whitenedTensorSensitivity,
} from './sensitivity.js'

export const NODES = ['data', 'M2', 'M3', 'W', 'T', 'decomposition', 'Wdagger', 'unwhitened', 'output'] as const
export type NodeId = (typeof NODES)[number]

export const NODE_TEXT: Readonly<Record<NodeId, string>> = {
  data: 'data (count vectors c_n)',
  M2: 'M̂2',
  M3: 'M̂3',
  W: 'W = U_k Λ_k^{−1/2}',
  T: 'T̂ = M̂3(W, W, W)',
  decomposition: '(λ_i, v_i) = (ᾱ_i, μ̄_i)',
  Wdagger: 'W† = U_k Λ_k^{1/2}',
  unwhitened: '(μ_i, α_i)',
  output: 'released model',
}

export const EDGE_IDS = ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9'] as const
export type EdgeId = (typeof EDGE_IDS)[number]

export const isEdgeId = (s: string): s is EdgeId => (EDGE_IDS as ReadonlyArray<string>).includes(s)

/** What noise on an edge is added to. */
export type NoisedQuantity = 'documents' | 'M2' | 'M3' | 'T' | 'decomposition' | 'unwhitened'

export interface EdgeSensitivity {
  readonly status: SensitivityStatus
  /** Theorem/lemma and how dpaudit took it. */
  readonly source: string
  readonly formula: string
  /** Data-dependent quantities (released privately by PTR before the noise is calibrated). */
  readonly needs: ReadonlyArray<QuantityName>
  /** L2 sensitivity given the quantities (∞ when the bound does not apply). */
  readonly l2: (q: DataQuantities) => number
}

export interface GraphEdge {
  readonly id: EdgeId
  readonly from: NodeId
  readonly to: NodeId
  readonly operation: string
  readonly noised: NoisedQuantity
  readonly sensitivity: EdgeSensitivity
  /** Why dpaudit cannot put noise on this edge, when it cannot. */
  readonly unsupported?: string
}

const M2_SENSITIVITY: EdgeSensitivity = {
  status: 'proved',
  source: 'Theorem 4 (App. H.1), re-derived in L2',
  formula: 'Δ2 = √2(1 + 2a)/N',
  needs: [],
  l2: (q) => secondMomentSensitivity(q.documents, q.alpha0),
}

const INPUT_SENSITIVITY: EdgeSensitivity = {
  status: 'proved',
  source: '§6.4 (input perturbation)',
  formula: '√2·L (L the longest document)',
  needs: [],
  l2: () => Number.POSITIVE_INFINITY,
}

const INPUT_UNSUPPORTED =
  'noise on the documents themselves (input perturbation) has L2 sensitivity √2·L, which does not fall with N; the paper excludes it (§6.4) and dpaudit does not implement it'

export const EDGES: ReadonlyArray<GraphEdge> = [
  { id: 'e0', from: 'data', to: 'M2', operation: 'estimate M̂2 (eq. 6)', noised: 'documents', sensitivity: INPUT_SENSITIVITY, unsupported: INPUT_UNSUPPORTED },
  { id: 'e1', from: 'data', to: 'M3', operation: 'estimate M̂3 (eq. 7)', noised: 'documents', sensitivity: INPUT_SENSITIVITY, unsupported: INPUT_UNSUPPORTED },
  { id: 'e2', from: 'M2', to: 'W', operation: 'top-k eigenpairs of M̂2 → W', noised: 'M2', sensitivity: M2_SENSITIVITY },
  {
    id: 'e3',
    from: 'M3',
    to: 'T',
    operation: 'whiten M̂3',
    noised: 'M3',
    sensitivity: { status: 'proved', source: 'Theorem 4 (App. H.2), re-derived in L2', formula: 'Δ3 = √2(1 + 6|b| + 3c)/N', needs: [], l2: (q) => thirdMomentSensitivity(q.documents, q.alpha0) },
  },
  { id: 'e4', from: 'W', to: 'T', operation: 'whiten with W', noised: 'M2', sensitivity: M2_SENSITIVITY },
  { id: 'e5', from: 'M2', to: 'Wdagger', operation: 'top-k eigenpairs of M̂2 → W†', noised: 'M2', sensitivity: M2_SENSITIVITY },
  {
    id: 'e6',
    from: 'T',
    to: 'decomposition',
    operation: 'tensor power method',
    noised: 'T',
    sensitivity: { status: 'paper', source: 'Theorem 5 (App. H.3, eq. 64) as stated', formula: 'Δ_T = ‖M̂3‖(2k)^{3/2}Δ2³/(σ_k√s)³ + Δ3 k^{3/2}/s^{3/2}, s = σ_k − Δ2', needs: ['sigmaK'], l2: whitenedTensorSensitivity },
  },
  {
    id: 'e7',
    from: 'decomposition',
    to: 'unwhitened',
    operation: 'un-whiten (with W†)',
    noised: 'decomposition',
    sensitivity: { status: 'paper', source: 'Theorem 6 (App. H.4) as stated', formula: '√(2k)·Δ_μ̄ for all (ᾱ_i, μ̄_i), Δ_μ̄ = Δ_ᾱ = 2√k·Δ_T/γ_s', needs: ['sigmaK', 'gammaS'], l2: decompositionReleaseSensitivity },
  },
  { id: 'e8', from: 'Wdagger', to: 'unwhitened', operation: 'un-whiten (with (λ_i, v_i))', noised: 'M2', sensitivity: M2_SENSITIVITY },
  {
    id: 'e9',
    from: 'unwhitened',
    to: 'output',
    operation: 'clip at 0, renormalise, release',
    noised: 'unwhitened',
    sensitivity: {
      status: 'paper',
      source: 'Theorem 7 (App. H.5) as stated, σ_1(T̂) ≤ ‖M̂3‖_F/σ_k^{3/2}',
      formula: '√k·Δ_μ for all μ_i, Δ_μ = C[σ1(T̂)√σ1(M̂2)·Δ_μ̄ + σ1(T̂)√σ1(M̂2)Δ2/σ_k + √(σ1(M̂2) + Δ2)·Δ_μ̄]',
      needs: ['sigmaK', 'sigma1', 'gammaS'],
      l2: outputReleaseSensitivity,
    },
  },
]

export const edge = (id: EdgeId): GraphEdge => EDGES.find((e) => e.id === id) as GraphEdge

/** A noise configuration: a set of noised edges (sorted, no repeats). */
export interface NoiseConfiguration {
  readonly name: string
  readonly edges: ReadonlyArray<EdgeId>
}

export const BUILTIN_CONFIGURATIONS: ReadonlyArray<NoiseConfiguration> = [
  { name: 'config 1 (e3, e4, e8)', edges: ['e3', 'e4', 'e8'] },
  { name: 'config 2 (e6, e8)', edges: ['e6', 'e8'] },
  { name: 'config 3 (e7, e8)', edges: ['e7', 'e8'] },
  { name: 'config 4 (e9)', edges: ['e9'] },
]

const byOrder = (a: EdgeId, b: EdgeId): number => EDGE_IDS.indexOf(a) - EDGE_IDS.indexOf(b)

/**
 * A configuration from text: "1"–"4" for the paper's, or edge names separated by commas
 * ("e3,e4,e8"). Unknown edges and repeats are errors naming them; whether it is a cut is `checkCut`.
 */
export const parseConfiguration = (text: string, path = 'config'): E.Either<DpError, NoiseConfiguration> => {
  const t = text.trim()
  const builtin = /^(?:config\s*)?([1-4])$/i.exec(t)
  if (builtin !== null) return E.right(BUILTIN_CONFIGURATIONS[Number(builtin[1]) - 1] as NoiseConfiguration)
  const parts = t.split(',').map((s) => s.trim().toLowerCase())
  if (parts.length === 0 || parts.some((p) => p.length === 0))
    return E.left(invalidParameter(path, text, 'expected edges separated by commas (e.g. "e3,e4,e8") or a paper configuration 1–4'))
  const edges: EdgeId[] = []
  for (const p of parts) {
    if (!isEdgeId(p)) return E.left(invalidParameter(path, text, `unknown edge "${p}": the graph has edges ${EDGE_IDS.join(', ')}`))
    if (edges.includes(p)) return E.left(invalidParameter(path, text, `edge ${p} is named twice`))
    edges.push(p)
  }
  edges.sort(byOrder)
  const known = BUILTIN_CONFIGURATIONS.find((c) => c.edges.length === edges.length && c.edges.every((e, i) => e === edges[i]))
  return E.right(known ?? { name: `user configuration (${edges.join(', ')})`, edges })
}

/** A path from data to the output that avoids every edge in `noised`, as edges; undefined if none (the set is a cut). */
export const unprotectedPath = (noised: ReadonlyArray<EdgeId>): ReadonlyArray<GraphEdge> | undefined => {
  const blocked = new Set(noised)
  const visit = (node: NodeId, path: GraphEdge[]): GraphEdge[] | undefined => {
    if (node === 'output') return path
    for (const e of EDGES)
      if (e.from === node && !blocked.has(e.id)) {
        const found = visit(e.to, [...path, e])
        if (found !== undefined) return found
      }
    return undefined
  }
  return visit('data', [])
}

export const showPath = (path: ReadonlyArray<GraphEdge>): string => ['data', ...path.map((e) => `—${e.id}→ ${e.to}`)].join(' ')

/** The configuration if it is a cut of the graph and every edge in it can carry noise; otherwise an error naming the unprotected path or the edge. */
export const checkCut = (c: NoiseConfiguration, path = 'config'): E.Either<DpError, NoiseConfiguration> => {
  if (c.edges.length === 0) return E.left(invalidParameter(path, '', 'no noised edge: every path from the data to the output is unprotected'))
  const open = unprotectedPath(c.edges)
  if (open !== undefined)
    return E.left(invalidParameter(path, c.edges.join(','), `not a cut: the path ${showPath(open)} reaches the output without crossing a noised edge`))
  for (const id of c.edges) {
    const e = edge(id)
    if (e.unsupported !== undefined) return E.left(invalidParameter(path, c.edges.join(','), `edge ${id} (${NODE_TEXT[e.from]} → ${NODE_TEXT[e.to]}): ${e.unsupported}`))
  }
  return E.right(c)
}

/** Edges of a cut whose removal leaves a cut: they add noise and cost budget without being needed. */
export const redundantEdges = (c: NoiseConfiguration): ReadonlyArray<EdgeId> => c.edges.filter((id) => unprotectedPath(c.edges.filter((x) => x !== id)) === undefined)

/** The data-dependent quantities a configuration's sensitivities need (what PTR must bound). */
export const neededQuantities = (c: NoiseConfiguration): ReadonlyArray<QuantityName> => {
  const out: QuantityName[] = []
  for (const id of c.edges) for (const q of edge(id).sensitivity.needs) if (!out.includes(q)) out.push(q)
  const order: ReadonlyArray<QuantityName> = ['sigmaK', 'sigma1', 'gammaS']
  return out.sort((a, b) => order.indexOf(a) - order.indexOf(b))
}

/** Whether every noised edge's sensitivity is proved (not only stated by the paper). */
export const provedOnly = (c: NoiseConfiguration): boolean => c.edges.every((id) => edge(id).sensitivity.status === 'proved')

/** The graph as text, the noised edges marked with their sensitivity, for the privacy statement. */
export const renderGraph = (c?: NoiseConfiguration): string => {
  const noised = new Set(c?.edges ?? [])
  const lines = [`mechanism graph (${SPECTRAL_PAPER}, Figure 1, rebuilt from §4 and §6):`]
  for (const e of EDGES) {
    const mark = noised.has(e.id) ? '[NOISE]' : '       '
    const s = e.sensitivity
    lines.push(
      `  ${mark} ${e.id}: ${NODE_TEXT[e.from]} → ${NODE_TEXT[e.to]}  (${e.operation})` +
        (noised.has(e.id) ? `\n            noise on ${e.noised}; L2 sensitivity ${s.formula} [${s.status === 'proved' ? 'proved' : 'PAPER, NOT VERIFIED'}: ${s.source}]${s.needs.length > 0 ? `; needs ${s.needs.map((q) => QUANTITY_TEXT[q]).join(', ')} (released by PTR)` : ''}` : ''),
    )
  }
  if (c !== undefined) {
    const open = unprotectedPath(c.edges)
    lines.push(open === undefined ? `  ${c.name}: a cut (every path from the data to the output crosses a noised edge)` : `  ${c.name}: NOT a cut: ${showPath(open)}`)
    const extra = redundantEdges(c)
    if (open === undefined && extra.length > 0) lines.push(`  redundant (the rest is still a cut): ${extra.join(', ')}`)
  }
  return lines.join('\n')
}
