#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
int main(int argc, char** argv) {
  uint64_t s[24]; for (int j = 0; j < 24; j++) s[j] = 88172645463325252ull + j;
  long n = argc > 1 ? atol(argv[1]) : 20000000;
  struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < n; i++) for (int j = 0; j < 24; j++) { uint64_t x = s[j]; x ^= x << 13; x ^= x >> 7; x ^= x << 17; s[j] = x; }
  clock_gettime(CLOCK_MONOTONIC, &b);
  uint64_t r = 0; for (int j = 0; j < 24; j++) r ^= s[j];
  fprintf(stderr, "%llu\n", (unsigned long long) r);
  struct timespec c; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c); printf("{\"ms\": %f, \"cpuMs\": %f}\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6, c.tv_sec * 1e3 + c.tv_nsec / 1e6);
}
