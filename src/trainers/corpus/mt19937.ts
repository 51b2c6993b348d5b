/**
 * numpy's legacy `RandomState(seed).permutation(n)`, bit for bit: MT19937 seeded with
 * `init_genrand(seed)` (numpy's `_legacy_seeding` for an integer seed), and the Fisher–Yates
 * shuffle of `np.arange(n)` drawing j ∈ [0, i] by masked rejection on 32-bit outputs
 * (numpy `random_interval`). The reference protocol (docs/trainers.md § The reference protocol and
 * figures, step 3) splits the corpora with it, so dpaudit's Brown and SpamAssassin test sets are the
 * reference ones.
 *
 * @module
 */

const N = 624
const M = 397

/** The 32-bit Mersenne Twister (Matsumoto & Nishimura 1998), as in numpy's randomkit. */
export class Mt19937 {
  private readonly mt = new Uint32Array(N)
  private mti = N + 1

  constructor(seed: number) {
    const mt = this.mt
    mt[0] = seed >>> 0
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] as number
      const x = prev ^ (prev >>> 30)
      // 1812433253 * x + i in 32-bit arithmetic, split to stay exact in doubles.
      mt[i] = ((((x & 0xffff0000) >>> 16) * 1812433253) << 16) + (x & 0x0000ffff) * 1812433253 + i
    }
    this.mti = N
  }

  /** The next 32-bit output, as an unsigned integer. */
  nextUint32(): number {
    const mt = this.mt
    if (this.mti >= N) {
      let kk = 0
      for (; kk < N - M; kk++) {
        const y = ((mt[kk] as number) & 0x80000000) | ((mt[kk + 1] as number) & 0x7fffffff)
        mt[kk] = (mt[kk + M] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)
      }
      for (; kk < N - 1; kk++) {
        const y = ((mt[kk] as number) & 0x80000000) | ((mt[kk + 1] as number) & 0x7fffffff)
        mt[kk] = (mt[kk + (M - N)] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)
      }
      const y = ((mt[N - 1] as number) & 0x80000000) | ((mt[0] as number) & 0x7fffffff)
      mt[N - 1] = (mt[M - 1] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)
      this.mti = 0
    }
    let y = mt[this.mti++] as number
    y ^= y >>> 11
    y ^= (y << 7) & 0x9d2c5680
    y ^= (y << 15) & 0xefc60000
    y ^= y >>> 18
    return y >>> 0
  }

  /** Uniform integer in [0, max] by masked rejection (numpy `random_interval`, max < 2^32). */
  interval(max: number): number {
    if (max === 0) return 0
    let mask = max
    mask |= mask >>> 1
    mask |= mask >>> 2
    mask |= mask >>> 4
    mask |= mask >>> 8
    mask |= mask >>> 16
    mask >>>= 0
    let v: number
    do v = (this.nextUint32() & mask) >>> 0
    while (v > max)
    return v
  }
}

/** `numpy.random.RandomState(seed).permutation(n)` (n < 2^32, seed in [0, 2^32)). */
export const numpyPermutation = (seed: number, n: number): Int32Array => {
  const g = new Mt19937(seed)
  const a = new Int32Array(n)
  for (let i = 0; i < n; i++) a[i] = i
  for (let i = n - 1; i >= 1; i--) {
    const j = g.interval(i)
    const t = a[i] as number
    a[i] = a[j] as number
    a[j] = t
  }
  return a
}
