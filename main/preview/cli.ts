// `npm run preview`: Seller Tray in the browser, for machines without Electron. A first
// start shows onboarding, as the desktop app does; "Try the demo" there runs the built-in
// demo marketplace.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openAppService } from '../app-service';
import { nodeNetwork } from '../core/api/node-transport';
import { ensurePrivateDir, FolderOfAnotherUserError, userDataDir } from '../core/paths';
import { startPreview } from './server';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '4700' }, 'data-dir': { type: 'string' } },
  strict: true,
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error('preview: --port must be a port number (0 picks a free one)');
  process.exit(2);
}

// Stopped (Ctrl+C, a session ending), from the start on: it exits once the store is closed (the
// core waits, bounded, for the work under way), so no commit is left only in its -wal file.
const stopped = new Promise<void>((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
});

const dataRoot = values['data-dir'] ?? userDataDir();
// The corporate network's proxy and authorities, as the desktop app has them from Chromium.
const { service, demo, policies } = await openAppService(dataRoot, {
  ...nodeNetwork(),
  // "Export statuses": no save dialog reaches the user's screen from here: the file goes to the
  // data folder's exports/, and the window says where.
  saveFile: async (name, content) => {
    const folder = join(dataRoot, 'exports');
    ensurePrivateDir(folder);
    await writeFile(join(folder, name), content);
    return join(folder, name);
  },
}).catch((error: unknown) => {
  // A data folder not used (another user's): its words alone, as the CLI says them.
  if (!(error instanceof FolderOfAnotherUserError)) throw error;
  console.error(`preview: ${error.message}`);
  process.exit(1);
});
service.onEvent((event) => {
  if (event.type === 'problem') console.error(`preview: ${event.message}`);
});
if (service.state().setup === 'unconfigured') {
  console.log('No marketplace is set up yet: the window asks for one, or offers the demo.');
}
const preview = await startPreview({
  service,
  rendererDir: fileURLToPath(new URL('../../dist/renderer', import.meta.url)),
  port,
});
// Its stream and the problems printed above subscribed: what the start told is kept no longer.
service.listening();
console.log(`Seller Tray preview: ${preview.url}`);

await stopped;
policies.close();
await Promise.all([service.close(), preview.close()]);
await demo.stop();
process.exit(0);
