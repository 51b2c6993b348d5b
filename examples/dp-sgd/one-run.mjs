// A one-run audit of the DP-SGD plug-in (Steinke, Nasr & Jagielski 2023) through dpaudit's generic
// trainer one-run audit, `auditTrainerOneRun` of dpaudit/attacks — the same game as the many-run
// trainer audit of ./trainer-audit.json, whose corpus and configuration it reads:
//   npm run build && node examples/dp-sgd/one-run.mjs [canaries]
//
// m canary e-mails, each one word no other e-mail contains (a "Dirac canary": its clipped gradient
// lands on its own coordinate alone), labelled spam, each included with probability ½; ONE
// white-box training run; a canary's score is the smallest entry the step releases took on its
// word (`word-release-min`: a spam canary in the lot lowers the gradient sum there), so an included
// canary scores lower (`lower-in`). The claim is the accountant's ε for the plug-in's plan
// (`accounted`), under add/remove one e-mail, the relation it protects.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import { auditTrainerOneRun, decodeTrainerAuditFile } from 'dpaudit/attacks'

const file = decodeTrainerAuditFile(JSON.parse(readFileSync(new URL('./trainer-audit.json', import.meta.url), 'utf8')))
if (E.isLeft(file)) throw new Error(file.left.message)
const { config, corpus } = file.right.game

/** The one-run audit of `trainer` (the plug-in or its broken variant) with `canaries` canaries. */
export const oneRunAudit = ({ trainer, canaries = 1000, guesses = canaries, delta = 1e-5, seed = 'dp-sgd-one-run' }) => {
  const r = auditTrainerOneRun({
    trainer: trainer.name,
    trainerOverride: trainer,
    config,
    corpus,
    canaries,
    canaryLength: 1,
    canaryLabel: 'spam',
    guesses,
    view: 'white-box',
    statistic: 'word-release-min',
    orientation: 'lower-in',
    claim: { accounted: true, delta },
    seed,
  })
  if (E.isLeft(r)) throw new Error(r.left.message)
  return r.right
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const m = Number(process.argv[2] ?? 1000)
  for (const path of ['../dp-sgd-logreg.mjs', '../dp-sgd-logreg-broken.mjs']) {
    const { trainer } = await import(path)
    const r = oneRunAudit({ trainer, canaries: m })
    console.log(`${trainer.name}: ε_LB = ${r.epsilonLowerBound.toFixed(3)} (${r.correct}/${r.guesses} correct), accounted ε = ${r.claim.epsilon.toFixed(3)}: ${r.verdict}`)
  }
}
