// Check now with one account down (issue 23): how long the answer takes while the app serves an
// account that answers beside one whose marketplace refuses connections, one that answers 503 with
// a Retry-After of 30 s, or one that takes connections and never answers (the client's 15 s
// timeout). Each case in a service of its own, Check now asked 3 times (CHECKS) after the first polls.
//   npx tsx test/bench/check-now.bench.ts
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SellerTrayService } from '../../main/core/service';
import { ConfSettingsStore } from '../../main/core/settings';
import { startSimulator } from '../../simulator/server';
import { admin } from '../support/raw-api';
import { memorySecrets } from '../support/shell-fakes';
import { appDefaults } from './app-defaults';

const CLIENT = { clientId: 'bench-client', clientSecret: 'bench-secret' };
const CHECKS = Number(process.env.CHECKS ?? 3);

const marketplace = () =>
  startSimulator({ port: 0, seed: 3, sellers: [{ sellerId: 9001, orders: 20, clients: [CLIENT] }] });

/** A server that takes connections and never answers. */
async function blackHole(): Promise<{ url: string; server: Server }> {
  const server = createServer(() => {});
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function checkTimes(upUrl: string, downUrl: string): Promise<number[]> {
  const dataRoot = await mkdtemp(join(tmpdir(), 'check-now-bench-'));
  const secrets = memorySecrets();
  const settings = new ConfSettingsStore({ cwd: dataRoot });
  const accounts = [
    { label: 'Up', baseUrl: upUrl, clientId: CLIENT.clientId },
    { label: 'Down', baseUrl: downUrl, clientId: CLIENT.clientId },
  ];
  settings.save(appDefaults('check-now.bench', { accounts }).read());
  for (const a of accounts)
    await secrets.set({ origin: new URL(a.baseUrl).origin, clientId: a.clientId }, CLIENT.clientSecret);
  const service = await SellerTrayService.open({ settings, secrets, dataRoot });
  const times: number[] = [];
  try {
    for (let i = 0; i < CHECKS; i++) {
      const started = performance.now();
      await service.handle('checkNow', undefined);
      times.push(Math.round(performance.now() - started));
    }
  } finally {
    await service.close();
    await rm(dataRoot, { recursive: true, force: true });
  }
  return times;
}

const up = await marketplace();
const refusing = await marketplace();
await refusing.close();
const slowDown = await marketplace();
await admin(slowDown.url, 'PATCH', 'faults', {
  script: [{ operation: 'listEvents', action: 'status', status: 503, retryAfterSeconds: 30, times: 1000 }],
});
const hole = await blackHole();
try {
  const rows = [];
  for (const [name, url] of [
    ['refuses connections', refusing.url],
    ['503, Retry-After 30 s', slowDown.url],
    ['never answers', hole.url],
  ] as const) {
    const times = await checkTimes(up.url, url);
    console.log(`${name}: ${times.join(', ')} ms`); // as it comes: a slow case may take minutes
    rows.push({ 'the account down': name, 'Check now ms, each': times.join(', ') });
  }
  console.table(rows);
} finally {
  await up.close();
  await slowDown.close();
  hole.server.closeAllConnections();
  hole.server.close();
}
process.exit(0);
