/**
 * Issue 29, the command line under hostile input: no input lost to an output, no read that hangs,
 * no script left live in report.md, the claim (not the mechanism) overridden, and messages that say
 * what is wrong once. Each case failed on the code before it.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAccount } from '../../src/cli/commands/account.js'
import { runAudit } from '../../src/cli/commands/audit.js'
import { runEvaluate } from '../../src/cli/commands/evaluate.js'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { runReport } from '../../src/cli/commands/report.js'
import { existingInputs, guardOutputs, lockOutputs, lockPathOf, refuseOutputOverInput } from '../../src/cli/output-guard.js'
import { runSafely } from '../../src/cli/run.js'
import { decodeTrainerAuditFile } from '../../src/attacks/trainers/file.js'
import { formatError } from '../../src/core/error.js'
import { decodeUtf8, firstInvalidUtf8, readBoundedBytes, readBoundedText } from '../../src/core/read-file.js'
import { markdownText } from '../../src/report/audit/pages.js'
import { auditIsAbout } from '../../src/report/audit-check.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-hostile-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const at = (name: string): string => join(dir, name)

/** A finished seeded Laplace audit on disk (a few thousand trials: fast, and enough for a report). */
let auditFile = ''
beforeAll(() => {
  auditFile = at('laplace.audit.json')
  const r = runAudit({ target: 'zoo:laplace', workers: '1', trials: '20000', seed: 'hostile', out: auditFile })
  expect([0, 4]).toContain(r.code)
})

describe('no output over an input (item 1)', () => {
  it('refuses an output that is an input by path, through .., a symbolic link or a hard link, naming both', () => {
    const input = at('in.txt')
    writeFileSync(input, 'x')
    mkdirSync(at('sub'), { recursive: true })
    symlinkSync(input, at('link.txt'))
    linkSync(input, at('hard.txt'))
    for (const out of [input, join(dir, 'sub', '..', 'in.txt'), at('link.txt'), at('hard.txt')]) {
      const r = refuseOutputOverInput([{ what: '--out', path: out }], [{ what: '--corpus', path: input }])
      expect(E.isLeft(r) && r.left, out).toBe(`--out ${out}: is the same file as --corpus ${input}; writing it would replace the input (choose another output path)`)
    }
    expect(E.isRight(refuseOutputOverInput([{ what: '--out', path: at('new.json') }], [{ what: '--corpus', path: input }]))).toBe(true)
    // two outputs on one file
    const two = refuseOutputOverInput([{ what: '--out', path: at('o.json') }, { what: '--checkpoint', path: at('o.json') }], [])
    expect(E.isLeft(two) && two.left).toMatch(/^--checkpoint .*o\.json: is the same file as --out .*o\.json; give them different paths$/)
    expect(readFileSync(input, 'utf8')).toBe('x')
  })
  it('an output inside a folder read as input (a corpus of files) is refused; flags naming no file are not inputs', () => {
    const corpus = at('corpus-folder')
    mkdirSync(join(corpus, 'deep'), { recursive: true })
    writeFileSync(join(corpus, 'a.txt'), 'one two three')
    const inputs = existingInputs({ '--corpus': corpus, '--vocabulary': 'dp', '--eval-corpus': undefined })
    expect(inputs).toEqual([{ what: '--corpus', path: corpus }])
    for (const out of [join(corpus, 'model.json'), join(corpus, 'deep', 'model.json'), join(corpus, 'a.txt')]) {
      const r = refuseOutputOverInput([{ what: '--out', path: out }], inputs)
      expect(E.isLeft(r) && r.left, out).toBe(`--out ${out}: is inside the folder --corpus ${corpus}, which is read as input (choose a path outside it)`)
    }
    expect(E.isRight(refuseOutputOverInput([{ what: '--out', path: at('model-beside.json') }], inputs))).toBe(true)
  })
  it('audit: --out equal to the module is refused, the module kept; --out equal to --checkpoint too', () => {
    const mech = at('mech.mjs')
    const source = 'export const mechanism = (x) => x\nexport const pairs = [{ input: 0, neighbour: 1 }]\nexport const claim = { epsilon: 1, delta: 0 }\n'
    writeFileSync(mech, source)
    const r = runAudit({ target: mech, out: mech, trials: '1000', workers: '1' })
    expect(r).toEqual({ code: 1, stderr: `audit: --out ${mech}: is the same file as the module ${mech}; writing it would replace the input (choose another output path)` })
    expect(readFileSync(mech, 'utf8')).toBe(source)
    const c = runAudit({ target: 'zoo:laplace', out: at('same.json'), checkpoint: at('same.json'), trials: '1000', workers: '1' })
    expect(c.code).toBe(1)
    expect(c.stderr).toMatch(/^audit: --checkpoint .*same\.json: is the same file as --out .*same\.json/)
  })
  it('report DIR/report.json --out DIR is refused, the audit it read kept; a failed report leaves no folder (item 7)', async () => {
    const d = at('rep')
    mkdirSync(d)
    const input = join(d, 'report.json')
    const text = readFileSync(auditFile, 'utf8')
    writeFileSync(input, text)
    const r = await runReport([input, '--out', d])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`report: --out ${join(d, 'report.json')}: is the same file as the input ${input}; writing it would replace the input (choose another output path)`)
    expect(readFileSync(input, 'utf8')).toBe(text)
    expect(readdirSync(d)).toEqual(['report.json'])
    // a report that fails on its input leaves no empty --out folder behind
    const never = at('never-made')
    const bad = await runReport([at('missing.json'), '--out', never])
    expect(bad.code).toBe(1)
    expect(existsSync(never)).toBe(false)
  })
  it('a lock beside the output: a live dpaudit writing it refuses a second writer; a stale lock is taken over; released after', () => {
    const out = at('model.json')
    const lock = lockPathOf(out)
    expect(lock).toBe(at('.model.json.dpaudit-lock'))
    // another live process holds it: this test's parent (alive, not this process)
    writeFileSync(lock, `${process.ppid}\n${hostname()}\n`)
    const r = lockOutputs([{ what: '--out', path: out }])
    expect(E.isLeft(r) && r.left).toBe(`--out ${out}: another dpaudit process (pid ${process.ppid}) is writing it; wait for it, or remove ${lock} if no such process runs`)
    const a = runAudit({ target: 'zoo:laplace', out, trials: '1000', workers: '1' })
    expect(a.code).toBe(1)
    expect(a.stderr).toContain('another dpaudit process')
    expect(existsSync(out)).toBe(false)
    // stale: a pid that has exited
    const gone = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }))
    writeFileSync(lock, `${gone}\n${hostname()}\n`)
    const g = guardOutputs([{ what: '--out', path: out }], [])
    expect(E.isRight(g)).toBe(true)
    expect(readFileSync(lock, 'utf8').split('\n')[0]).toBe(String(process.pid))
    if (E.isRight(g)) g.right()
    expect(existsSync(lock)).toBe(false)
  })
})

describe('a report re-derives what it reads (item 2)', () => {
  /** The audit file with `edit` applied to its result, written beside it. */
  const edited = (name: string, edit: (r: Record<string, unknown>) => Record<string, unknown>): string => {
    const doc = JSON.parse(readFileSync(auditFile, 'utf8')) as { result: Record<string, unknown> }
    const path = at(name)
    writeFileSync(path, JSON.stringify({ ...doc, result: edit(doc.result) }))
    return path
  }
  it('refuses an edited verdict, a negative bound, a NaN ceiling and a bound the counts do not give, naming the field', async () => {
    const cases: Array<[string, (r: Record<string, unknown>) => Record<string, unknown>, RegExp]> = [
      ['flipped.json', (r) => ({ ...r, verdict: r['verdict'] === 'violation' ? 'consistent' : 'violation' }), /\$\.result\.verdict: contradicts the result's own numbers/],
      ['negative.json', (r) => ({ ...r, epsilonLowerBound: -5 }), /\$\.result\.epsilonLowerBound: an ε lower bound is a finite number ≥ 0/],
      ['nan.json', (r) => ({ ...r, ceiling: 'NaN' }), /\$\.result\.ceiling: the ceiling is a finite number ≥ 0/],
      ['inflated.json', (r) => ({ ...r, epsilonLowerBound: (r['epsilonLowerBound'] as number) + 0.01 }), /\$\.result\.epsilonLowerBound: does not follow from the recorded counts/],
      // a violation claimed at ε = 0.5 where the bound is below: the "consistent … 1.9 below 0.5" page of the issue, the other way round
      ['claim.json', (r) => ({ ...r, claim: { epsilon: 0.001, delta: 0 } }), /\$\.result\.(verdict|epsilonLowerBound)/],
    ]
    for (const [name, edit, why] of cases) {
      const path = edited(name, edit)
      const r = await runReport([path, '--out', at(`rep-${name}`)])
      expect(r.code, name).toBe(1)
      expect(r.stderr, name).toMatch(why)
      expect(r.stderr, name).toContain(path)
      expect(existsSync(at(`rep-${name}`))).toBe(false)
    }
  })
  it('evidence must be about the claim: a zoo audit is no evidence about a paper claim', () => {
    expect(auditIsAbout('lp-lda', 'histogram-inverted', 'zoo:histogram-inverted')).toBe(false)
    expect(auditIsAbout('lp-lda', 'olp-lda flip', 'x.mjs')).toBe(false)
    expect(auditIsAbout('lp-lda', 'presence bit', 'audits/lp-lda-flip.mjs')).toBe(true)
  })
})

describe('bounded reads (item 3)', () => {
  it('refuses a device and a FIFO at once, and a file over the bound, each in one line naming the file', () => {
    expect(readBoundedBytes('/dev/zero')).toEqual(E.left('/dev/zero: cannot read the file (it is a device; dpaudit reads regular files only)'))
    const fifo = at('pipe')
    let haveFifo = true
    try {
      execFileSync('mkfifo', [fifo])
    } catch {
      haveFifo = false
    }
    if (haveFifo) expect(readBoundedText(fifo)).toEqual(E.left(`${fifo}: cannot read the file (it is a FIFO; dpaudit reads regular files only)`))
    const big = at('big.json')
    writeFileSync(big, 'x'.repeat(2048))
    expect(readBoundedText(big, 1024)).toEqual(E.left(`${big}: cannot read the file (2,048 bytes, over the limit of 0.001 MiB)`))
    expect(readBoundedText(big, 4096)).toEqual(E.right('x'.repeat(2048)))
  })
  it('a report manifest naming /dev/zero is refused, not read', async () => {
    const man = at('zero-manifest.json')
    writeFileSync(man, JSON.stringify({ kind: 'dpaudit-report-input', schemaVersion: 1, audit: '/dev/zero' }))
    const r = await runReport([man, '--out', at('zero-report')])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('/dev/zero')
    expect(r.stderr).toContain('it is a device')
    expect(existsSync(at('zero-report'))).toBe(false)
  })
  it('account on /dev/zero is refused at once', () => {
    const r = runAccount({ file: '/dev/zero', deltas: [], accountant: [], orders: undefined, json: false, quiet: true })
    expect(r).toEqual({ code: 1, stderr: '/dev/zero: cannot read the file (it is a device; dpaudit reads regular files only)' })
  })
})

describe('evaluate says what is wrong, once (items 6 and 7)', () => {
  it('a corpus with another vocabulary is a vocabulary mismatch; a missing corpus names --corpus once', () => {
    const model = at('cgs.json')
    const t = runTrainCli(['cgs', '--corpus', 'brown', '--topics', '2', '--iterations', '2', '--seed', '1', '--quiet', '--out', model])
    expect(t.code, t.stderr).toBe(0)
    const other = at('other-corpus')
    mkdirSync(other)
    for (let i = 0; i < 30; i++) writeFileSync(join(other, `d${i}.txt`), `zebra yak quokka wombat alpha${i} beta gamma delta epsilon zeta eta theta\n`)
    const r = runEvaluate({ model, corpus: other, json: false })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(new RegExp(`^${model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} on --corpus .*other-corpus: vocabulary mismatch: the model's 5000 words and the corpus's \\d+ share no word`))
    const missing = runEvaluate({ model, corpus: at('nothere.txt'), json: false })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^--corpus: expected brown/)
    expect(missing.stderr).not.toMatch(/--corpus: --corpus/)
  })
})

describe('train names the flag of a bad corpus once, and says why a small corpus cannot be split', () => {
  const train = (corpus: string, ...more: string[]) =>
    runTrainCli(['hdp-lda', '--corpus', corpus, '--topics', '2', '--iterations', '2', '--seed', '1', '--quiet', '--out', at('small.json'), ...more])
  it('an empty corpus file and a file that is not UTF-8: "--corpus:" once; under --eval-corpus, that flag', () => {
    const empty = at('empty.jsonl')
    writeFileSync(empty, '')
    const folder = at('latin1-folder')
    mkdirSync(folder)
    writeFileSync(join(folder, 'a.txt'), Buffer.from('caf\xe9 au lait', 'latin1'))
    const good = at('good-folder')
    mkdirSync(good)
    for (let i = 0; i < 30; i++) writeFileSync(join(good, `d${i}.txt`), `alpha${i} beta gamma delta epsilon zeta eta theta\n`)
    for (const [r, flag, what] of [
      [train(empty), '--corpus', /the file holds no documents/],
      [train(folder), '--corpus', /a\.txt: not UTF-8 at byte 3/],
      [train(good, '--eval-corpus', empty), '--eval-corpus', /the file holds no documents/],
      [train(good, '--eval-corpus', folder), '--eval-corpus', /a\.txt: not UTF-8 at byte 3/],
    ] as const) {
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`^${flag}: `))
      expect(r.stderr).toMatch(what)
      expect(r.stderr).not.toMatch(/--corpus: --corpus|--eval-corpus: --corpus/)
    }
    expect(existsSync(at('small.json'))).toBe(false)
  })
  it('a public vocabulary list with words no token can match says which, on stderr, and trains', () => {
    const good = at('vocab-corpus')
    mkdirSync(good)
    for (let i = 0; i < 30; i++) writeFileSync(join(good, `d${i}.txt`), `alpha beta gamma delta epsilon zeta${i}\n`)
    const list = at('mixed-vocabulary.txt')
    writeFileSync(list, 'alpha\nbeta\nThe\na\nthe\ndon t\ngamma\n')
    const r = runTrainCli(['hdp-lda', '--corpus', good, '--vocabulary', list, '--topics', '2', '--iterations', '2', '--quiet', '--out', at('vocab-model.json')])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe(`note: --vocabulary ${list}: 4 of its 7 words can never match a token of this corpus (tokens are lowercase runs of 3 or more letters, stop words removed): "The", "a", "the", "don t"`)
    const clean = at('clean-vocabulary.txt')
    writeFileSync(clean, 'alpha\nbeta\ngamma\n')
    const q = runTrainCli(['hdp-lda', '--corpus', good, '--vocabulary', clean, '--topics', '2', '--iterations', '2', '--quiet', '--out', at('vocab-model-2.json')])
    expect(q.code, q.stderr).toBe(0)
    expect(q.stderr ?? '').toBe('')
  })
  it('a corpus too small for the held-out split says so (round(10 %) of 3 documents is none), not "no documents"', () => {
    const tiny = at('tiny-folder')
    mkdirSync(tiny)
    for (let i = 0; i < 3; i++) writeFileSync(join(tiny, `d${i}.txt`), 'alpha beta gamma delta\n')
    const r = train(tiny)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/the train\/test split held out no document with at least 2 words of the vocabulary \(0 of the 3 documents were held out/)
    expect(r.stderr).not.toMatch(/test documents\): the corpus has no documents/)
  })
})

describe('strict UTF-8 (item 6)', () => {
  it('finds the first byte that is not UTF-8 and names the file and the offset', () => {
    const latin1 = Buffer.from('caf\xe9 au lait', 'latin1')
    expect(firstInvalidUtf8(latin1)).toBe(3)
    expect(decodeUtf8('c.txt', latin1)).toEqual(E.left('c.txt: not UTF-8 at byte 3 (0xe9); convert it (e.g. iconv -f latin1 -t utf-8) and try again'))
    expect(decodeUtf8('c.txt', Buffer.from('café ☕ 𝔘', 'utf8'))).toEqual(E.right('café ☕ 𝔘'))
    // overlong, surrogate, cut short
    for (const bad of [[0xc0, 0x80], [0xed, 0xa0, 0x80], [0x61, 0xe2, 0x82]]) expect(firstInvalidUtf8(Uint8Array.from(bad))).toBeGreaterThanOrEqual(0)
  })
})

describe('report.md escapes what the user wrote (item 4)', () => {
  it('markdownText leaves no tag, link or emphasis live', () => {
    expect(markdownText('<script>alert(1)</script> [x](javascript:alert(1)) *b* `c` a|b')).toBe(
      '&lt;script&gt;alert(1)&lt;/script&gt; \\[x\\](javascript:alert(1)) \\*b\\* \\`c\\` a\\|b',
    )
    expect(markdownText('# not a heading\nsecond line')).toBe('\\# not a heading second line')
  })
  it('a title with <script> is inert in report.md (and still escaped in report.html)', async () => {
    const out = at('script-report')
    const r = await runReport([auditFile, '--out', out, '--title', '<script>alert(1)</script> *x*'])
    expect(r.code, r.stderr).toBe(0)
    const md = readFileSync(join(out, 'report.md'), 'utf8')
    expect(md).not.toMatch(/<script/i)
    expect(md.split('\n')[0]).toBe('# &lt;script&gt;alert(1)&lt;/script&gt; \\*x\\*')
    expect(readFileSync(join(out, 'report.html'), 'utf8')).not.toMatch(/<script>alert/)
  })
})

describe('audit --epsilon overrides the claim only (item 5)', () => {
  it('zoo:laplace built for ε = 1 and tested against ε = 0.5 is a violation, not rebuilt at 0.5', () => {
    const r = runAudit({ target: 'zoo:laplace', epsilon: '0.5', trials: '200000', workers: '1', seed: 'override', json: true })
    expect(r.code, r.stdout).toBe(3)
    const doc = JSON.parse(r.stdout ?? '{}') as { result: { claim: { epsilon: number }; epsilonLowerBound: number } }
    expect(doc.result.claim.epsilon).toBe(0.5)
    expect(doc.result.epsilonLowerBound).toBeGreaterThan(0.5)
  })
})

describe('messages (item 7)', () => {
  it('help --help is the overview, exit 0', () => {
    const r = runSafely(['help', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^dpaudit — /)
  })
  it('an unknown option: one line, quotes balanced', () => {
    const r = runSafely(['account', 'x.json', '--bogus'])
    expect(r).toEqual({ code: 1, stderr: "unknown option --bogus (dpaudit help for usage; a positional argument that starts with '-' goes after --, as in -- --bogus)" })
  })
  it('audit ta.json without --queue says what the file is and how to run it, not an import error', () => {
    const ta = at('ta.json')
    writeFileSync(ta, '{}')
    const r = runAudit({ target: ta })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`audit: ${ta}: a JSON file is a trainer audit (docs/trainer-audits.md), run by \`dpaudit audit FILE\` (locally, or with --queue; runQueueAudit from code); runAudit audits mechanisms and takes a .js or .mjs module or zoo:NAME`)
  })
})

describe('a reader that has gone stops the work (item 8)', () => {
  it('account streams each answer and stops at the first refused write', () => {
    const rel = { kind: 'add-remove', unit: 'record' }
    const specs = Array.from({ length: 50 }, (_, i) => ({ schemaVersion: 1, name: `g${i}`, event: { _tag: 'Gaussian', sigma: 1 + i, sensitivity: 1, relation: rel } }))
    const file = at('specs.json')
    writeFileSync(file, JSON.stringify(specs))
    const chunks: string[] = []
    const r = runAccount({ file, deltas: [], accountant: ['rdp'], orders: undefined, json: false, quiet: true, emit: (c) => chunks.push(c) < 2 })
    expect(r).toEqual({ code: 0 })
    expect(chunks.length).toBe(2)
    // streamed, the output is what it was all at once
    const all: string[] = []
    runAccount({ file, deltas: [], accountant: ['rdp'], orders: undefined, json: false, quiet: true, emit: (c) => all.push(c) > 0 })
    const once = runAccount({ file, deltas: [], accountant: ['rdp'], orders: undefined, json: false, quiet: true })
    expect(all.join('')).toBe(`${once.stdout ?? ''}\n`)
  })
})

describe('a synthetic game corpus is capped (item 3)', () => {
  it('a trainer-audit file asking for 1e9 documents is refused at once, naming the field', () => {
    const r = decodeTrainerAuditFile({
      game: { trainer: 'hdp-lda', config: {}, corpus: { synthetic: { documents: 1e9, vocabulary: 30, topics: 3, meanDocumentLength: 20, seed: 'c' } }, neighbour: { kind: 'add-document', canary: 3 }, view: 'black-box' },
      claim: { epsilon: 1, delta: 1e-5 },
      runs: 10,
    })
    expect(E.isLeft(r) && formatError(r.left)).toBe('$.game.corpus.synthetic.documents: at most 100,000 (a synthetic game corpus is small; give a real corpus as { vocab, documents }) (got 1000000000)')
  })
})
