import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Test files of pure library code (accounting, mechanisms, core, paper claims): no mocks, spies,
 * signals, child processes or worker pools, and no module state a test depends on. They share one
 * module registry per worker (isolate: false), which spares each file a fresh worker and a fresh
 * import of the sources and dependencies: about 1.1 s of CPU per file on the 2-core machine
 * (20 light files: 31.4 s of CPU isolated, 9.8 s shared; see the commit). Every other file keeps
 * its own worker (vi.mock, process handlers, spawned children, worker pools);
 * test/setup/shared-project.test.ts keeps mocks, spies and process state out of the shared files.
 */
export const SHARED_DIRS = ['accounting', 'mechanisms', 'core', 'claims']
const SHARED = SHARED_DIRS.map((d) => `test/${d}/**/*.test.ts`)

/** What both projects share (the run's temp folder, globalSetup, is made once, at the root). */
const common = {
  testTimeout: 60_000,
  // one fixed fast-check seed for the whole suite (FC_SEED=random explores; see the file)
  setupFiles: ['test/setup/fast-check-seed.ts'],
}

export default defineConfig({
  test: {
    // the run's own temp folder, removed at the end (see the file)
    globalSetup: ['test/setup/tmp.ts'],
    // vitest's default is one worker less than the cores: a single worker on 2 cores, where the
    // suite then used ~1.25 cores (user+sys 657 s over 529 s wall). Two workers use both.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { test: { ...common, name: 'shared', include: SHARED, isolate: false } },
      {
        test: {
          ...common,
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          // the browser tests run on their own (npm run test:browser, test/e2e/vitest.config.ts)
          exclude: [...configDefaults.exclude, 'test/e2e/**', ...SHARED],
        },
      },
    ],
  },
})
