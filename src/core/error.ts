/**
 * Errors as values. Every public boundary returns `Either<DpError, A>`; only the CLI turns an
 * error into text and an exit code. Each error names where it happened: a JSON path for input
 * errors, a path into the event tree for accounting errors.
 *
 * @module
 */

/** A path into a JSON document or an event tree, e.g. `$.event.events[2].q`. */
export type Path = string

/** A parameter outside its domain (ε ≤ 0, δ ∉ (0,1), NaN, …). */
export interface InvalidParameter {
  readonly _tag: 'InvalidParameter'
  readonly path: Path
  readonly value: unknown
  readonly message: string
}

/** An input that could not be decoded (not JSON, wrong shape, unknown tag, nested too deep). */
export interface DecodeFailure {
  readonly _tag: 'DecodeFailure'
  readonly path: Path
  readonly value: unknown
  readonly message: string
}

/** An accountant met an event it cannot account for; `path` points at the offending sub-event. */
export interface UnsupportedEvent {
  readonly _tag: 'UnsupportedEvent'
  readonly path: Path
  readonly accountant: string
  readonly eventTag: string
  readonly message: string
}

/** Events whose neighbouring relations disagree and have no sound conversion. */
export interface IncompatibleNeighbouring {
  readonly _tag: 'IncompatibleNeighbouring'
  readonly path: Path
  readonly message: string
}

/** A numerical procedure failed (no bracket, overflow that cannot be bounded soundly). */
export interface NumericFailure {
  readonly _tag: 'NumericFailure'
  readonly path: Path
  readonly message: string
}

/** A calibration target that no parameter value in the search range can meet. */
export interface Infeasible {
  readonly _tag: 'Infeasible'
  readonly path: Path
  readonly message: string
}

export type DpError =
  | InvalidParameter
  | DecodeFailure
  | UnsupportedEvent
  | IncompatibleNeighbouring
  | NumericFailure
  | Infeasible

export const invalidParameter = (path: Path, value: unknown, message: string): DpError => ({
  _tag: 'InvalidParameter',
  path,
  value,
  message,
})

export const decodeFailure = (path: Path, value: unknown, message: string): DpError => ({
  _tag: 'DecodeFailure',
  path,
  value,
  message,
})

export const unsupportedEvent = (
  path: Path,
  accountant: string,
  eventTag: string,
  message: string,
): DpError => ({ _tag: 'UnsupportedEvent', path, accountant, eventTag, message })

export const incompatibleNeighbouring = (path: Path, message: string): DpError => ({
  _tag: 'IncompatibleNeighbouring',
  path,
  message,
})

export const numericFailure = (path: Path, message: string): DpError => ({
  _tag: 'NumericFailure',
  path,
  message,
})

export const infeasible = (path: Path, message: string): DpError => ({ _tag: 'Infeasible', path, message })

/** Renders a value for an error message without ever printing `null` for a non-finite number. */
export const showValue = (value: unknown): string => {
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value)
  if (value === undefined) return 'undefined'
  try {
    const s = JSON.stringify(value)
    return s.length > 80 ? `${s.slice(0, 77)}...` : s
  } catch {
    return String(value)
  }
}

/** One human line for an error: `<path>: <message> (got <value>)`. */
export const formatError = (e: DpError): string => {
  switch (e._tag) {
    case 'InvalidParameter':
    case 'DecodeFailure':
      return `${e.path}: ${e.message} (got ${showValue(e.value)})`
    case 'UnsupportedEvent':
      return `${e.path}: the ${e.accountant} accountant cannot handle ${e.eventTag}: ${e.message}`
    case 'IncompatibleNeighbouring':
    case 'NumericFailure':
    case 'Infeasible':
      return `${e.path}: ${e.message}`
  }
}
