/*
 * The dense C reference of LDA-EVAL.md §4 ("dense CGS in C, -O3, float32, vectorised"), rebuilt so that
 * bench/lda.bench.mjs can time it in the same run as the JavaScript samplers: collapsed Gibbs sampling
 * (Griffiths & Steyvers 2004), every topic's weight (n_dk + α)(n_wk + β)/(n_k + Vβ) in float32 in a loop the
 * compiler vectorises, the draw by a linear scan of the running sum.
 *
 *   dense-cgs IN OUT K SWEEPS ALPHA BETA SEED
 *
 * IN: int32 D, V, N, then docStart[D + 1], tokens[N], z[N] (the initial topics). OUT: int32 z[N] after the sweeps.
 * Prints the sweeps' wall time in milliseconds (initial counts and file I/O untimed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint32_t s0, s1, s2, s3; /* xoshiro128** */
static inline uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }
static inline uint32_t next32(void) {
  uint32_t r = rotl(s1 * 5, 7) * 9, t = s1 << 9;
  s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11);
  return r;
}

static int32_t *readInts(FILE *f, size_t n) {
  int32_t *a = malloc(n * sizeof *a);
  if (a == NULL || fread(a, sizeof *a, n, f) != n) { fprintf(stderr, "dense-cgs: short input\n"); exit(1); }
  return a;
}

int main(int argc, char **argv) {
  if (argc != 8) { fprintf(stderr, "usage: dense-cgs IN OUT K SWEEPS ALPHA BETA SEED\n"); return 2; }
  FILE *in = fopen(argv[1], "rb");
  if (in == NULL) { perror(argv[1]); return 1; }
  const int K = atoi(argv[3]), T = atoi(argv[4]);
  const float alpha = (float)atof(argv[5]), beta = (float)atof(argv[6]);
  uint32_t seed = (uint32_t)strtoul(argv[7], NULL, 10);
  s0 = seed ^ 0x9e3779b9u; s1 = seed * 0x85ebca6bu + 1; s2 = 0xc2b2ae35u; s3 = 0x27d4eb2fu | 1;
  for (int i = 0; i < 16; i++) next32();
  int32_t *hdr = readInts(in, 3);
  const int D = hdr[0], V = hdr[1], N = hdr[2];
  int32_t *docStart = readInts(in, (size_t)D + 1), *tokens = readInts(in, N), *z = readInts(in, N);
  fclose(in);
  int32_t *ndk = calloc((size_t)D * K, sizeof *ndk), *nwk = calloc((size_t)V * K, sizeof *nwk), *nk = calloc(K, sizeof *nk);
  float *p = aligned_alloc(64, ((K + 15) / 16) * 64), *inv = aligned_alloc(64, ((K + 15) / 16) * 64);
  for (int d = 0; d < D; d++)
    for (int i = docStart[d]; i < docStart[d + 1]; i++) { ndk[(size_t)d * K + z[i]]++; nwk[(size_t)tokens[i] * K + z[i]]++; nk[z[i]]++; }
  const float vb = V * beta;
  for (int k = 0; k < K; k++) inv[k] = 1.0f / (nk[k] + vb);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int t = 0; t < T; t++)
    for (int d = 0; d < D; d++) {
      int32_t *nd = ndk + (size_t)d * K;
      for (int i = docStart[d]; i < docStart[d + 1]; i++) {
        int32_t *nw = nwk + (size_t)tokens[i] * K;
        int old = z[i];
        nd[old]--; nw[old]--; nk[old]--; inv[old] = 1.0f / (nk[old] + vb);
        float sum = 0;
        for (int k = 0; k < K; k++) { p[k] = (nd[k] + alpha) * (nw[k] + beta) * inv[k]; sum += p[k]; }
        float x = (float)(next32() * 2.3283064365386963e-10) * sum;
        int k = 0;
        for (; k < K - 1; k++) { x -= p[k]; if (x < 0) break; }
        z[i] = k; nd[k]++; nw[k]++; nk[k]++; inv[k] = 1.0f / (nk[k] + vb);
      }
    }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  FILE *out = fopen(argv[2], "wb");
  if (out == NULL || fwrite(z, sizeof *z, N, out) != (size_t)N) { fprintf(stderr, "dense-cgs: cannot write %s\n", argv[2]); return 1; }
  fclose(out);
  printf("%.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  return 0;
}
