// One config for the three builds and the tests:
// - `vite build` (npm run build:renderer): renderer/index.html into dist/renderer, with relative
//   asset paths so the files load from the app:// protocol (Electron) and the preview server alike;
// - `vite build --mode main` (npm run build:main): the main process, main/index.ts into
//   dist/main/index.mjs, one ES module with every dependency inside except `electron` (Electron's
//   own) and `keytar` (native, shipped unpacked beside the asar);
// - `vite build --mode preload` (npm run build:preload): preload/index.ts into dist/preload/index.cjs,
//   one CommonJS file, as a sandboxed preload must be (it may require only `electron`);
// - vitest: the tests, found from the repository root.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { UserConfig } from 'vite';
import { defineConfig } from 'vitest/config';

const fromRoot = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
/** Absolute, so a build started from another working directory finds it too. */
const repoRoot = fromRoot('.');

/** Modules the main process and preload take from Electron's runtime rather than the bundle. */
const RUNTIME_MODULES = ['electron', 'keytar'];

/** A Node-side bundle (main or preload): one file, everything inlined but the runtime's modules. */
function nodeBundle(entry: string, outDir: string, fileName: string, format: 'es' | 'cjs'): UserConfig {
  return {
    root: repoRoot,
    // No .env files or public dir: nothing outside the sources goes in.
    envDir: false,
    publicDir: false,
    ssr: { noExternal: true, external: RUNTIME_MODULES },
    build: {
      ssr: fromRoot(entry),
      outDir: fromRoot(outDir),
      emptyOutDir: true,
      target: 'node22',
      minify: false,
      rollupOptions: {
        external: RUNTIME_MODULES,
        output: { format, entryFileNames: fileName, codeSplitting: false },
      },
    },
  };
}

export default defineConfig(({ mode }) => {
  if (mode === 'main') return nodeBundle('main/index.ts', 'dist/main', 'index.mjs', 'es');
  if (mode === 'preload') return nodeBundle('preload/index.ts', 'dist/preload', 'index.cjs', 'cjs');
  return {
    plugins: [react()],
    root: fromRoot('renderer'),
    base: './',
    build: {
      outDir: fromRoot('dist/renderer'),
      emptyOutDir: true,
    },
    test: {
      root: repoRoot,
      include: ['{main,preload,renderer,simulator,test}/**/*.test.{ts,tsx}'],
      // Each test file gets its own HOME and XDG folders: tests never touch the user's files; a
      // file with a DOM waits for it as long on a loaded machine as on a quiet one, and may have
      // React's renders come late on purpose (test/support/late-renders.ts, before React loads).
      setupFiles: [
        'test/support/late-renders.ts',
        'test/support/hermetic-home.ts',
        'test/support/dom-waits.ts',
      ],
      testTimeout: 20_000,
      hookTimeout: 20_000,
    },
  };
});
