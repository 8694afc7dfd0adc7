// `npm run dist`: electron-builder with electron-builder.yml, the command line passed on (targets,
// options). The update feed comes from SELLER_TRAY_UPDATE_URL (docs/desktop-shell.md, "Updates"): set, the build
// carries it (app-update.yml) and the app updates itself from it; unset, it is built from
// electron-builder.no-updates.yml instead, without a feed, and the app has no updater (About says so).
import { spawnSync } from 'node:child_process';

const url = process.env.SELLER_TRAY_UPDATE_URL?.trim() ?? '';
if (url !== '' && !url.startsWith('https://')) {
  // An AppImage update is checked only against the feed's sha512: the feed must come over TLS.
  console.error(`SELLER_TRAY_UPDATE_URL must be an https:// address, not ${url}`);
  process.exit(2);
}
if (url === '') {
  console.log(
    'SELLER_TRAY_UPDATE_URL is not set: building without an update feed (the app will not update itself).',
  );
}
const config = url === '' ? ['--config', 'electron-builder.no-updates.yml'] : [];
const result = spawnSync('electron-builder', [...config, ...process.argv.slice(2)], {
  stdio: 'inherit',
  // npm puts node_modules/.bin on PATH; Windows finds electron-builder.cmd through the shell.
  shell: process.platform === 'win32',
});
process.exit(result.status ?? 1);
