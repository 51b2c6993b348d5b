/**
 * vitest setupFiles: every fast-check property of the suite draws from one fixed seed, so `npm test`
 * repeats exactly, on a developer's machine and on CI alike (a property that passed here cannot fail on
 * CI because CI drew other cases: ac27e07's dp-vocabulary failure was such a draw). To explore further,
 * run with FC_SEED=<integer> (a chosen seed) or FC_SEED=random (a fresh one each property, printed by
 * fast-check on failure, as before); a property that sets its own `seed` keeps it.
 */
import fc from 'fast-check'

/** The suite's default seed (any fixed integer; changing it is a deliberate act). */
export const SUITE_SEED = 20_261_128

const requested = process.env.FC_SEED
if (requested !== 'random') {
  const seed = requested === undefined || requested === '' ? SUITE_SEED : Number(requested)
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED: expected an integer or 'random', got '${requested}'`)
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed })
}
