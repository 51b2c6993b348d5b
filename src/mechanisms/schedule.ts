/**
 * The schedule of a run: the releases a trainer declares before it runs — those made once before the
 * iterations, those of the first iteration where they differ, those of every iteration — each as the
 * label and event of the measurement `fit` will run through the release gate (./measurement.ts,
 * ./gate.ts). The trainer's plan is derived from it (`schedulePlan`), never written beside `fit`; the
 * gate given the same schedule checks every release against it (`ScheduleCheck`), so a run that
 * releases something its plan does not cover is recorded as not a private release. Plan ≡ ledger
 * holds by construction; the trainers' property test keeps guarding it.
 *
 * @module
 */
import { children, compose, labeled, type PrivacyEvent, selfCompose } from './event.js'

/** A release declared before the run: the label and event of the measurement `fit` runs (its function comes in `fit`). */
export interface Declared {
  readonly label: string
  readonly event: PrivacyEvent
  /** Released this many times in a row (post-processing sweeps); default 1. */
  readonly times?: number
}

export interface Schedule {
  /** Released once, before the iterations (the users' reports, a prior, a one-shot pipeline). */
  readonly before?: ReadonlyArray<Declared>
  /** The first iteration's releases, where they differ from the others'. */
  readonly first?: ReadonlyArray<Declared>
  /** Every iteration's releases (from the second on when `first` is given). */
  readonly each?: ReadonlyArray<Declared>
  /** How many iterations run `first`/`each`. */
  readonly iterations: number
}

/** The declared part of a measurement (its label and event). */
export const declared = (m: { readonly label: string; readonly event: PrivacyEvent }, times?: number): Declared =>
  times === undefined ? { label: m.label, event: m.event } : { label: m.label, event: m.event, times }

const item = (d: Declared): PrivacyEvent => (d.times === undefined ? labeled(d.label, d.event) : selfCompose(labeled(d.label, d.event), d.times))
const iteration = (ds: ReadonlyArray<Declared>): PrivacyEvent => (ds.length === 1 ? item(ds[0] as Declared) : compose(ds.map(item)))

/**
 * The plan of a schedule: the releases before, the first iteration as one composition, the others as
 * one iteration self-composed. A schedule of repeated iterations alone is that self-composition.
 */
export const schedulePlan = (s: Schedule): PrivacyEvent => {
  const first = s.first !== undefined && s.iterations >= 1 ? 1 : 0
  const body: PrivacyEvent[] = []
  if (first === 1) body.push(iteration(s.first as ReadonlyArray<Declared>))
  const rest = s.iterations - first
  if (rest > 0 && (s.each ?? []).length > 0) body.push(selfCompose(iteration(s.each as ReadonlyArray<Declared>), rest))
  const before = (s.before ?? []).map(item)
  if (before.length === 0 && first === 0 && body.length === 1) return body[0] as PrivacyEvent
  return compose([...before, ...body])
}

// -------------------------------------------------------------------------------------------
// ledger ≡ plan
// -------------------------------------------------------------------------------------------

/**
 * The canonical multiset of a composition: every maximal non-structural sub-event (a noise
 * leaf, a sampling wrapper with its inner event, NonPrivate) with its multiplicity; Labeled is
 * seen through; NoOp vanishes. Two events with the same atoms compose to the same guarantee
 * under every accountant (composition is commutative).
 */
export const compositionAtoms = (e: PrivacyEvent): ReadonlyMap<string, number> => {
  const out = new Map<string, number>()
  const walk = (v: PrivacyEvent, times: number): void => {
    switch (v._tag) {
      case 'NoOp':
        return
      case 'Labeled':
        return walk(v.event, times)
      case 'Compose':
        for (const c of v.events) walk(c, times)
        return
      case 'SelfCompose':
        return walk(v.event, times * v.count)
      case 'PoissonSample':
      case 'TruncatedPoissonSample':
      case 'SampleWithoutReplacement':
      case 'WithReplacementSample': {
        const key = JSON.stringify({ ...v, event: canonical(v.event) })
        out.set(key, (out.get(key) ?? 0) + times)
        return
      }
      default: {
        const key = JSON.stringify(v)
        out.set(key, (out.get(key) ?? 0) + times)
      }
    }
  }
  walk(e, 1)
  return out
}

const canonical = (e: PrivacyEvent): unknown => [...compositionAtoms(e).entries()].sort()

/** Whether two events compose the same atoms with the same multiplicities. */
export const sameComposition = (a: PrivacyEvent, b: PrivacyEvent): boolean => {
  const x = compositionAtoms(a)
  const y = compositionAtoms(b)
  if (x.size !== y.size) return false
  for (const [k, n] of x) if (y.get(k) !== n) return false
  return true
}

/** Number of leaves of an event tree, counting SelfCompose once (for size checks). */
export const leafCount = (e: PrivacyEvent): number => {
  const cs = children(e)
  return cs.length === 0 ? 1 : cs.reduce((s, c) => s + leafCount(c), 0)
}

/**
 * What is left of a schedule as a run releases it: each release must be covered by the atoms the plan
 * has not spent yet. A run may stop early (fewer releases than planned: the plan overstates, sound);
 * a release beyond the plan is a departure the gate records.
 */
export class ScheduleCheck {
  private readonly left: Map<string, number>
  constructor(schedule: Schedule) {
    this.left = new Map(compositionAtoms(schedulePlan(schedule)))
  }

  /** Spends the release's atoms; false (nothing spent) if the plan does not cover it. */
  spend(event: PrivacyEvent): boolean {
    const atoms = compositionAtoms(event)
    for (const [k, n] of atoms) if ((this.left.get(k) ?? 0) < n) return false
    for (const [k, n] of atoms) this.left.set(k, (this.left.get(k) as number) - n)
    return true
  }
}
