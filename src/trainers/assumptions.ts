/**
 * The assumptions a privacy statement prints beside its ε: what the accounting takes as public or
 * fixed, so that a reader can check them against how the corpus was made (brief: a verdict states
 * exactly what it assumes).
 *
 * @module
 */

/** How the vocabulary was chosen, for the statement's assumptions. */
export type VocabularySource =
  | { readonly kind: 'public-file'; readonly file: string }
  | { readonly kind: 'training-data' | 'all-documents'; readonly size: number }
  | { readonly kind: 'corpus-files' }
  /** A differentially private selection from the training documents, charged in the plan (dp-vocabulary.ts). */
  | { readonly kind: 'dp-selection'; readonly epsilon: number; readonly delta: number; readonly size: number; readonly relation: string; readonly scale: number; readonly threshold: number }

/** The assumption every LDA statement makes about the vocabulary, by how it was chosen. */
export const vocabularyAssumption = (v: VocabularySource): string => {
  switch (v.kind) {
    case 'public-file':
      return `the vocabulary is public: read from ${v.file}, a word list given by the user`
    case 'training-data':
      return `the vocabulary is NOT public: it is the ${v.size} most frequent words of the training documents, a choice made from the data without noise that ε does not cover (the run is not a private release); pass --vocabulary FILE with a public word list, or --vocabulary dp for a differentially private selection`
    case 'all-documents':
      return `the vocabulary is treated as public, but here it is the ${v.size} most frequent words of all documents, training and test (the reference evaluation protocol for LDA perplexity, docs/trainers.md) — a choice made from the data that ε does not cover`
    case 'corpus-files':
      return 'the vocabulary is treated as public: it is the vocab.txt shipped with the corpus files (ε does not cover how it was chosen)'
    case 'dp-selection':
      return `the vocabulary is a differentially private selection from the training documents: exact discrete Laplace noise of scale t = ${v.scale} on the word counts under ${v.relation}, kept at ≥ τ = ${v.threshold}, the ${v.size} largest at most, written in code-unit order — (ε, δ) = (${v.epsilon}, ${v.delta}) asked, charged in the plan as its first release`
  }
}

/** What every private LDA trainer assumes, beyond its own assumptions. */
export const LDA_ASSUMPTIONS: ReadonlyArray<string> = [
  'neighbouring corpora differ in the word of one token (replace one word), both words in the public vocabulary: the relation is on the corpus as the trainer reads it (words outside the vocabulary deleted, documents with fewer than 2 of its words dropped), so the number of documents, their lengths and the token positions are the same, and public',
  'a held-out perplexity belongs to a private release only when computed on a public corpus (--eval-corpus; φ is released, so that is post-processing); a score on the private corpus’s own test split is never written into a private release',
]

