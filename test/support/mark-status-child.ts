// A laptop process that marks a status and is then killed by the test (kill -9) at the
// worst moment: while the post is in flight, after the server stored it unbeknown to us, or
// while it is held for its grace period (a fifth argument: the seconds to hold it).
import { SellerApiClient } from '../../main/core/api/client';
import { SellerCore } from '../../main/core/seller-core';
import { TEST_SETTINGS } from './core';

const [baseUrl = '', dataDir = '', orderId = '', description = '', undoSeconds = '0'] = process.argv.slice(2);
const client = new SellerApiClient({
  baseUrl,
  credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
  retry: { maxAttempts: 1 },
});
const core = await SellerCore.open({
  client,
  dataDir,
  settings: () => ({ ...TEST_SETTINGS, undoSeconds: Number(undoSeconds) }),
});
const item = await core.markStatus({
  orderId,
  statusCode: 'ProvisioningInProgress',
  description,
  override: true,
});
console.log(`marked ${item.requestId}`);
const outbox = await core.deliverOutbox();
console.log(`delivery ${outbox[0]?.state}`);
setInterval(() => undefined, 60_000); // wait to be killed
