// `npm run dist`: electron-builder with electron-builder.yml, the command line passed on (targets,
// options). The update feed comes from SELLER_TRAY_UPDATE_URL (docs/desktop-shell.md, "Updates"): set, the build
// carries it (app-update.yml) and the app updates itself from it; unset, it is built from
// electron-builder.no-updates.yml instead, without a feed, and the app has no updater (About says so).
// `--fleet` builds the per-machine installers from electron-builder.fleet.yml, which IT updates
// (docs/administrators.md): never with a feed.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const fleet = args.includes('--fleet');
const url = fleet ? '' : (process.env.SELLER_TRAY_UPDATE_URL?.trim() ?? '');
if (url !== '' && !url.startsWith('https://')) {
  // An AppImage update is checked only against the feed's sha512: the feed must come over TLS.
  console.error(`SELLER_TRAY_UPDATE_URL must be an https:// address, not ${url}`);
  process.exit(2);
}
if (url === '' && !fleet) {
  console.log(
    'SELLER_TRAY_UPDATE_URL is not set: building without an update feed (the app will not update itself).',
  );
}
const config = fleet
  ? ['--config', 'electron-builder.fleet.yml']
  : url === ''
    ? ['--config', 'electron-builder.no-updates.yml']
    : [];
const result = spawnSync('electron-builder', [...config, ...args.filter((arg) => arg !== '--fleet')], {
  stdio: 'inherit',
  // npm puts node_modules/.bin on PATH; Windows finds electron-builder.cmd through the shell.
  shell: process.platform === 'win32',
});
process.exit(result.status ?? 1);
