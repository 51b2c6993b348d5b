/**
 * What a mechanism under audit may return, and how outputs are recognised. The first output of a
 * run fixes its shape; every later output must have the same shape (same kind, same length), or
 * the run stops with a `ShapeChanged` failure at that trial.
 *
 * - a number (NaN is a failure; ±∞ are allowed),
 * - a boolean (stored as 0/1),
 * - a string: a category,
 * - a vector: an array or typed array of finite numbers or booleans, of fixed length.
 *
 * @module
 */
import type { Rng } from '../core/rng.js'

/** One output of a mechanism: a number, a boolean, a category (string) or a fixed-length vector. */
export type MechanismOutput = number | boolean | string | ArrayLike<number> | ReadonlyArray<boolean>

/**
 * The auditor's black box: the mechanism under audit seen only through its outputs, a function of
 * the input and an injected random source. It must take all its randomness from `rng` and keep no
 * state between calls (each trial gets a fresh stream). Named apart from the privacy event
 * (dpaudit/mechanisms `PrivacyEvent`), the gate's `Measurement` and a zoo entry.
 */
export type BlackBox<I> = (input: I, rng: Rng) => MechanismOutput

export type OutputKind = 'number' | 'boolean' | 'category' | 'vector'

/** The shape of a run's outputs; `dim` is the vector length (1 for the other kinds). */
export interface OutputShape {
  readonly kind: OutputKind
  readonly dim: number
}

/** Why a trial's output was rejected, or that the mechanism threw. */
export type TrialFailureTag = 'MechanismThrew' | 'NonFiniteOutput' | 'ShapeChanged' | 'InvalidOutput'

export interface TrialFailure {
  readonly _tag: TrialFailureTag
  /** Index of the failing trial within its (phase, pair, side) stream. */
  readonly trial: number
  readonly message: string
}

export const showShape = (s: OutputShape): string => (s.kind === 'vector' ? `vector of length ${s.dim}` : s.kind)

export const sameShape = (a: OutputShape, b: OutputShape): boolean => a.kind === b.kind && a.dim === b.dim

/** What a value is, in a few words, for a message ("a string", "an array of length 3", "null"). */
export const describeOutput = (o: unknown): string => {
  if (o === null) return 'null'
  if (Array.isArray(o)) return `an array of length ${o.length}`
  if (ArrayBuffer.isView(o)) return `a ${o.constructor.name}`
  return typeof o === 'object' ? 'an object' : `a ${typeof o}`
}

/** The shape of one output, or a message saying why it is not a valid output. */
export const classify = (o: unknown): OutputShape | string => {
  switch (typeof o) {
    case 'number':
      return { kind: 'number', dim: 1 }
    case 'boolean':
      return { kind: 'boolean', dim: 1 }
    case 'string':
      return { kind: 'category', dim: 1 }
    default:
      if (Array.isArray(o) || (ArrayBuffer.isView(o) && !(o instanceof DataView))) {
        const n = (o as ArrayLike<unknown>).length
        return n > 0 ? { kind: 'vector', dim: n } : 'an empty vector is not an output (return at least one number)'
      }
      return `unsupported output: ${describeOutput(o)} (return a number, a boolean, a string category, or a fixed-length array of numbers)`
  }
}

/** The failure for an output whose shape differs from the run's shape. */
export const shapeFailure = (trial: number, expected: OutputShape, got: unknown): TrialFailure => {
  const c = classify(got)
  const what = typeof c === 'string' ? c : showShape(c)
  return {
    _tag: typeof c === 'string' ? 'InvalidOutput' : 'ShapeChanged',
    trial,
    message: `trial ${trial} returned ${what}, but earlier outputs were a ${showShape(expected)}; outputs must keep one shape`,
  }
}

export const errorMessage = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))
