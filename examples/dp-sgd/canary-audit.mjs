// The canary distinguishing game of the DP-SGD plug-in as a `dpaudit audit` module (./audit.mjs):
//   npm run build && npx dpaudit audit examples/dp-sgd/canary-audit.mjs --trials 20000 --seed dp-sgd
// The claim is the plug-in's accounted ε at δ = 1e-5 for the audited configuration.
import { trainer } from '../dp-sgd-logreg.mjs'
import { accountedEpsilon, AUDIT_CONFIG, auditCorpus, canaryMechanism } from './audit.mjs'

const config = { ...trainer.defaults, ...AUDIT_CONFIG }
export const name = 'dp-sgd-logreg canary game'
export const mechanism = canaryMechanism(trainer, auditCorpus(), config)
export const pairs = [{ input: { canary: false }, neighbour: { canary: true }, label: 'without / with one canary e-mail' }]
export const claim = { epsilon: accountedEpsilon(trainer, config, 1e-5), delta: 1e-5 }
