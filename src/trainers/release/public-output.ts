/**
 * What a private run may write around its gate releases (issue 22: the whole output is the
 * boundary, not only the noise). A private release is assembled from two kinds of values only:
 * what left the release gate (φ and what is computed from it), and inputs that are public — the
 * configuration, a public vocabulary, sizes that the protected relation leaves unchanged or that the
 * user declared. This module decides the second kind, in one place:
 *
 * - **Sizes.** Under replace-one word (every Gibbs trainer, LP-LDA, OLP-LDA) neighbouring corpora
 *   have the same documents, lengths and positions, so D and N are the same in both and may be
 *   written exactly. Under replace-one document (spectral, svi-lda-wor) D is unchanged but N is not;
 *   under add/remove one document (svi-lda) neither is. There only sizes the user declared
 *   (--documents, --tokens) are written, and a trainer that needs D uses the declared one.
 * - **Vocabulary.** A public list (a file, or the list shipped with a built-in corpus) or a
 *   differentially private selection keep the run private; the most frequent words of the private
 *   documents make it NOT a private release, since no gate released them (whatever order they are
 *   written in, the set itself says which words occur).
 *
 * @module
 */
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { VocabularySource } from '../assumptions.js'
import type { CorpusStats } from '../corpus/corpus.js'

/** Sizes the user declared public (--documents, --tokens). */
export interface DeclaredSizes {
  readonly documents?: number
  readonly tokens?: number
}

/** The sizes a model file and the printed output carry, and why they may. */
export interface WrittenSizes {
  readonly documents?: number
  readonly tokens?: number
  readonly vocabulary: number
  /** Where the sizes come from, in words. */
  readonly sizes: string
}

/** The exact sizes (a run that is not a private release). */
export const exactSizes = (stats: CorpusStats): { readonly documents: number; readonly vocabulary: number; readonly tokens: number } => ({
  documents: stats.documents,
  vocabulary: stats.vocabulary,
  tokens: stats.tokens,
})

const wordLevel = (r: NeighbouringRelation): boolean => r.unit === 'word' && r.kind === 'replace-one'

/**
 * The sizes a private release may carry under the relations it protects and is accounted under: V
 * always (the vocabulary is public), D and N exactly where both relations leave them unchanged, and
 * otherwise only the declared ones.
 */
export const publicSizes = (accountedUnder: NeighbouringRelation, protects: NeighbouringRelation, stats: CorpusStats, declared: DeclaredSizes): WrittenSizes => {
  if (wordLevel(accountedUnder) && wordLevel(protects))
    return { ...exactSizes(stats), sizes: 'exact: replacing one word leaves the number of documents and tokens unchanged' }
  // replace-one document on both: D is unchanged, N is not
  const dInvariant = protects.kind === 'replace-one' && accountedUnder.kind === 'replace-one'
  const documents = declared.documents ?? (dInvariant ? stats.documents : undefined)
  const parts = [
    declared.documents !== undefined ? 'D declared public' : dInvariant ? `D exact (replace-one ${protects.unit} leaves it unchanged)` : 'D not written (it differs between neighbours; declare it with --documents)',
    declared.tokens !== undefined ? 'N declared public' : 'N not written (it differs between neighbours; declare it with --tokens)',
  ]
  return {
    ...(documents === undefined ? {} : { documents }),
    ...(declared.tokens === undefined ? {} : { tokens: declared.tokens }),
    vocabulary: stats.vocabulary,
    sizes: parts.join('; '),
  }
}

/** Why a vocabulary source makes a run not a private release, or undefined when it does not. */
export const vocabularyNotPrivate = (v: VocabularySource): string | undefined => {
  switch (v.kind) {
    case 'training-data':
    case 'all-documents':
      return `the vocabulary is the ${v.size} most frequent words of the private documents, chosen without noise (pass --vocabulary FILE with a public word list, or --vocabulary dp for a differentially private selection)`
    default:
      return undefined
  }
}
