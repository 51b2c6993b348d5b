// A generated corpus written as a UCI bag-of-words folder (docword.txt, vocab.txt), for tests that
// run `dpaudit train` on it, and the model-file comparison of seeded runs.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Corpus } from '../../src/trainers/corpus/corpus.js'

/** Writes `corpus` into `dir` (created) as UCI files; returns `dir`. */
export const writeUciCorpus = (dir: string, corpus: Corpus): string => {
  mkdirSync(dir, { recursive: true })
  const lines: string[] = []
  for (let d = 0; d + 1 < corpus.docStart.length; d++) {
    const counts = new Map<number, number>()
    for (let i = corpus.docStart[d] as number; i < (corpus.docStart[d + 1] as number); i++) counts.set(corpus.tokens[i] as number, (counts.get(corpus.tokens[i] as number) ?? 0) + 1)
    for (const [w, c] of [...counts].sort((a, b) => a[0] - b[0])) lines.push(`${d + 1} ${w + 1} ${c}`)
  }
  writeFileSync(join(dir, 'docword.txt'), `${corpus.docStart.length - 1}\n${corpus.vocab.length}\n${lines.length}\n${lines.join('\n')}\n`)
  writeFileSync(join(dir, 'vocab.txt'), `${corpus.vocab.join('\n')}\n`)
  return dir
}

/** A seeded run is not a private release, so its file carries the trace, whose timings are the only thing allowed to differ between runs. */
export const withoutTimings = (text: string): string => text.replace(/"(elapsedMs|tokensPerSecond)": [^,\n]+/g, '"$1": 0')
