import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{main,preload,renderer,simulator,test}/**/*.test.{ts,tsx}'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
