/**
 * The machinery of trainer audits: games built by the relation, the white-box observer on the
 * trainers' own releases (and what non-private CGS hands over as it would release), eq. (24) by hand, LiRA's score, determinism over chunking and
 * duplicate deliveries, and the errors for bad games.
 */
import { createHash } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { auditTrainer, type ExecutorFactory, localExecutor, type TrainerAuditResult, type TrainerAuditSpec } from '../../src/attacks/trainers/audit.js'
import { featuresFor, topicPosteriorRatio } from '../../src/attacks/trainers/features.js'
import { buildGame, type CorpusJson, canaryDocument, syntheticCorpus } from '../../src/attacks/trainers/game.js'
import { fitLira, liraScore } from '../../src/attacks/trainers/lira.js'
import { decodeTrainerAuditFile } from '../../src/attacks/trainers/file.js'
import { observe } from '../../src/attacks/trainers/observe.js'
import { stringifyJson } from '../../src/core/json.js'
import type { ReleaseRecord } from '../../src/mechanisms/gate.js'
import { cdpLdaPlus } from '../../src/trainers/cdp.js'
import { CGS_NOT_RELEASED, cgs } from '../../src/trainers/cgs.js'
import { hdpLda } from '../../src/trainers/hdp.js'
import { phiFromCounts } from '../../src/trainers/lda/state.js'
import type { LdaConfigBase, LdaModel, LdaTrainer } from '../../src/trainers/trainer.js'

const corpus: CorpusJson = E.getOrElseW((e) => {
  throw new Error(JSON.stringify(e))
})(syntheticCorpus({ documents: 20, vocabulary: 20, topics: 2, meanDocumentLength: 12, unused: 3, seed: 'trainer-game' }))

const game = (over: Partial<TrainerAuditSpec['game']> = {}): TrainerAuditSpec['game'] => ({
  trainer: 'hdp-lda',
  config: { topics: 2, iterations: 3, epsilonL: 1, clip: 5 },
  corpus,
  neighbour: { kind: 'replace-word', document: 1, position: 0, word: 20 },
  view: 'white-box',
  ...over,
})

const right = <T>(x: E.Either<unknown, T>): T => {
  if (E.isLeft(x)) throw new Error(JSON.stringify(x.left))
  return x.right
}

describe('games', () => {
  it('replace-word changes exactly one token; add-document appends one document', () => {
    const g = right(buildGame(game()))
    const [d, d1] = g.corpora
    let diff = 0
    for (let i = 0; i < d.tokens.length; i++) if (d.tokens[i] !== d1.tokens[i]) diff++
    expect(diff).toBe(1)
    expect(g.attacked).toEqual({ index: (d.docStart[1] as number) + 0, word: corpus.documents[1]?.[0], other: 20 })
    expect(g.countDelta[20]).toBe(-1)
    const a = right(buildGame(game({ neighbour: { kind: 'add-document', words: canaryDocument(corpus, 3) } })))
    expect(a.corpora[0].docStart.length).toBe(a.corpora[1].docStart.length + 1)
    // the canary takes the least frequent words: here words no document uses (the 3 canary slots among them)
    const used = new Set(corpus.documents.flat())
    const canary = canaryDocument(corpus, 3)
    expect(canary.every((w) => !used.has(w))).toBe(true)
    expect([...canary].sort((x, y) => x - y)).toEqual(canary)
  })

  it('bad games are refused with the field named', () => {
    const err = (g: unknown): string => {
      const r = buildGame(g as TrainerAuditSpec['game'])
      if (E.isRight(r)) throw new Error('accepted')
      return r.left.path
    }
    expect(err(game({ trainer: 'nope' as never }))).toBe('$.trainer')
    expect(err(game({ view: 'grey' as never }))).toBe('$.view')
    expect(err(game({ neighbour: { kind: 'replace-word', document: 1, position: 999, word: 3 } }))).toBe('$.neighbour.position')
    expect(err(game({ neighbour: { kind: 'replace-word', document: 1, position: 0, word: 99 } }))).toBe('$.neighbour.word')
    expect(err(game({ neighbour: { kind: 'add-document', words: [] } }))).toBe('$.neighbour.words')
    expect(err(game({ config: { topics: 1, iterations: 3 } }))).toMatch(/^\$\.config/)
    expect(err(game({ corpus: { vocab: ['a'], documents: [[0, 5]] } }))).toBe('$.corpus.documents[0][1]')
  })
})

describe('the white-box observer runs the trainers that ship and reads their releases', () => {
  const cases = [
    ['hdp-lda', hdpLda, { topics: 2, iterations: 3, epsilonL: 1, clip: 5 }],
    ['cdp-lda+', cdpLdaPlus, { topics: 2, iterations: 3, epsilon: 0.5 }],
  ] as const
  for (const [name, trainer, config] of cases)
    it(`${name}: φ is the trainer's, and the attacked token's topics are those its sweeps released`, () => {
      const g = right(buildGame(game({ trainer: name, config })))
      const index = g.attacked?.index as number
      for (const seed of ['a', 'b']) {
        const o = right(observe(g, 0, seeded(seed)))
        const releases: ReleaseRecord[] = []
        const f = right(trainer.fit(g.corpora[0], g.config as never, seeded(seed), { onRelease: (r) => releases.push(r), logLikelihoodEvery: 0 }))
        expect(Array.from((o.model as LdaModel).phi)).toEqual(Array.from(f.model.phi))
        const drawn = releases.filter((r) => r.value instanceof Int32Array).map((r) => (r.value as Int32Array)[index])
        expect(drawn).toHaveLength(3) // one release of every token's topic per iteration
        expect(Array.from(o.tokenTopics ?? [])).toEqual(drawn)
        expect(o.tables).toHaveLength(3)
        expect(o.notPrivateBecause.join(' ')).toMatch(/seeded/)
      }
    })

  it('keeps the white-box audit results the replica observers gave (recorded before they were removed)', async () => {
    // auditTrainer digests recorded with the replicas of hdpLda/cdpLdaPlus.fit (observe.ts before issue 25's change), the same after
    const pinned: Record<string, [number, string]> = { 'hdp-lda': [0.9071440731109149, 'c158a477b2f3ea3d'], 'cdp-lda+': [0.797396036133549, 'd74fb3a31018c920'] }
    for (const [name, , config] of cases) {
      const r = right(await auditTrainer({ game: game({ trainer: name, config }), claim: { epsilon: 1, delta: 1e-5 }, runs: 200, seed: 'pin' }))
      expect([r.epsilonLowerBound, createHash('sha256').update(stringifyJson(r)).digest('hex').slice(0, 16)]).toEqual(pinned[name])
    }
  })
})

describe('the non-private CGS observer', () => {
  it('reads what cgs.fit hands over as it would release (not a release): φ unchanged, the counts each sweep read, every token\'s topic in reading order', () => {
    const g = right(buildGame(game({ trainer: 'cgs', config: { topics: 2, iterations: 4 } })))
    const d = g.corpora[0]
    const index = g.attacked?.index as number
    for (const seed of ['a', 'b']) {
      const releases: ReleaseRecord[] = []
      const watched = right(cgs.fit(d, g.config as never, seeded(seed), { logLikelihoodEvery: 0, onRelease: (r) => releases.push(r) }))
      const plain = right(cgs.fit(d, g.config as never, seeded(seed), { logLikelihoodEvery: 0 }))
      expect(Array.from(watched.model.phi)).toEqual(Array.from(plain.model.phi)) // observing draws nothing
      expect(releases.every((r) => r.event._tag === 'NonPrivate' && r.label.includes(CGS_NOT_RELEASED))).toBe(true)
      const tables = releases.filter((r) => r.value instanceof Float64Array).map((r) => r.value as Float64Array)
      const topics = releases.filter((r) => r.value instanceof Int32Array).map((r) => r.value as Int32Array)
      expect(tables).toHaveLength(4)
      for (const t of tables) expect(t.reduce((x, y) => x + y, 0)).toBe(d.tokens.length) // every table holds all tokens once
      expect(topics).toHaveLength(4)
      // the last topics, in reading order, give back the final counts φ was computed from, bit for bit
      const nwk = new Int32Array(d.vocab.length * 2)
      const last = topics[3] as Int32Array
      for (let i = 0; i < d.tokens.length; i++) {
        const j = (d.tokens[i] as number) * 2 + (last[i] as number)
        nwk[j] = (nwk[j] as number) + 1
      }
      expect(Array.from(phiFromCounts(nwk, 2, d.vocab.length, (g.config as LdaConfigBase).beta))).toEqual(Array.from(plain.model.phi))
      const o = right(observe(g, 0, seeded(seed)))
      expect(Array.from((o.model as LdaModel).phi)).toEqual(Array.from(plain.model.phi))
      expect(Array.from(o.tokenTopics ?? [])).toEqual(topics.map((z) => z[index]))
      expect(o.tables).toHaveLength(4)
    }
  })

  it('keeps the white-box audit results the CGS replica observer gave (recorded before it was removed)', async () => {
    // auditTrainer results (ε_LB, digest) recorded with observe.ts's replay of the CGS sweep (observedCgsFit, before issue 25's
    // change): digests f00d98ba9fcd0520, b4e2d32f23456339, df20f30d0f40d481, unchanged when cgs.fit's own hook replaced the replay.
    // Re-recorded after abf1c26 changed the SparseLDA draw map (same distribution, other draws): the bounds stayed, the digests below moved.
    const pinned: Array<[number, number, number, string]> = [
      [0, 3, 2.889221636306708, '5221c4426a4285f8'],
      [0, 6, 2.81869445939341, '14021229de6f06e3'],
      [2, 4, 2.84135821115252, 'd744ee7514defa04'],
    ]
    for (const [position, iterations, lb, digest] of pinned) {
      const spec = game({ trainer: 'cgs', config: { topics: 2, iterations }, neighbour: { kind: 'replace-word', document: 1, position, word: 20 } })
      const r = right(await auditTrainer({ game: spec, claim: { epsilon: 1, delta: 1e-5 }, runs: 200, seed: 'pin' }))
      expect([r.epsilonLowerBound, createHash('sha256').update(stringifyJson(r)).digest('hex').slice(0, 16)]).toEqual([lb, digest])
    }
  })
})

describe('statistics', () => {
  it('eq. (24) as a log-posterior ratio, by hand', () => {
    // V = 3 words × K = 2 topics, word-major; two iterations, topics 1 then 0
    const t1 = Float64Array.from([3, 1, 0, 4, -2, 2])
    const t2 = Float64Array.from([5, 0, 1, 1, 0, 7])
    const beta = 0.5
    const r = topicPosteriorRatio([t1, t2], Int32Array.from([1, 0]), 2, 0, 2, beta)
    // iteration 1, k = 1: ln(1 + β) − ln(2 + β); iteration 2, k = 0: ln(5 + β) − ln(0 + β) (−2 clipped at 0 is not used here)
    expect(r).toBeCloseTo(Math.log(1.5) - Math.log(2.5) + Math.log(5.5) - Math.log(0.5), 12)
  })
  it('LiRA: equal fits score 0; with equal spreads the score rises with x when IN lies above OUT', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 3, maxLength: 20 }), fc.double({ min: -50, max: 50, noNaN: true }), (xs, x) => {
        const m = fitLira(xs, xs)
        expect(liraScore(m, x)).toBe(0)
        fc.pre(Math.max(...xs) - Math.min(...xs) > 1e-3) // a real spread (not the floor of a constant sample)
        const shifted = fitLira(xs.map((v) => v + 1), xs)
        expect(liraScore(shifted, x + 1)).toBeGreaterThanOrEqual(liraScore(shifted, x) - 1e-9)
      }),
    )
  })
})

describe('determinism', () => {
  const spec: TrainerAuditSpec = { game: game(), claim: { epsilon: 1, delta: 0 }, runs: 120, seed: 'det' }
  const run = async (s: TrainerAuditSpec): Promise<TrainerAuditResult> => right(await auditTrainer(s))

  it('the result does not depend on the chunk size, and a chunk delivered twice counts once', async () => {
    const a = await run({ ...spec, chunkSize: 7 })
    const b = await run({ ...spec, chunkSize: 50 })
    // an executor that delivers every result twice, in reverse order (a retried queue job)
    const twice: ExecutorFactory = (ctx) => {
      const inner = localExecutor(ctx)
      return {
        workers: 1,
        run: async (tasks, onResult) => {
          const seen: Parameters<typeof onResult>[0][] = []
          const err = await inner.run(tasks, (r) => seen.push(r))
          for (const r of [...seen].reverse()) {
            onResult(r)
            onResult(r)
          }
          return err
        },
        close: inner.close,
      }
    }
    const c = await run({ ...spec, chunkSize: 13, executor: twice })
    expect(b).toEqual(a)
    expect(c).toEqual(a)
    expect(a.trials.spent).toBe(2 * a.trials.selectionPerPairPerSide + 2 * a.trials.estimationPerSide)
  })

  it('a trainer that ignores its data gives ε_LB = 0 (no false alarm)', async () => {
    const blind: LdaTrainer<LdaConfigBase> = {
      ...(hdpLda as unknown as LdaTrainer<LdaConfigBase>),
      fit: (c, config, rng) => {
        const K = config.topics
        const V = c.vocab.length
        const phi = new Float64Array(K * V).map(() => rng.next())
        const model: LdaModel = { topics: K, vocabulary: V, phi }
        return E.right({ model, trace: [], ledger: { _tag: 'NoOp' } as never, tokensSampled: 0, release: { private: false, randomness: 'seeded', notPrivateBecause: ['seeded'] } })
      },
    }
    for (const seed of ['x', 'y', 'z']) {
      const r = await run({ ...spec, trainer: blind, game: game({ view: 'black-box' }), runs: 400, seed })
      expect(r.epsilonLowerBound).toBe(0)
      expect(r.verdict).toBe('consistent')
    }
  })

  it('bad audit options are refused with the field named', async () => {
    const bad = await auditTrainer({ ...spec, runs: 5 })
    expect(E.isLeft(bad) && bad.left.path).toBe('$.runs')
    const claim = await auditTrainer({ ...spec, claim: { epsilon: -1, delta: 0 } })
    expect(E.isLeft(claim) && claim.left.path).toBe('$.claim.epsilon')
    const game = await auditTrainer({ ...spec, game: { ...spec.game, neighbour: { kind: 'replace-word', document: 1, position: 999, word: 3 } } })
    expect(E.isLeft(game) && game.left.path).toBe('$.game.neighbour.position')
  })
})

describe('trainer-audit files', () => {
  const file = {
    game: {
      trainer: 'cgs',
      config: { topics: 2, iterations: 2 },
      corpus: { synthetic: { documents: 10, vocabulary: 12, topics: 2, meanDocumentLength: 8, unused: 2, seed: 'f' } },
      neighbour: { kind: 'add-document', canary: 3 },
      view: 'black-box',
    },
    claim: { epsilon: 1, delta: 0 },
    runs: 100,
  }
  it('expands a synthetic corpus and a canary into a plain game, the same every time', () => {
    const a = right(decodeTrainerAuditFile(file))
    const b = right(decodeTrainerAuditFile(JSON.parse(JSON.stringify(file))))
    expect(a).toEqual(b)
    expect(a.game.corpus.vocab).toHaveLength(14)
    expect(a.game.corpus.documents).toHaveLength(10)
    expect(a.game.neighbour).toEqual({ kind: 'add-document', words: canaryDocument(a.game.corpus, 3) })
    expect(a.seed).toBe('dpaudit')
    expect(E.isRight(buildGame(a.game))).toBe(true)
  })
  it('names what is missing or malformed', () => {
    const path = (x: unknown): string => {
      const r = decodeTrainerAuditFile(x)
      if (E.isRight(r)) throw new Error('accepted')
      return r.left.path
    }
    expect(path([])).toBe('$')
    expect(path({ ...file, game: { ...file.game, corpus: { words: [] } } })).toBe('$.game.corpus')
    expect(path({ ...file, game: { ...file.game, neighbour: { kind: 'add-document', canary: 0 } } })).toBe('$.game.neighbour.canary')
    expect(path({ ...file, claim: undefined })).toBe('$.claim')
    expect(path({ ...file, game: { ...file.game, corpus: { synthetic: { ...file.game.corpus.synthetic, documents: 0 } } } })).toBe('$.game.corpus.synthetic.documents')
  })
})

describe('the audit chooses its statistics from what the trainer declares it releases (issue 25 item 4)', () => {
  const names = (spec: TrainerAuditSpec['game'], trainer?: LdaTrainer<LdaConfigBase>) => featuresFor(right(buildGame(spec, trainer)))
  it('built-in trainers: count tables for HDP-LDA, report bits for LP-LDA, φ alone for OLP-LDA (its reports are in stream order)', () => {
    expect(names(game())).toEqual(['phi-mass', 'phi-loglik', 'release-mass', 'topic-posterior'])
    expect(names(game({ trainer: 'lp-lda', config: { topics: 2, iterations: 2 } }))).toEqual(['phi-mass', 'phi-loglik', 'report-bits'])
    expect(names(game({ trainer: 'olp-lda', config: { topics: 2, iterations: 2 } }))).toEqual(['phi-mass', 'phi-loglik'])
    expect(names(game({ view: 'black-box' }))).toEqual(['phi-mass', 'phi-loglik'])
  })
  it('SUB-LDA releases every token\'s topic each iteration, uniform and adaptive: the topic-based attack applies to it', () => {
    for (const adaptive of [null, { q: 0.5, eta: 1.5 }]) {
      const g = game({ trainer: 'sub-lda', config: { topics: 2, iterations: 3, gamma: 0.5, clip: 5, adaptive } })
      expect(names(g)).toEqual(['phi-mass', 'phi-loglik', 'release-mass', 'topic-posterior'])
      const o = right(observe(right(buildGame(g)), 0, seeded(1)))
      expect([adaptive, o.tokenTopics?.length]).toEqual([adaptive, 3])
    }
  })
  it('a trainer under another name gets the statistics of what it declares, not of its name', () => {
    const renamed = { ...cdpLdaPlus, name: 'my-noisy-counts' } as unknown as LdaTrainer<LdaConfigBase>
    const spec = game({ config: { topics: 2, iterations: 3, epsilon: 1 } })
    // its topic draws are released (`topic-assignments`), so the topic-based attack applies under any name
    expect(names(spec, renamed)).toEqual(['phi-mass', 'phi-loglik', 'release-mass', 'topic-posterior'])
    const quiet = { ...renamed, releases: ['phi'] } as LdaTrainer<LdaConfigBase>
    expect(names(spec, quiet)).toEqual(['phi-mass', 'phi-loglik'])
    // a trainer outside LDA (DP-SGD's declaration): word vectors released each step, a word-weight vector in the model file
    const words = { ...renamed, releases: ['word-vectors', 'word-weights'] } as LdaTrainer<LdaConfigBase>
    expect(names(spec, words)).toEqual(['weights-mass', 'word-release-sum', 'word-release-max', 'word-release-min'])
    expect(names({ ...spec, view: 'black-box' }, words)).toEqual(['weights-mass'])
  })
})
