// The demo's marketplace file (demo-marketplace.json in the user data folder) damaged: the app
// still starts in demo mode, keeps the damaged file aside, says so, and serves a new demo
// marketplace. The app's service as the app opens it, in a process of its own.
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runTs } from './support/processes';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'demo-damage-'));
});
afterAll(() => rm(home, { recursive: true, force: true }));

it.each([
  ['cut short', (file: string) => truncateSync(file, Math.floor(statSync(file).size / 2))],
  ['JSON but not a marketplace', (file: string) => writeFileSync(file, '{"version": 1}')],
])(
  'a demo marketplace file %s is kept aside and told; the demo starts afresh',
  async (_, damage) => {
    const dataRoot = join(home, _.replaceAll(' ', '-'));
    await mkdir(dataRoot);
    writeFileSync(join(dataRoot, 'settings.json'), JSON.stringify({ settingsVersion: 2, demoMode: true }));
    const start = () => runTs('test/support/app-service-child.ts', [dataRoot], { XDG_CONFIG_HOME: home });
    const first = await start();
    expect(first.code, first.stderr).toBe(0);
    const file = join(dataRoot, 'demo-marketplace.json');
    damage(file);
    const damaged = readFileSync(file);

    const again = await start();
    expect(again.code, again.stderr).toBe(0);
    const started = JSON.parse(again.stdout);
    expect(started).toMatchObject({ setup: 'demo', orders: 25 });
    expect(started.problems).toEqual([
      expect.stringMatching(
        /^The demo marketplace's file could not be read .*; it was kept as .*demo-marketplace\.json\.damaged-\S+ and a new demo marketplace started/,
      ),
    ]);
    const aside = readdirSync(dataRoot).filter((name) => name.startsWith('demo-marketplace.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dataRoot, aside[0] ?? ''))).toEqual(damaged);
    expect(existsSync(file)).toBe(true);
  },
  60_000,
);
