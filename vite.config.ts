import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

/** The repository root: the tests are found from here, whatever the renderer build's root is. */
const repoRoot = fileURLToPath(new URL('.', import.meta.url));
/** Absolute, so a build started from another working directory finds it too. */
const rendererRoot = fileURLToPath(new URL('./renderer', import.meta.url));

export default defineConfig({
  plugins: [react()],
  // The renderer build (`npm run build:renderer`): renderer/index.html into dist/renderer, with
  // relative asset paths so the files load from disk (Electron) and from the preview server alike.
  root: rendererRoot,
  base: './',
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
  },
  test: {
    root: repoRoot,
    include: ['{main,preload,renderer,simulator,test}/**/*.test.{ts,tsx}'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
