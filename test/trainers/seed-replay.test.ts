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
import type { TableNoise } from '../../src/mechanisms/measurement.js'
import { keyedNoisyTable, subsampleCoins, tokenWords } from '../../src/trainers/lda/parallel/release-work.js'
import { loadDataset } from '../../src/trainers/corpus/load.js'

// the prefix must not end like a seed below: the model file names its corpus by path, and a random suffix starting
// with 7 or 9 made 'dpaudit-replay-7…' match the "the seed is never written" checks (1 run in ~31 failed)
const dir = mkdtempSync(join(tmpdir(), 'dpaudit-seed-attack-'))
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

/**
 * A keyed run's table noise as the trainers draw it (src/trainers/lda/parallel/release-work.ts): a
 * key of four words from the run's stream, then every block of cells from a stream keyed by it.
 */
const keyedNoise = (w: WordStream, noise: TableNoise, cells: number): Float64Array => {
  const key = new Uint32Array(4)
  w.fillWords(key)
  return keyedNoisyTable(noise, key, new Int32Array(cells))
}
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
  w.fillWords(new Uint32Array(4)) // the initial topics' key (each document's topics from a stream keyed by it)
  let eta: Float64Array = new Float64Array(V * K)
  for (let it = 1; it <= T; it++) {
    eta = keyedNoise(w, { kind: 'discrete-laplace', scale: 2 / EPS_L }, V * K)
    w.fillWords(new Uint32Array(8)) // the sweep's two keys (its topic draws' words are derived from them)
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

// The same attack on the other trainers whose noise the CLI once derived from --seed (issue 9).
// SUB-LDA (γ = 0.5): the replay also regenerates the sampling coins, so it knows which tokens were
// sampled, and recovers each word's count among them. CDP-LDA: the noise of the first iteration stays
// in every later release, so one replayed table recovers the final counts.
describe('seed replay against sub-lda and cdp-lda model files', () => {
  const GAMMA = 0.5
  const EPS = 0.5
  const SIGMA = Math.sqrt(14 / (2 * 2)) // sub-lda's defaults: σ² = α/(2ε(α)) with α = 14, ε(α) = 2
  const flags = { 'sub-lda': ['--gamma', String(GAMMA)], 'cdp-lda': ['--epsilon', String(EPS)] } as const
  const run = (trainer: keyof typeof flags, name: string, extra: ReadonlyArray<string>) => {
    const out = join(dir, name)
    const clip = trainer === 'sub-lda' ? ['--clip', '1000'] : []
    const r = runTrainCli([trainer, '--corpus', corpusDir, '--topics', String(K), '--iterations', String(T), '--beta', String(BETA), ...flags[trainer], ...clip, '--out', out, ...extra])
    expect(r.code, r.stderr).toBe(0)
    const text = readFileSync(out, 'utf8')
    return { file: JSON.parse(text) as File & { release: { randomness: string; notPrivateBecause: string[] } }, text, stdout: r.stdout ?? '' }
  }

  /** SUB-LDA's last iteration as a seed would have drawn it: its noise, and each word's count among the sampled tokens. */
  const replaySub = (seed: string): { eta: Float64Array; sampled: number[] } => {
    const w = new WordStream(wordsFromRng(seeded(seed)))
    w.fillWords(new Uint32Array(4)) // the initial topics' key (each document's topics from a stream keyed by it)
    let eta: Float64Array = new Float64Array(V * K)
    const sampled = new Array<number>(V).fill(0)
    const include = new Uint8Array(N)
    for (let it = 1; it <= T; it++) {
      // the coins: a key from the stream, then two words per token from a stream keyed by its document
      const key = new Uint32Array(4)
      w.fillWords(key)
      const D = train.docStart.length - 1
      subsampleCoins(K, train.tokens, train.docStart, new Int32Array(N), 0, D, GAMMA, undefined, { kind: 'keyed', key }, include, new Int32Array(V * K), tokenWords())
      sampled.fill(0)
      for (let i = 0; i < N; i++)
        if (include[i] === 1) {
          const word = train.tokens[i] as number
          sampled[word] = (sampled[word] as number) + 1
        }
      eta = keyedNoise(w, { kind: 'discrete-gaussian', sigma: SIGMA }, V * K)
      w.fillWords(new Uint32Array(8)) // the sweep's two keys (the sampled tokens' draws are derived from them)
    }
    return { eta, sampled }
  }

  /** CDP-LDA's topic-word noise, drawn once in iteration 1 right after the initial topics and re-used after. */
  const replayCdp = (seed: string): Float64Array => {
    const w = new WordStream(wordsFromRng(seeded(seed)))
    w.fillWords(new Uint32Array(4)) // the initial topics' key
    return keyedNoise(w, { kind: 'discrete-laplace', scale: 1 / EPS }, V * K)
  }

  /** Words whose count the attack recovers exactly: Σ_k (m_wk − η_wk) equals the truth. */
  const recovered = (trainer: keyof typeof flags, phi: number[][], seed: string): number => {
    // SUB-LDA's φ is built from the released counts scaled by 1/γ: the integers found are 2m
    const m = releasedCounts(phi).map((x) => (trainer === 'sub-lda' ? x * GAMMA : x))
    const { eta, truth } = trainer === 'sub-lda' ? (({ eta, sampled }) => ({ eta, truth: sampled }))(replaySub(seed)) : { eta: replayCdp(seed), truth: wordCount }
    let ok = 0
    for (let w = 0; w < V; w++) {
      let s = 0
      for (let k = 0; k < K; k++) s += (m[w * K + k] as number) - (eta[w * K + k] as number)
      if (s === truth[w]) ok++
    }
    return ok
  }

  it.each(['sub-lda', 'cdp-lda'] as const)('%s: a --seed run gives every count away and says it is not a private release; the default run gives none', (trainer) => {
    const seededRun = run(trainer, `${trainer}-seeded.json`, ['--seed', 'replay-9'])
    expect(recovered(trainer, seededRun.file.phi, 'replay-9')).toBe(V)
    expect(seededRun.file.release.private).toBe(false)
    expect(seededRun.file.release.notice).toMatch(/^NOT A PRIVATE RELEASE: .*seed/)
    expect(seededRun.stdout).toMatch(/NOT A PRIVATE RELEASE/)
    expect(seededRun.text).not.toMatch(/replay-9/)
    const secret = run(trainer, `${trainer}-default.json`, [])
    // CDP-LDA is never a private release (its draws have no bound), but its noise is secret all the same
    expect(secret.file.release.randomness).toBe('secure (node:crypto)')
    expect(secret.file.release.notPrivateBecause.join(' ')).not.toMatch(/seed/)
    expect(secret.file.release.private).toBe(trainer === 'sub-lda')
    expect(secret.text).not.toMatch(/"seed"/)
    for (const guess of ['1', '0', 'replay-9', 'secure']) expect(recovered(trainer, secret.file.phi, guess), guess).toBeLessThan(V / 2)
  })
})
