/**
 * Corpora in the UCI bag-of-words format (docword.*.txt with vocab.*.txt), as one namespace value of
 * dpaudit/trainers: `Uci.readUci(docwordFile)`, `Uci.writeUci(corpus, docwordFile, vocabFile)`
 * (../corpus/uci.ts; the ReadUciOptions type is exported flat).
 *
 * @module
 */
export { readUci, writeUci } from '../corpus/uci.js'
