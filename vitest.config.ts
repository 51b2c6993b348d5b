import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the browser tests run on their own (npm run test:browser, test/e2e/vitest.config.ts)
    exclude: [...configDefaults.exclude, 'test/e2e/**'],
    testTimeout: 60_000,
    // removes the dpaudit-* temp folders a run leaves behind (see the file)
    globalSetup: ['test/setup/tmp.ts'],
    // one fixed fast-check seed for the whole suite (FC_SEED=random explores; see the file)
    setupFiles: ['test/setup/fast-check-seed.ts'],
  },
})
