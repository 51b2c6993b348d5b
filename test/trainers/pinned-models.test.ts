// Every built-in trainer's model file, pinned byte for byte (issue 25): a refactor of the trainer
// surface (flags, config codecs, extra inputs, the plan derived from the schedule, runTrain) must
// leave what `dpaudit train` writes and prints unchanged. Each case runs twice on a small synthetic
// corpus (40 documents, K = 3, 2 iterations):
//  - on the stubbed secret source (a private release for the private trainers: model file and stdout);
//  - with --seed (not a private release; stdout is not pinned, it times the run).
// A run that is not a private release writes its trace: its wall-time fields, the only values that
// depend on the machine, are written as 0 before hashing, and so is the time on stdout.
// The temporary folder's name, in the corpus's name, is written as <root> in both.
// The digests live in pinned-models.json. A deliberate change of the output regenerates them with
//   PIN_MODELS=update npx vitest run test/trainers/pinned-models.test.ts
// and the commit says why the bytes moved; PIN_MODELS_DUMP=DIR also writes each case's model file
// and stdout there, to diff what moved against a run of the previous commit.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runTrain } from '../../src/cli/commands/train.js'
import { TRAINER_NAMES } from '../../src/trainers/registry.js'
import { stubbedSecureRng, syntheticTextCorpus, vocabularyFileText, writeJsonLines } from '../../src/testing/index.js'

const PINS_FILE = join(import.meta.dirname, 'pinned-models.json')
const UPDATE = process.env['PIN_MODELS'] === 'update'
const DUMP = process.env['PIN_MODELS_DUMP']
// the dump folder is made when missing (a missing one failed every case with ENOENT)
if (DUMP !== undefined) mkdirSync(DUMP, { recursive: true })
const dump = (name: string, text: string): void => {
  if (DUMP !== undefined) writeFileSync(join(DUMP, name.replace(/[^a-z0-9+.-]+/gi, '_')), text)
}

const ROOT = mkdtempSync(join(tmpdir(), 'dpaudit-pins-'))
afterAll(() => rmSync(ROOT, { recursive: true, force: true }))

const { corpus, vocabulary } = syntheticTextCorpus()
const CORPUS = join(ROOT, 'corpus.jsonl')
writeJsonLines(CORPUS, corpus)
const VOCABULARY = join(ROOT, 'vocabulary.txt')
writeFileSync(VOCABULARY, vocabularyFileText(vocabulary))
const EVAL = join(ROOT, 'eval.jsonl')
writeJsonLines(EVAL, syntheticTextCorpus({ documents: 10, seed: 'public evaluation corpus' }).corpus)
const PRIOR = join(ROOT, 'prior.jsonl')
writeJsonLines(PRIOR, syntheticTextCorpus({ documents: 8, seed: 'public prior corpus' }).corpus)

type Flags = Readonly<Record<string, string | boolean | ReadonlyArray<string>>>

/** Every built-in trainer, and the flags that take a different path through it. */
const CASES: ReadonlyArray<readonly [name: string, trainer: string, flags: Flags]> = [
  ['cgs', 'cgs', {}],
  ['hdp-lda', 'hdp-lda', {}],
  ['hdp-lda accumulate', 'hdp-lda', { noise: 'accumulate', 'epsilon-l': '2', clip: '20' }],
  ['hdp-lda vocabulary dp', 'hdp-lda', { vocabulary: 'dp', 'vocabulary-size': '15' }],
  ['cdp-lda', 'cdp-lda', { epsilon: '3' }],
  ['cdp-lda+', 'cdp-lda+', {}],
  ['sub-lda', 'sub-lda', {}],
  ['sub-lda adaptive', 'sub-lda', { 'adaptive-q': '0.5', 'adaptive-eta': '0.8', gamma: '0.3' }],
  ['lp-lda', 'lp-lda', {}],
  ['lp-lda shuffler', 'lp-lda', { shuffler: true, flip: '0.3' }],
  ['olp-lda', 'olp-lda', {}],
  ['olp-lda prior fraction', 'olp-lda', { prior: '0.2', 'prior-sd': '0.5', batch: '10' }],
  ['olp-lda prior path', 'olp-lda', { prior: PRIOR, omega: '0.7', lambda: '0.5' }],
  ['svi-lda', 'svi-lda', { documents: '40', tokens: '1200', 'batch-size': '10' }],
  ['svi-lda multiplier', 'svi-lda', { documents: '40', noise: 'multiplier', multiplier: '1.5', 'clip-norm': '5' }],
  ['svi-lda-wor', 'svi-lda-wor', { 'batch-size': '10', truncation: '40', 'delta-reading': 'per-iteration' }],
  ['spectral', 'spectral', { delta: ['1e-5', '1e-6'] }],
  ['spectral config', 'spectral', { config: '1', epsilon: '50', topics: '2', oversampling: '3' }],
]

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex')

/** The trace's wall-time fields vary with the machine: written as 0 before hashing, nothing else is touched. */
const withoutTiming = (bytes: Buffer): string => String(bytes).replace(/("(?:elapsedMs|tokensPerSecond)": )[-0-9.e+]+/g, '$10')

/** The corpus is named by its path, which holds the temporary folder's random name: written as <root>. */
const atRoot = (text: string): string => text.split(ROOT).join('<root>')

const run = async (trainer: string, flags: Flags, mode: 'secure' | 'seeded'): Promise<{ code: number; model: string; stdout: string; stderr: string }> => {
  const out = join(ROOT, `${trainer}.json`)
  rmSync(out, { force: true })
  const r = await runTrain({
    trainer,
    values: { corpus: CORPUS, out, topics: '3', iterations: '2', vocabulary: VOCABULARY, 'eval-corpus': EVAL, ...(mode === 'seeded' ? { seed: '7' } : {}), ...flags },
    secureRng: () => stubbedSecureRng('pinned'),
    progress: () => undefined,
  })
  const model = existsSync(out) ? withoutTiming(readFileSync(out)) : ''
  return { code: r.code, model: atRoot(model), stdout: atRoot(r.stdout ?? '').replace(/trained in \S+ s \(\S+ M tokens\/s\)/, 'trained in 0 s'), stderr: r.stderr ?? '' }
}

const pins: Record<string, string> = existsSync(PINS_FILE) ? (JSON.parse(readFileSync(PINS_FILE, 'utf8')) as Record<string, string>) : {}
const measured: Record<string, string> = {}
afterAll(() => {
  if (UPDATE) writeFileSync(PINS_FILE, `${JSON.stringify(measured, null, 2)}\n`)
})

describe('every built-in trainer writes the pinned model file', () => {
  it('every built-in trainer has a case', () => {
    expect(TRAINER_NAMES.filter((n) => !CASES.some(([, t]) => t === n))).toEqual([])
  })
  for (const [name, trainer, flags] of CASES) {
    it(`${name}: stubbed secret source (model file and stdout)`, async () => {
      const r = await run(trainer, flags, 'secure')
      expect(r.code, r.stderr).toBe(0)
      measured[`${name} secure model`] = sha(r.model)
      dump(`${name} secure model.json`, r.model)
      dump(`${name} secure stdout.txt`, r.stdout)
      measured[`${name} secure stdout`] = sha(r.stdout)
      if (!UPDATE) {
        expect(sha(r.model), `${name}: model file bytes moved`).toBe(pins[`${name} secure model`])
        expect(sha(r.stdout), `${name}: stdout moved`).toBe(pins[`${name} secure stdout`])
      }
    })
    it(`${name}: --seed (model file, wall time zeroed)`, async () => {
      const r = await run(trainer, flags, 'seeded')
      expect(r.code, r.stderr).toBe(0)
      measured[`${name} seeded model`] = sha(r.model)
      dump(`${name} seeded model.json`, r.model)
      if (!UPDATE) expect(sha(r.model), `${name}: seeded model file bytes moved`).toBe(pins[`${name} seeded model`])
    })
  }
})
