// The canary game of the BROKEN DP-SGD (clipping off), tested against the claim the plug-in makes:
//   npm run build && npx dpaudit audit examples/dp-sgd/canary-audit-broken.mjs --trials 20000 --seed dp-sgd
// exits 3 (violation): its ε lower bound is above the accounted ε it declares.
import { trainer } from '../dp-sgd-logreg.mjs'
import { trainer as broken } from '../dp-sgd-logreg-broken.mjs'
import { accountedEpsilon, AUDIT_CONFIG, auditCorpus, canaryMechanism } from './audit.mjs'

const config = { ...trainer.defaults, ...AUDIT_CONFIG }
export const name = 'dp-sgd-logreg-broken canary game'
export const mechanism = canaryMechanism(broken, auditCorpus(), config)
export const pairs = [{ input: { canary: false }, neighbour: { canary: true }, label: 'without / with one canary e-mail' }]
export const claim = { epsilon: accountedEpsilon(broken, config, 1e-5), delta: 1e-5 }
