/**
 * `dpaudit evaluate model.json --corpus brown|spam|<path> [--vocabulary V] [--json]`: the held-out
 * perplexity (document completion, Wallach et al. 2009) of a saved model on a corpus's test documents; the model's φ is
 * re-indexed onto the corpus vocabulary (unseen words get probability 0) when they differ.
 *
 * @module
 */
import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { formatError } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { loadDataset } from '../../trainers/corpus/load.js'
import { heldOutPerplexity } from '../../trainers/eval/perplexity.js'
import { readModelFile, reindexPhi } from '../../trainers/model-file.js'
import { type CommandResult, EXIT } from './result.js'
import { renderStatement } from './train.js'

export interface EvaluateArgs {
  readonly model: string | undefined
  readonly corpus: string | undefined
  readonly vocabulary?: string | undefined
  readonly json: boolean
}

export const EVALUATE_USAGE = 'usage: dpaudit evaluate <model.json> --corpus brown|spam|<path> [--vocabulary V] [--json]'

export const runEvaluate = (args: EvaluateArgs): CommandResult => {
  if (args.model === undefined || args.corpus === undefined) return { code: EXIT.input, stderr: EVALUATE_USAGE }
  const m = readModelFile(args.model)
  if (E.isLeft(m)) return { code: EXIT.input, stderr: formatError(m.left) }
  let V: number | undefined
  if (args.vocabulary !== undefined) {
    V = Number(args.vocabulary)
    if (!(Number.isInteger(V) && V >= 1)) return { code: EXIT.input, stderr: `--vocabulary: expected a positive integer (got ${args.vocabulary})` }
  }
  const ds = loadDataset(args.corpus, V === undefined ? {} : { vocabularySize: V })
  if (E.isLeft(ds)) {
    // the loader's errors already name --corpus as their path: said once
    const msg = formatError(ds.left)
    return { code: EXIT.input, stderr: msg.startsWith('--corpus') ? msg : `--corpus: ${msg}` }
  }
  const vocab = ds.right.train.vocab
  const same = vocab.length === m.right.vocab.length && vocab.every((w, i) => w === m.right.vocab[i])
  const phi = same ? m.right.phi : reindexPhi(m.right.phi, m.right.topics, m.right.vocab, vocab)
  if (!same) {
    // a topic with no mass on the corpus's words cannot score it: that is a vocabulary mismatch,
    // said as such, not as a malformed φ
    const modelWords = new Set(m.right.vocab)
    const shared = vocab.filter((w) => modelWords.has(w)).length
    const V = vocab.length
    const empty = Array.from({ length: m.right.topics }, (_, k) => k).filter((k) => phi.subarray(k * V, (k + 1) * V).every((x) => x === 0))
    if (shared === 0 || empty.length > 0)
      return {
        code: EXIT.input,
        stderr: `${args.model} on --corpus ${args.corpus}: vocabulary mismatch: the model's ${m.right.vocab.length} words and the corpus's ${V} share ${shared === 0 ? 'no word' : `${shared} words, and topic ${empty[0]} has no weight on any of them`}; evaluate on a corpus read with the model's vocabulary`,
      }
  }
  const p = heldOutPerplexity(phi, m.right.topics, ds.right.testObserved, ds.right.testHeldOut)
  if (E.isLeft(p)) return { code: EXIT.input, stderr: `${args.model} on --corpus ${args.corpus}: ${formatError(p.left)}` }
  const priv = m.right.file.privacy
  if (args.json)
    return {
      code: EXIT.ok,
      stdout: stringifyJson({ schemaVersion: 1, tool: 'dpaudit evaluate', model: args.model, trainer: m.right.trainer, corpus: args.corpus, vocabularyMatched: same, ...p.right, privacy: priv }, 2),
    }
  return {
    code: EXIT.ok,
    stdout: [
      `${args.model} (${m.right.trainer}, K = ${m.right.topics}) on ${args.corpus}${same ? '' : ' (vocabulary re-indexed)'}:`,
      `held-out perplexity ${p.right.perplexity.toFixed(1)} over ${p.right.heldOutTokens} tokens in ${p.right.documents} test documents`,
      renderStatement(priv),
    ].join('\n'),
  }
}

export const runEvaluateCli = (argv: ReadonlyArray<string>): CommandResult => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { corpus: { type: 'string' }, vocabulary: { type: 'string' }, json: { type: 'boolean', default: false } },
  })
  if (positionals.length !== 1) return { code: EXIT.input, stderr: EVALUATE_USAGE }
  return runEvaluate({ model: positionals[0], corpus: values.corpus, vocabulary: values.vocabulary, json: values.json })
}
