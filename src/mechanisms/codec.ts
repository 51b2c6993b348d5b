/**
 * io-ts codecs for events and spec documents, and the domain checks that turn a decoded shape
 * into a trusted event. Decoding reports one line per problem, each naming the JSON path and
 * the offending value; infinite values travel as explicit strings (see core/json).
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { type DpError, decodeFailure, invalidParameter } from '../core/error.js'
import { firstDecodeError } from '../core/decode.js'
import { ExtendedNumber, findTooDeep, MAX_JSON_DEPTH, tooDeepMessage } from '../core/json.js'
import { type NeighbouringRelation, PRIVACY_UNITS, RELATION_KINDS, showRelation } from './neighbouring.js'
import { type PrivacyEvent, SCHEMA_VERSION } from './event.js'
import { withoutDegenerate } from './degenerate.js'

/**
 * Event trees nested deeper than this many events are refused before decoding (no stack overflow):
 * every event on the way down counts as one level (a Compose and its child are two levels, though
 * the Compose's `events` array adds a JSON level between them).
 */
export const MAX_EVENT_DEPTH = 64

export const RelationCodec: t.Type<NeighbouringRelation, NeighbouringRelation, unknown> = t.readonly(
  t.type({
    kind: t.keyof(Object.fromEntries(RELATION_KINDS.map((k) => [k, null])) as Record<NeighbouringRelation['kind'], null>),
    unit: t.keyof(Object.fromEntries(PRIVACY_UNITS.map((u) => [u, null])) as Record<NeighbouringRelation['unit'], null>),
  }),
  'NeighbouringRelation',
)

/** A relation from its text ("replace-one one word", as `showRelation` writes it), read by `RelationCodec`, or undefined. */
export const relationFromText = (text: string): NeighbouringRelation | undefined => {
  const m = /^(\S+) one (\S+)$/.exec(text)
  if (m === null) return undefined
  const r = RelationCodec.decode({ kind: m[1], unit: m[2] })
  return r._tag === 'Right' ? r.right : undefined
}

const N = ExtendedNumber

export const EventCodec: t.Type<PrivacyEvent, unknown, unknown> = t.recursion<PrivacyEvent, unknown>('PrivacyEvent', (): t.Type<PrivacyEvent, unknown, unknown> =>
  t.union([
    t.readonly(t.type({ _tag: t.literal('Laplace'), scale: N, sensitivity: N, relation: RelationCodec })),
    t.readonly(t.type({ _tag: t.literal('Gaussian'), sigma: N, sensitivity: N, relation: RelationCodec })),
    t.readonly(t.type({ _tag: t.literal('DiscreteLaplace'), scale: N, sensitivity: N, relation: RelationCodec })),
    // Readonly inside the intersection, so a failure path skips the intersection's branch index.
    t.intersection([
      t.readonly(t.type({ _tag: t.literal('DiscreteGaussian'), sigma: N, sensitivity: N, relation: RelationCodec })),
      t.readonly(t.partial({ scalar: t.boolean })),
    ]),
    t.readonly(t.type({ _tag: t.literal('RandomizedResponse'), epsilon: N, k: N, relation: RelationCodec })),
    t.readonly(
      t.type({
        _tag: t.literal('BitwiseRandomizedResponse'),
        flipProbability: N,
        bits: N,
        relation: RelationCodec,
      }),
    ),
    t.readonly(
      t.type({ _tag: t.literal('Exponential'), epsilon: N, utilitySensitivity: N, relation: RelationCodec }),
    ),
    t.readonly(
      t.type({ _tag: t.literal('PermuteAndFlip'), epsilon: N, utilitySensitivity: N, relation: RelationCodec }),
    ),
    t.intersection([
      t.readonly(
        t.type({ _tag: t.literal('TreeAggregation'), sigma: N, sensitivity: N, stepCounts: t.readonlyArray(N), relation: RelationCodec }),
      ),
      t.readonly(t.partial({ participations: N })),
    ]),
    t.readonly(
      t.type({
        _tag: t.literal('MixtureOfGaussians'),
        sigma: N,
        sensitivities: t.readonlyArray(N),
        probabilities: t.readonlyArray(N),
        relation: RelationCodec,
      }),
    ),
    t.readonly(t.type({ _tag: t.literal('StatedRdp'), orders: t.readonlyArray(N), rdp: t.readonlyArray(N), relation: RelationCodec })),
    t.readonly(
      t.type({ _tag: t.literal('StatedProfile'), epsilons: t.readonlyArray(N), deltas: t.readonlyArray(N), relation: RelationCodec }),
    ),
    t.readonly(t.type({ _tag: t.literal('PureDP'), epsilon: N, relation: RelationCodec })),
    t.readonly(t.type({ _tag: t.literal('ApproxDP'), epsilon: N, delta: N, relation: RelationCodec })),
    t.intersection([
      t.readonly(t.type({ _tag: t.literal('ZCDP'), rho: N, relation: RelationCodec })),
      t.readonly(t.partial({ xi: N })),
    ]),
    t.readonly(t.type({ _tag: t.literal('NoOp') })),
    t.readonly(t.type({ _tag: t.literal('NonPrivate') })),
    t.readonly(t.type({ _tag: t.literal('Compose'), events: t.readonlyArray(EventCodec) })),
    t.readonly(t.type({ _tag: t.literal('SelfCompose'), event: EventCodec, count: N })),
    t.readonly(t.type({ _tag: t.literal('PoissonSample'), q: N, event: EventCodec })),
    t.intersection([
      t.readonly(t.type({ _tag: t.literal('TruncatedPoissonSample'), q: N, maxBatch: N, datasetSize: N, event: EventCodec })),
      t.readonly(t.partial({ cut: t.literal('uniform') })),
    ]),
    t.readonly(t.type({ _tag: t.literal('SampleWithoutReplacement'), m: N, n: N, event: EventCodec })),
    t.readonly(t.type({ _tag: t.literal('WithReplacementSample'), batchSize: N, datasetSize: N, event: EventCodec })),
    t.readonly(t.type({ _tag: t.literal('RepeatAndSelect'), event: EventCodec, mean: N, shape: N })),
    t.readonly(t.type({ _tag: t.literal('Labeled'), label: t.string, event: EventCodec })),
  ]) as unknown as t.Type<PrivacyEvent, unknown, unknown>,
)

/** A spec document: one event tree with the relation it is accounted under. */
export interface Spec {
  readonly schemaVersion: typeof SCHEMA_VERSION
  readonly name?: string
  readonly description?: string
  /** The relation the guarantee is stated for; defaults to the relation all leaves share. */
  readonly relation?: NeighbouringRelation
  readonly event: PrivacyEvent
}

export const SpecCodec = t.intersection([
  t.type({ schemaVersion: t.literal(SCHEMA_VERSION), event: EventCodec }),
  t.partial({ name: t.string, description: t.string, relation: RelationCodec }),
])

// -------------------------------------------------------------------------------------------
// io-ts errors → one line per problem, with a JSON path
// -------------------------------------------------------------------------------------------

/** Every event tag the codec knows (the support table in docs/accounting.md covers each). */
export const KNOWN_TAGS = [
  'Laplace',
  'Gaussian',
  'DiscreteLaplace',
  'DiscreteGaussian',
  'RandomizedResponse',
  'BitwiseRandomizedResponse',
  'Exponential',
  'PermuteAndFlip',
  'TreeAggregation',
  'MixtureOfGaussians',
  'StatedRdp',
  'StatedProfile',
  'PureDP',
  'ApproxDP',
  'ZCDP',
  'NoOp',
  'NonPrivate',
  'Compose',
  'SelfCompose',
  'PoissonSample',
  'TruncatedPoissonSample',
  'SampleWithoutReplacement',
  'WithReplacementSample',
  'RepeatAndSelect',
  'Labeled',
]

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/**
 * Structural pre-check of a raw event, walking the JSON ourselves so the message names the
 * exact path (io-ts reports every union branch that failed, which reads badly on a CLI).
 */
const precheckEvent = (u: unknown, path: string): E.Either<DpError, void> => {
  const stack: Array<readonly [unknown, string, number]> = [[u, path, 1]]
  while (stack.length > 0) {
    const [v, p, depth] = stack.pop() as readonly [unknown, string, number]
    if (depth > MAX_EVENT_DEPTH)
      return E.left(decodeFailure(p, '…', `event tree nested too deep: more than ${MAX_EVENT_DEPTH} levels of events (this event is level ${depth})`))
    if (!isRecord(v)) return E.left(decodeFailure(p, v, 'expected an event object with a "_tag"'))
    const tag = v['_tag']
    if (typeof tag !== 'string' || !KNOWN_TAGS.includes(tag))
      return E.left(decodeFailure(`${p}._tag`, tag, `unknown event tag; expected one of ${KNOWN_TAGS.join(', ')}`))
    if (tag === 'Compose') {
      const evs = v['events']
      if (!Array.isArray(evs)) return E.left(decodeFailure(`${p}.events`, evs, 'expected an array of events'))
      for (let i = evs.length - 1; i >= 0; i--) stack.push([evs[i], `${p}.events[${i}]`, depth + 1])
    } else if (['SelfCompose', 'PoissonSample', 'TruncatedPoissonSample', 'SampleWithoutReplacement', 'WithReplacementSample', 'RepeatAndSelect', 'Labeled'].includes(tag)) {
      stack.push([v['event'], `${p}.event`, depth + 1])
    }
  }
  return E.right(undefined)
}

// -------------------------------------------------------------------------------------------
// domain checks: a decoded event is well-formed only if every parameter is in its domain
// -------------------------------------------------------------------------------------------

type Check = (x: number) => boolean
const positive: Check = (x) => x > 0
const finitePositive: Check = (x) => Number.isFinite(x) && x > 0
const positiveInteger: Check = (x) => Number.isInteger(x) && x >= 1

const need = (path: string, x: number, ok: Check, what: string): E.Either<DpError, void> =>
  Number.isNaN(x) ? E.left(invalidParameter(path, x, `must be ${what}, not NaN`)) : ok(x) ? E.right(undefined) : E.left(invalidParameter(path, x, `must be ${what}`))

/**
 * The checks of an additive-noise leaf: its noise parameter (> 0, ∞ allowed: nothing released) and
 * its sensitivity — finite and positive, or a positive integer for the discrete mechanisms, whose
 * query is integer-valued.
 */
const noiseChecks = (
  p: string,
  field: 'scale' | 'sigma',
  value: number,
  what: string,
  sensitivity: number,
  integer: boolean,
): ReadonlyArray<E.Either<DpError, void>> => [
  need(`${p}.${field}`, value, positive, `a positive number (${what})`),
  integer
    ? need(`${p}.sensitivity`, sensitivity, positiveInteger, 'a positive integer (the query is integer-valued)')
    : need(`${p}.sensitivity`, sensitivity, finitePositive, 'a finite positive number'),
]

/** Two lists read pairwise: both non-empty and of one length. */
const pairedLists = (
  p: string,
  aName: string,
  a: ReadonlyArray<number>,
  bName: string,
  b: ReadonlyArray<number>,
): ReadonlyArray<E.Either<DpError, void>> =>
  a.length === 0
    ? [E.left(invalidParameter(`${p}.${aName}`, a, 'must list at least one value'))]
    : a.length !== b.length
      ? [E.left(invalidParameter(`${p}.${bName}`, b, `must have one entry per entry of ${aName} (${a.length}), not ${b.length}`))]
      : []

/** Checks every parameter of an event tree; the first failure names its path. */
export const validateEvent = (e: PrivacyEvent, path = '$'): E.Either<DpError, PrivacyEvent> => {
  const checks: Array<E.Either<DpError, void>> = []
  const stack: Array<readonly [PrivacyEvent, string]> = [[e, path]]
  while (stack.length > 0) {
    const [v, p] = stack.pop() as readonly [PrivacyEvent, string]
    switch (v._tag) {
      case 'Laplace':
        checks.push(...noiseChecks(p, 'scale', v.scale, 'Laplace scale b > 0', v.sensitivity, false))
        break
      case 'Gaussian':
        checks.push(...noiseChecks(p, 'sigma', v.sigma, 'σ > 0', v.sensitivity, false))
        break
      case 'DiscreteLaplace':
        checks.push(...noiseChecks(p, 'scale', v.scale, 'discrete Laplace scale t > 0', v.sensitivity, true))
        break
      case 'DiscreteGaussian':
        checks.push(...noiseChecks(p, 'sigma', v.sigma, 'σ > 0', v.sensitivity, true))
        break
      case 'RandomizedResponse':
        checks.push(need(`${p}.epsilon`, v.epsilon, positive, 'ε > 0'))
        checks.push(need(`${p}.k`, v.k, (x) => Number.isInteger(x) && x >= 2, 'an integer k ≥ 2'))
        break
      case 'BitwiseRandomizedResponse':
        checks.push(need(`${p}.flipProbability`, v.flipProbability, (x) => x > 0 && x < 0.5, 'in (0, 1/2)'))
        checks.push(need(`${p}.bits`, v.bits, positiveInteger, 'a positive integer'))
        break
      case 'Exponential':
      case 'PermuteAndFlip':
        checks.push(need(`${p}.epsilon`, v.epsilon, positive, 'ε > 0'))
        checks.push(need(`${p}.utilitySensitivity`, v.utilitySensitivity, finitePositive, 'a finite positive number'))
        break
      case 'TreeAggregation':
        checks.push(...noiseChecks(p, 'sigma', v.sigma, 'σ > 0', v.sensitivity, false))
        if (v.stepCounts.length === 0) checks.push(E.left(invalidParameter(`${p}.stepCounts`, v.stepCounts, 'must list the steps of at least one tree')))
        v.stepCounts.forEach((c, i) =>
          checks.push(need(`${p}.stepCounts[${i}]`, c, (x) => Number.isInteger(x) && x >= 0 && x <= 2 ** 40, 'a non-negative integer (steps in a tree) at most 2^40')),
        )
        if (v.participations !== undefined)
          checks.push(need(`${p}.participations`, v.participations, positiveInteger, 'a positive integer (steps of one tree a record contributes to)'))
        break
      case 'MixtureOfGaussians': {
        checks.push(need(`${p}.sigma`, v.sigma, finitePositive, 'σ > 0 (finite)'))
        checks.push(...pairedLists(p, 'sensitivities', v.sensitivities, 'probabilities', v.probabilities))
        v.sensitivities.forEach((c, i) => checks.push(need(`${p}.sensitivities[${i}]`, c, (x) => Number.isFinite(x) && x >= 0, 'a finite sensitivity ≥ 0')))
        v.probabilities.forEach((w, i) => checks.push(need(`${p}.probabilities[${i}]`, w, (x) => x >= 0 && x <= 1, 'a probability in [0, 1]')))
        const total = v.probabilities.reduce((a, b) => a + b, 0)
        if (v.probabilities.every((x) => x >= 0 && x <= 1) && !(Math.abs(total - 1) <= 1e-9))
          checks.push(E.left(invalidParameter(`${p}.probabilities`, v.probabilities, `must sum to 1 (they sum to ${total})`)))
        if (v.relation.kind !== 'add-remove' && v.relation.kind !== 'replace-special')
          checks.push(
            E.left(
              invalidParameter(
                `${p}.relation`,
                showRelation(v.relation),
                'a mixture of Gaussians is stated for a unit present or absent, in both orders (add-remove or replace-special), as dp_accounting states it',
              ),
            ),
          )
        break
      }
      case 'StatedRdp':
        checks.push(...pairedLists(p, 'orders', v.orders, 'rdp', v.rdp))
        v.orders.forEach((a, i) =>
          checks.push(need(`${p}.orders[${i}]`, a, (x) => Number.isFinite(x) && x > 1 && x <= 1e4, 'a Rényi order, finite, in (1, 10^4]')),
        )
        v.rdp.forEach((r, i) => checks.push(need(`${p}.rdp[${i}]`, r, (x) => x >= 0, 'an RDP value ≥ 0 (∞ allowed)')))
        break
      case 'StatedProfile':
        checks.push(...pairedLists(p, 'epsilons', v.epsilons, 'deltas', v.deltas))
        v.epsilons.forEach((e, i) => checks.push(need(`${p}.epsilons[${i}]`, e, (x) => x >= 0, 'ε ≥ 0 (∞ allowed)')))
        v.deltas.forEach((d, i) => checks.push(need(`${p}.deltas[${i}]`, d, (x) => x >= 0 && x <= 1, 'δ in [0, 1]')))
        break
      case 'PureDP':
        checks.push(need(`${p}.epsilon`, v.epsilon, (x) => x >= 0, 'ε ≥ 0'))
        break
      case 'ApproxDP':
        checks.push(need(`${p}.epsilon`, v.epsilon, (x) => x >= 0, 'ε ≥ 0'))
        checks.push(need(`${p}.delta`, v.delta, (x) => x >= 0 && x <= 1, 'δ in [0, 1]'))
        break
      case 'ZCDP':
        checks.push(need(`${p}.rho`, v.rho, (x) => x >= 0, 'ρ ≥ 0'))
        if (v.xi !== undefined) checks.push(need(`${p}.xi`, v.xi, (x) => x >= 0, 'ξ ≥ 0 (the additive term of (ξ, ρ)-zCDP)'))
        break
      case 'NoOp':
      case 'NonPrivate':
        break
      case 'Compose':
        v.events.forEach((c, i) => stack.push([c, `${p}.events[${i}]`]))
        break
      case 'SelfCompose':
        checks.push(need(`${p}.count`, v.count, (x) => Number.isInteger(x) && x >= 0 && x <= 2 ** 40, 'a non-negative integer at most 2^40 (1,099,511,627,776)'))
        stack.push([v.event, `${p}.event`])
        break
      case 'PoissonSample':
        checks.push(need(`${p}.q`, v.q, (x) => x >= 0 && x <= 1, 'a sampling rate q in [0, 1]'))
        stack.push([v.event, `${p}.event`])
        break
      case 'TruncatedPoissonSample':
        checks.push(need(`${p}.q`, v.q, (x) => x >= 0 && x <= 1, 'a sampling rate q in [0, 1]'))
        checks.push(need(`${p}.datasetSize`, v.datasetSize, positiveInteger, 'a positive integer (the larger neighbour\'s number of units)'))
        checks.push(need(`${p}.maxBatch`, v.maxBatch, positiveInteger, 'a positive integer (the cap on the batch size)'))
        stack.push([v.event, `${p}.event`])
        break
      case 'SampleWithoutReplacement':
        checks.push(need(`${p}.n`, v.n, positiveInteger, 'a positive integer'))
        checks.push(need(`${p}.m`, v.m, (x) => Number.isInteger(x) && x >= 1 && x <= v.n, `an integer in [1, n = ${v.n}]`))
        stack.push([v.event, `${p}.event`])
        break
      case 'WithReplacementSample':
        checks.push(need(`${p}.datasetSize`, v.datasetSize, positiveInteger, 'a positive integer (the number of records drawn from)'))
        checks.push(need(`${p}.batchSize`, v.batchSize, (x) => Number.isInteger(x) && x >= 1 && x <= 2 ** 40, 'a positive integer (the number of draws) at most 2^40'))
        stack.push([v.event, `${p}.event`])
        break
      case 'RepeatAndSelect':
        checks.push(need(`${p}.mean`, v.mean, (x) => x >= 1 && Number.isFinite(x), 'a finite mean number of runs ≥ 1'))
        checks.push(need(`${p}.shape`, v.shape, (x) => x >= 0, 'a shape η ≥ 0 (1 geometric, 0 logarithmic, "Infinity" Poisson)'))
        stack.push([v.event, `${p}.event`])
        break
      case 'Labeled':
        stack.push([v.event, `${p}.event`])
        break
    }
  }
  const bad = checks.find(E.isLeft)
  return bad === undefined ? E.right(e) : E.left(bad.left)
}

/** A DecodeFailure for a value nested deeper than `MAX_JSON_DEPTH`, naming where, if it is. */
const checkDepth = (u: unknown, path: string): E.Either<DpError, void> => {
  const deep = findTooDeep(u, MAX_JSON_DEPTH, path)
  return deep === undefined ? E.right(undefined) : E.left(decodeFailure(deep.path, '…', tooDeepMessage(deep)))
}

const decodeEventWithin = (u: unknown, path: string): E.Either<DpError, PrivacyEvent> =>
  pipe(
    precheckEvent(u, path),
    E.chain(() => pipe(EventCodec.decode(u), E.mapLeft((errs) => firstDecodeError(errs, path)))),
    // σ = 0, q = 0, RR with ε = 0 or k = 1 …: read as the NonPrivate / NoOp they are (./degenerate.ts).
    E.chain((ev) => validateEvent(withoutDegenerate(ev), path)),
  )

/**
 * Decodes and validates an event from parsed JSON. A value nested deeper than `MAX_JSON_DEPTH`
 * JSON levels, or an event tree deeper than `MAX_EVENT_DEPTH` events, is refused with its path.
 */
export const decodeEvent = (u: unknown, path = '$'): E.Either<DpError, PrivacyEvent> =>
  pipe(
    checkDepth(u, path),
    E.chain(() => decodeEventWithin(u, path)),
  )

const decodeSpecWithin = (u: unknown, path: string): E.Either<DpError, Spec> => {
  if (!isRecord(u)) return E.left(decodeFailure(path, u, 'expected a spec object with "schemaVersion" and "event"'))
  if (u['schemaVersion'] !== SCHEMA_VERSION)
    return E.left(decodeFailure(`${path}.schemaVersion`, u['schemaVersion'], `expected schemaVersion ${SCHEMA_VERSION}`))
  return pipe(
    decodeEventWithin(u['event'], `${path}.event`),
    E.chain(() => pipe(SpecCodec.decode(u), E.mapLeft((errs) => firstDecodeError(errs, path)))),
    E.map((s) => s as Spec),
  )
}

/** Decodes and validates a spec document (the `event` field is checked as an event tree). */
export const decodeSpec = (u: unknown, path = '$'): E.Either<DpError, Spec> =>
  pipe(
    checkDepth(u, path),
    E.chain(() => decodeSpecWithin(u, path)),
  )

/** A spec file holds one spec or an array of specs. */
export const decodeSpecs = (u: unknown): E.Either<DpError, ReadonlyArray<Spec>> =>
  pipe(
    checkDepth(u, '$'),
    E.chain(() =>
      Array.isArray(u)
        ? pipe(
            u.map((s, i) => decodeSpecWithin(s, `$[${i}]`)),
            E.sequenceArray,
          )
        : pipe(decodeSpecWithin(u, '$'), E.map((s) => [s])),
    ),
  )

/** Encodes an event for JSON (non-finite numbers as explicit strings). */
export const encodeEvent = (e: PrivacyEvent): unknown => EventCodec.encode(e)
