// A deliberately BROKEN DP-SGD: ./dp-sgd-logreg.mjs with per-example clipping switched off. It declares
// the same plan (sensitivity C per step) but an e-mail can move the gradient sum by up to 1 > C, so
// its accounted ε is wrong. The neighbour-differential test and the audits catch it
// (test/examples/dp-sgd.test.ts; docs/plugins.md § Auditing).
import { makeDpSgdTrainer } from './dp-sgd/trainer.mjs'

export const trainer = makeDpSgdTrainer({ name: 'dp-sgd-logreg-broken', clipping: false })
export default trainer
