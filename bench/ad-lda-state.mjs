// Where AD-LDA's chain ends against the sequential sampler's (issue 27: why its held-out perplexity is lower).
// Build first (`npm run build`), then `node bench/ad-lda-state.mjs [sweeps = 150] [workers = 1,4] [seeds = 1]`.
// Brown, K = 50, α = 0.1, β = 0.01, each (workers, seed) from the same initial topics: the training joint log-likelihood
// of the final state, the held-out perplexity of the final φ and of φ averaged over the last 20 sweeps, and the mean
// entropy of the topics' word distributions (nats). About 20 s per run with one worker on a quiet core, more with 4.
const dist = new URL('../dist', import.meta.url).href
const { seeded } = await import(dist + '/core/rng.js')
const { loadDataset, heldOutPerplexity } = await import(dist + '/trainers/index.js')
const { initState, phiFromCounts, sharedInt32 } = await import(dist + '/trainers/lda/state.js')
const { makeSparseSampler } = await import(dist + '/trainers/lda/sparse.js')
const { makeAdLdaSampler } = await import(dist + '/trainers/lda/ad-lda.js')
const { jointLogLikelihood } = await import(dist + '/trainers/lda/loglik.js')
const { FastUniform } = await import(dist + '/trainers/lda/random.js')
const K = 50, A = 0.1, B = 0.01, SW = Number(process.argv[2] ?? 150)
if (!Number.isSafeInteger(SW) || SW < 1) { console.error(`sweeps: expected a positive integer, got '${process.argv[2]}'`); process.exit(1) }
// averaged over the last min(20, sweeps) sweeps: with fewer than 20 the average summed too few φ (not a distribution)
const AVG = Math.min(20, SW)
const data = loadDataset('brown').right, tr = data.train, V = tr.vocab.length
const ppl = (phi) => heldOutPerplexity(phi, K, data.testObserved, data.testHeldOut).right.perplexity
const entropy = (phi) => { let h = 0; for (let k = 0; k < K; k++) for (let w = 0; w < V; w++) { const p = phi[k * V + w]; h -= p * Math.log(p) } return h / K }
for (const W of (process.argv[3] ?? '1,4').split(',').map(Number)) for (const seed of (process.argv[4] ?? '1').split(',').map(Number)) {
  const u = new FastUniform(seeded(seed))
  const s = initState(tr, K, () => u.next(), 'by-word', W > 1 ? sharedInt32 : undefined)
  let sweep, sync = () => {}, close = () => {}
  if (W === 1) { const m = makeSparseSampler(s, A, B); sweep = () => m.sweep(u); sync = () => m.syncDense() }
  else { const m = makeAdLdaSampler(s, A, B, W).right; sweep = () => m.sweep(u); close = () => m.close() }
  const avg = new Float64Array(K * V)
  for (let t = 0; t < SW; t++) {
    sweep()
    if (t >= SW - AVG) { sync(); const phi = phiFromCounts(s.nwk, K, V, B); for (let i = 0; i < avg.length; i++) avg[i] += phi[i] / AVG }
  }
  sync(); close()
  const phi = phiFromCounts(s.nwk, K, V, B)
  console.log(`W=${W} seed ${seed}: joint LL ${jointLogLikelihood(s, A, B).toFixed(0)}  ppl(final φ) ${ppl(phi).toFixed(1)}  ppl(φ averaged over last ${AVG}) ${ppl(avg).toFixed(1)}  mean H(φ_k) ${entropy(phi).toFixed(3)}`)
}
process.exit(0)
