// A laptop process that marks a status and is then killed by the test (kill -9) at the
// worst moment: while the post is in flight, after the server stored it unbeknown to us, or
// while it is held for its grace period (a fifth argument: the seconds to hold it).
import { openChildCore } from './child-core';

const [baseUrl = '', dataDir = '', orderId = '', description = '', undoSeconds = '0'] = process.argv.slice(2);
const core = await openChildCore(baseUrl, dataDir, { undoSeconds: Number(undoSeconds) });
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
