// The seed-replay attack of issue 9 against `dpaudit train` model files: regenerate the noise from
// a seed, invert φ to the released counts, subtract. It must recover the training counts of a
// --seed run (which is labelled not private) and fail against the default, secret run.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { seeded } from '../../src/core/rng.js'
import { WordStream, wordsFromRng } from '../../src/core/words.js'
import { discreteLaplaceSampler } from '../../src/mechanisms/noise/index.js'
import { loadDataset } from '../../src/trainers/corpus/load.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-replay-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const corpusDir = join(dir, 'uci')
mkdirSync(corpusDir)
const V = 12
const D = 60
const entries: string[] = []
for (let d = 1; d <= D; d++) for (let w = 1; w <= V; w++) entries.push(`${d} ${w} ${5 + ((d * w) % 6)}`)
writeFileSync(join(corpusDir, 'docword.txt'), `${D}\n${V}\n${entries.length}\n${entries.join('\n')}\n`)
writeFileSync(join(corpusDir, 'vocab.txt'), `${Array.from({ length: V }, (_, i) => `word${i}`).join('\n')}\n`)

const K = 2
const T = 3
const EPS_L = 0.5
const BETA = 0.01
const data = loadDataset(corpusDir)
if (E.isLeft(data)) throw new Error('corpus')
const train = data.right.train
const N = train.tokens.length
const wordCount = new Array<number>(V).fill(0)
for (const w of train.tokens) wordCount[w] = (wordCount[w] as number) + 1

interface File {
  readonly phi: number[][]
  readonly release: { readonly private: boolean; readonly notice: string }
}

const trainFile = (name: string, extra: ReadonlyArray<string>): { file: File; text: string; stdout: string } => {
  const out = join(dir, name)
  const r = runTrainCli(['hdp-lda', '--corpus', corpusDir, '--topics', String(K), '--iterations', String(T), '--epsilon-l', String(EPS_L), '--clip', '1000', '--beta', String(BETA), '--out', out, ...extra])
  expect(r.code, r.stderr).toBe(0)
  const text = readFileSync(out, 'utf8')
  return { file: JSON.parse(text) as File, text, stdout: r.stdout ?? '' }
}

/** The last iteration's noise as the run drew it, if its words came from `seed` (the run's consumption is data-independent). */
const replayNoise = (seed: string): Float64Array => {
  const w = new WordStream(wordsFromRng(seeded(seed)))
  for (let i = 0; i < N; i++) w.nextDouble() // initial topics
  const noise = discreteLaplaceSampler(2 / EPS_L)
  let eta = new Float64Array(V * K)
  for (let it = 1; it <= T; it++) {
    eta = noise.fill(w, new Float64Array(V * K))
    w.fillWords(new Uint32Array(N)) // the sweep's topic draws
  }
  return eta
}

/** φ_kw = (m_wk + β)/(M_k + Vβ) with m the released counts clipped at 0 (integers): find M_k, then m. */
const releasedCounts = (phi: number[][]): Float64Array => {
  const m = new Float64Array(V * K)
  for (let k = 0; k < K; k++) {
    const row = phi[k] as number[]
    let found = -1
    for (let M = 0; M < 20 * N && found < 0; M++) if (row.every((p) => Math.abs(p * (M + V * BETA) - BETA - Math.round(p * (M + V * BETA) - BETA)) < 1e-6)) found = M
    expect(found).toBeGreaterThanOrEqual(0)
    for (let w = 0; w < V; w++) m[w * K + k] = Math.round((row[w] as number) * (found + V * BETA) - BETA)
  }
  return m
}

/** How many words' training counts the attack recovers exactly (Σ_k (m_wk − η_wk) = count of w). */
const wordsRecovered = (phi: number[][], seed: string): number => {
  const m = releasedCounts(phi)
  const eta = replayNoise(seed)
  let ok = 0
  for (let w = 0; w < V; w++) {
    let s = 0
    for (let k = 0; k < K; k++) s += (m[w * K + k] as number) - (eta[w * K + k] as number)
    if (s === wordCount[w]) ok++
  }
  return ok
}

describe('seed replay against dpaudit train model files', () => {
  it('recovers every training word count from a --seed run, which says it is not a private release', () => {
    const { file, text, stdout } = trainFile('seeded.json', ['--seed', 'replay-7'])
    expect(wordsRecovered(file.phi, 'replay-7')).toBe(V)
    expect(file.release.private).toBe(false)
    expect(file.release.notice).toMatch(/^NOT A PRIVATE RELEASE: .*seed/)
    expect(stdout).toMatch(/NOT A PRIVATE RELEASE/)
    expect(text).not.toMatch(/replay-7/) // the seed itself is never written
  })
  it('recovers nothing from the default run: its noise is drawn from node:crypto and nothing regenerates it', () => {
    const { file, text, stdout } = trainFile('default.json', [])
    expect(file.release.private).toBe(true)
    expect(stdout).toMatch(/^private release: /m)
    expect(text).not.toMatch(/"seed"/)
    for (const guess of ['1', '0', 'replay-7', 'secure']) expect(wordsRecovered(file.phi, guess)).toBeLessThan(V / 2)
  })
})
