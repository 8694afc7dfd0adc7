// What exactly-once posting and early-lapsing tokens cost, in marketplace requests (issue 20):
// a status delivered on a marketplace that does not deduplicate X-Request-ID, plainly, after its
// answer was lost once the marketplace stored it, and after its connection dropped before; and
// polls behind a gateway that lets tokens lapse a second after issue. Each delivery must store
// exactly one event. Run: npx tsx test/bench/gateway.bench.ts
import { startSimulator } from '../../simulator/server';
import { openLaptop, removeDataDir } from '../support/core';
import { admin } from '../support/raw-api';
import { appDefaults } from './app-defaults';

const sim = await startSimulator({ port: 0, seed: 3, orders: 1000 });
const requests = () => Object.values(sim.requestCounts).reduce((a, b) => a + b, 0);
const { settings, differs } = appDefaults(
  'gateway.bench',
  {},
  {
    settings: { undoSeconds: 0 },
    why: "a delivery's requests are counted, not its grace period",
  },
);
console.log(differs);
const laptop = await openLaptop(sim.url, undefined, { settings });
laptop.core.start();
await laptop.core.checkNow();
await laptop.core.backlogRead();
await admin(sim.url, 'PATCH', 'faults', { quirks: ['non-idempotent-posts'] });
const orderIds = sim.store.listOrderJson(1001, 0, 3).items.map((json) => JSON.parse(json).orderId as string);

let failures = 0;
async function deliver(orderId: string, label: string, fault?: 'dropAfterHandling' | 'drop') {
  if (fault) await admin(sim.url, 'PATCH', 'faults', { script: [{ operation: 'sendEvent', action: fault }] });
  const before = requests();
  laptop.core.markStatus({
    orderId,
    statusCode: 'ProvisioningInProgress',
    description: label,
    override: true,
  });
  await laptop.core.deliverOutbox();
  await laptop.core.deliverOutbox();
  const stored = sim.store.listEvents(1001, 0, 1e9).items.filter((e) => e.description === label).length;
  if (stored !== 1) failures += 1;
  console.log(`${label.padEnd(50)} ${requests() - before} requests, ${stored} event(s) stored`);
}
await deliver(orderIds[0] ?? '', 'a status delivered plainly');
await deliver(orderIds[1] ?? '', 'answer lost after the marketplace stored it', 'dropAfterHandling');
await deliver(orderIds[2] ?? '', 'connection dropped before the marketplace had it', 'drop');

await admin(sim.url, 'PATCH', 'faults', { quirks: ['gateway-403'], script: [] });
const polls = 5;
const tokens = sim.requestCounts.createToken;
const before = requests();
for (let i = 0; i < polls; i++) {
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  await laptop.core.checkNow();
}
const ok = laptop.core.status().connection === 'ok';
if (!ok) failures += 1;
console.log(
  `${polls} polls 1.2 s apart behind gateway-403: ${((requests() - before) / polls).toFixed(1)} requests per poll (2 without the gateway), ${sim.requestCounts.createToken - tokens} token requests, connection ${laptop.core.status().connection}`,
);
await removeDataDir(laptop);
await sim.close();
process.exitCode = failures > 0 ? 1 : 0;
