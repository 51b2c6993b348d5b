/**
 * Atomic file writes for models and corpora. The implementation lives in core/atomic-file.ts so
 * that every layer (trainers, attacks' checkpoints, the command line) writes files the same way.
 *
 * @module
 */
export { pendingTemporaryFiles, resolveWriteTarget, type WriteOptions, type WriteTarget, writeFileAtomic } from '../core/atomic-file.js'
