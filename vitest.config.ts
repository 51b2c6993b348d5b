import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // removes the dpaudit-* temp folders a run leaves behind (see the file)
    globalSetup: ['test/setup/tmp.ts'],
  },
})
