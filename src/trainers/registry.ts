/**
 * The built-in trainers: by name with their own configuration types (`TRAINERS`, for code that
 * knows which trainer it holds), and as a plain list of erased trainers (`TRAINER_LIST`, for the CLI
 * and anything that picks a trainer by a name it is given). No cast: each entry keeps its own type,
 * and `erase` hides it where a common type is needed.
 *
 * @module
 */
import { cdpLda, cdpLdaPlus } from './cdp.js'
import { cgs } from './cgs.js'
import { type AnyTrainer, erase } from './erase.js'
import { hdpLda } from './hdp.js'
import { lpLda } from './lp/lp-lda.js'
import { olpLda } from './olp/olp-lda.js'
import { subLda } from './sub.js'
import { spectralLdaTrainer } from './spectral/trainer.js'
import { sviLda, sviLdaWithoutReplacement } from './svi/trainer.js'
import type { LdaTrainer, TrainerName } from './trainer.js'

export const TRAINERS: Readonly<Record<TrainerName, LdaTrainer>> = {
  cgs,
  'hdp-lda': hdpLda,
  'cdp-lda': cdpLda,
  'cdp-lda+': cdpLdaPlus,
  'sub-lda': subLda,
  'lp-lda': lpLda,
  'olp-lda': olpLda,
  'svi-lda': sviLda,
  'svi-lda-wor': sviLdaWithoutReplacement,
  spectral: spectralLdaTrainer,
}

/** Every built-in trainer, erased, in the order of `TRAINER_NAMES`. */
export const TRAINER_LIST: ReadonlyArray<AnyTrainer> = [
  erase(cgs),
  erase(hdpLda),
  erase(cdpLda),
  erase(cdpLdaPlus),
  erase(subLda),
  erase(lpLda),
  erase(olpLda),
  erase(sviLda),
  erase(sviLdaWithoutReplacement),
  erase(spectralLdaTrainer),
]

export const TRAINER_NAMES: ReadonlyArray<TrainerName> = ['cgs', 'hdp-lda', 'cdp-lda', 'cdp-lda+', 'sub-lda', 'lp-lda', 'olp-lda', 'svi-lda', 'svi-lda-wor', 'spectral']

export const isTrainerName = (s: string): s is TrainerName => (TRAINER_NAMES as ReadonlyArray<string>).includes(s)

/** The built-in trainer of that name, erased. */
export const trainerNamed = (name: string): AnyTrainer | undefined => TRAINER_LIST.find((t) => t.name === name)
