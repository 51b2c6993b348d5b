// DP-SGD logistic regression on bag-of-words features, a trainer plug-in written only against
// dpaudit's public API (docs/plugins.md walks through it). Spam filtering on SpamAssassin:
//   npm run build && npx dpaudit train ./examples/dp-sgd-logreg.mjs --corpus spam --seed 1 --out dp-sgd.json
// The algorithm, its privacy event and its assumptions: ./dp-sgd/trainer.mjs and ./dp-sgd/step.mjs.
import { makeDpSgdTrainer } from './dp-sgd/trainer.mjs'

export const trainer = makeDpSgdTrainer({ name: 'dp-sgd-logreg', clipping: true })
export default trainer
