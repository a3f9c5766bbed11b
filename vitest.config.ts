import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Signing and key derivation are CPU-bound; 2-core CI machines are slow.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
