// A tiny UCI bag-of-words corpus on disk (40 documents, 6 words) for the command-line tests.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Writes docword.txt and vocab.txt into `<dir>/uci` and returns that folder. */
export const writeTinyUci = (dir: string): string => {
  const corpusDir = join(dir, 'uci')
  mkdirSync(corpusDir)
  const lines = ['40', '6', String(40 * 3)]
  for (let d = 1; d <= 40; d++) for (const w of [1 + (d % 3), 4, 5 + (d % 2)]) lines.push(`${d} ${w} ${1 + (d % 4)}`)
  writeFileSync(join(corpusDir, 'docword.txt'), `${lines.join('\n')}\n`)
  writeFileSync(join(corpusDir, 'vocab.txt'), 'alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\n')
  return corpusDir
}
