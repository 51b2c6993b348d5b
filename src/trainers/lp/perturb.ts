/**
 * LP-LDA, the user side (Zhao et al., arXiv:2010.04391, §V-A, Steps 1–3): each user encodes their own
 * document as a word-presence bit vector over the public vocabulary (Step 1), keeps every bit with
 * probability 1 − f and otherwise replaces it by a fair coin — 1 with probability f/2, 0 with f/2
 * (Step 2) — and sends the noisy vector (Step 3). Nothing else leaves the user: `LocalReports` holds
 * only the perturbed bits, and the server side (./estimate.ts) takes nothing else.
 *
 * The rule is bitwise randomized response: a bit is flipped exactly when the coin is drawn and
 * disagrees with it, so independently with probability f/2 (`flipProbability(f)`). The output is
 * the true vector XOR a flip mask whose bits are i.i.d. Bernoulli(f/2).
 *
 * Exact Bernoulli(f/2), 32 bits at a time (bit-sliced comparison). f is a double, so p = f/2 is a
 * dyadic rational with a finite binary expansion 0.p₁p₂…p_L. Lane j of the mask is [U_j < p] for a
 * uniform U_j whose i-th binary digit is bit j of the i-th word drawn: while a lane's digits equal
 * p's, it is undecided; at digit i, where p_i = 1 an undecided lane with U-digit 0 is decided
 * U < p (bit 1), and where p_i = 0 an undecided lane with U-digit 1 is decided U > p (bit 0).
 * After p's last digit an undecided lane has U ≥ p (bit 0). So every lane is exactly
 * Bernoulli(p) given ideal words, the lanes are independent (disjoint bits of the words), and no
 * floating-point comparison is made. The loop stops as soon as all 32 lanes are decided: about
 * log₂32 + 2 words per 32 bits for a generic p (2 words for f = 1/2), no allocation.
 *
 * @module
 */
import { invalidParameter, type DpError } from '../../core/error.js'
import type { WordStream } from '../../core/words.js'
import * as E from 'fp-ts/lib/Either.js'
import { LDA_DP } from '../papers.js'

/** The probability that randomized response flips a bit: the coin is drawn (f) and disagrees (1/2). */
export const flipProbability = (f: number): number => f / 2

/** f ∈ (0, 1): f = 0 releases the document, f = 1 releases pure noise (and N̂ divides by 1 − f). */
export const checkFlip = (f: number, field = 'flip'): E.Either<DpError, number> =>
  f > 0 && f < 1 ? E.right(f) : E.left(invalidParameter(field, f, `the flip parameter f of LP-LDA must be in (0, 1) (${LDA_DP}, §V-A Step 2: keep a bit with probability 1 − f)`))

/** What every user sends: M noisy word-presence vectors over V words, packed 32 bits a word. */
export interface LocalReports {
  /** Vocabulary size: bits per report. */
  readonly V: number
  /** Number of reports (users). */
  readonly M: number
  /** 32-bit words per report, ⌈V/32⌉. */
  readonly stride: number
  /** Report m's bit t is bit (t & 31) of bits[m·stride + (t >>> 5)]; the bits beyond V are 0. */
  readonly bits: Uint32Array
}

export const strideOf = (V: number): number => (V + 31) >>> 5

/** The mask of the valid bits in a report's last word. */
export const lastWordMask = (V: number): number => ((V & 31) === 0 ? 0xffffffff : (1 << (V & 31)) - 1) >>> 0

/** The binary digits of p ∈ (0, 1), most significant first (exact: doubling and subtracting 1 are exact in doubles). */
export const binaryDigits = (p: number): Uint8Array => {
  if (!(p > 0 && p < 1)) throw new RangeError(`binaryDigits needs p in (0, 1), got ${p}`)
  const digits: number[] = []
  let x = p
  while (x > 0) {
    x *= 2
    if (x >= 1) {
      digits.push(1)
      x -= 1
    } else digits.push(0)
  }
  return Uint8Array.from(digits)
}

/** 32 independent exact Bernoulli(p) bits, p given by its binary digits (see the module comment). */
export const bernoulliWord = (digits: Uint8Array, words: WordStream): number => {
  let undecided = -1
  let ones = 0
  for (let i = 0; i < digits.length && undecided !== 0; i++) {
    const r = words.nextUint32()
    if (digits[i] === 1) {
      ones |= undecided & ~r
      undecided &= r
    } else undecided &= ~r
  }
  return ones >>> 0
}

/** Step 1: the presence vector of one document (its word ids) written into `out` (stride words, cleared first). */
export const encodePresence = (tokens: ArrayLike<number>, out: Uint32Array): Uint32Array => {
  out.fill(0)
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as number
    out[t >>> 5] = ((out[t >>> 5] as number) | (1 << (t & 31))) >>> 0
  }
  return out
}

/**
 * Step 2 for one user: `presence` (stride words) XOR an exact Bernoulli(f/2) mask, written into
 * `out` (stride words). The bits beyond V stay 0.
 */
export const perturbPresence = (presence: Uint32Array, V: number, digits: Uint8Array, words: WordStream, out: Uint32Array): Uint32Array => {
  const stride = strideOf(V)
  for (let w = 0; w < stride; w++) out[w] = ((presence[w] as number) ^ bernoulliWord(digits, words)) >>> 0
  out[stride - 1] = ((out[stride - 1] as number) & lastWordMask(V)) >>> 0
  return out
}

/** The users' documents, one per user: document d is tokens[docStart[d] .. docStart[d+1]). */
export interface UserDocuments {
  readonly V: number
  readonly docStart: Int32Array
  readonly tokens: Int32Array
}

/**
 * Steps 1–3 for every user: each document is encoded and perturbed once, by its own user, into
 * its slot of the reports. With `shuffle` the reports arrive in a uniformly random order (a
 * shuffler's permutation, drawn from the same words), so a report's slot says nothing about whose
 * it is.
 */
export const perturbDocuments = (docs: UserDocuments, f: number, words: WordStream, shuffle = false): LocalReports => {
  const { V, docStart, tokens } = docs
  const M = docStart.length - 1
  const stride = strideOf(V)
  const digits = binaryDigits(flipProbability(f))
  const bits = new Uint32Array(M * stride)
  const presence = new Uint32Array(stride)
  const slot = Int32Array.from({ length: M }, (_, i) => i)
  if (shuffle)
    for (let i = M - 1; i > 0; i--) {
      const j = words.uniformBelow(i + 1)
      const s = slot[i] as number
      slot[i] = slot[j] as number
      slot[j] = s
    }
  for (let d = 0; d < M; d++) {
    encodePresence(tokens.subarray(docStart[d] as number, docStart[d + 1] as number), presence)
    const at = (slot[d] as number) * stride
    perturbPresence(presence, V, digits, words, bits.subarray(at, at + stride))
  }
  return { V, M, stride, bits }
}
