// `npm start`: the app in development. Electron fetches its binary on first use; where it
// cannot (no internet, as on the build machines), this says so and names the way that
// works without it instead of failing with a download trace. A stop is passed on to the app.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let electronBinary: string;
try {
  electronBinary = require('electron') as string;
} catch (error) {
  console.error(
    `Seller Tray: Electron's binary is not installed and could not be fetched (${(error as Error).message.split('\n')[0]}).\n` +
      'Run the app in the browser instead: npm run preview',
  );
  process.exit(1);
}
// A stop of `npm start` (SIGTERM, Ctrl+C) reaches the app, which quits as from its menu (closing
// its store first); this process ends when the app has. Listening before the app starts leaves
// no moment when a stop would end this process alone (the listeners run once `child` is set).
let child: ChildProcess | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child?.kill(signal));
child = spawn(electronBinary, ['.'], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 1));
