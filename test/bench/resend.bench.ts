// What one "Send again" of a status the marketplace lost costs (issue 26), with a short history
// (about 1,000 events) and a long one (about 100,000): the check that it is really absent reads
// the events listing back from its end to an hour before the post (or the order's purchase), then
// the status is posted once. Counted at the simulator, the first start's backlog read before.
// `npx tsx test/bench/resend.bench.ts`
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adviceFor } from '../../main/core/advice';
import { SellerApiClient } from '../../main/core/api/client';
import { SellerCore } from '../../main/core/seller-core';
import { UNCONFIRMED_AFTER_POLLS } from '../../main/core/store/account-store';
import { ManualTimers } from '../support/core';
import { spawnSimulator } from '../support/processes';
import { admin } from '../support/raw-api';
import { appDefaults } from './app-defaults';

/** The app's defaults but undo: the mark Send again repeats must first be posted, and lost. */
const SETTINGS = appDefaults(
  'resend.bench',
  {},
  {
    settings: { undoSeconds: 0 },
    why: "the first post of the mark goes out at once rather than after its grace, which this bench's timers never end; Send again itself has no grace",
  },
);

type Counts = Record<string, number>;

async function measure(orders: number) {
  const { url, child } = await spawnSimulator(['--orders', String(orders), '--seed', '3']);
  const dataDir = await mkdtemp(join(tmpdir(), 'resend-bench-'));
  const requests = async () => (await admin(url, 'GET', 'state')).json.requests as Counts;
  try {
    const client = new SellerApiClient({
      baseUrl: url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    });
    const core = await SellerCore.open({
      advice: adviceFor('app'),
      client,
      dataDir,
      settings: SETTINGS.read,
      timers: new ManualTimers(),
    });
    await core.start();
    await core.backlogRead();
    const [waiting] = core.orders({ filter: 'ProvisioningStarted', search: '', offset: 0, limit: 1 }).rows;
    // The marketplace answers the post as stored and never lists it.
    await admin(url, 'PATCH', 'faults', { quirks: ['lost-posts'] });
    const item = await core.markStatus({
      orderId: waiting?.orderId ?? '',
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning started by the benchmark.',
    });
    await core.deliverOutbox();
    for (let poll = 0; poll <= UNCONFIRMED_AFTER_POLLS; poll++) await core.checkNow();
    await admin(url, 'PATCH', 'faults', { quirks: [] });
    const events = (await admin(url, 'GET', 'state')).json.sellers[0].events as number;
    const before = await requests();
    const started = performance.now();
    const { outcome } = await core.resendStatus(item.requestId);
    await core.deliverOutbox();
    const ms = performance.now() - started;
    const after = await requests();
    await core.close();
    const spent = Object.fromEntries(
      Object.entries(after)
        .map(([operation, n]) => [operation, n - (before[operation] ?? 0)])
        .filter(([, n]) => n !== 0),
    );
    return { events, outcome, ...spent, ms: Math.round(ms) };
  } finally {
    child.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
}

console.log('One Send again of a lost status: requests at the simulator and time, the check and the post');
console.log(SETTINGS.differs);
console.table({ short: await measure(420), long: await measure(42_000) });
process.exit(0);
