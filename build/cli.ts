// `npm run build:cli`: the command line bundled into one ES module that runs on plain Node 22
// (dist/cli/seller-tray.mjs, the package's `seller-tray`), keytar left out as it is native.
// Its CommonJS dependencies (undici) require Node's own modules, which an ES module cannot: the
// banner gives the bundle a `require` of its own, which esbuild's shim then uses. `--outfile=PATH`
// writes it elsewhere (the test that runs the built file).
import { build } from 'esbuild';

const outfile =
  process.argv.find((arg) => arg.startsWith('--outfile='))?.slice('--outfile='.length) ??
  'dist/cli/seller-tray.mjs';

await build({
  entryPoints: ['main/cli/seller-tray.ts'],
  bundle: true,
  external: ['keytar'],
  platform: 'node',
  format: 'esm',
  target: 'node22',
  outfile,
  banner: {
    js: [
      '#!/usr/bin/env node',
      "import { createRequire as __sellerTrayRequire } from 'node:module';",
      'const require = __sellerTrayRequire(import.meta.url);',
    ].join('\n'),
  },
  logLevel: 'warning',
});
