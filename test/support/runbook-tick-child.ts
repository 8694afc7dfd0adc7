// A laptop process that ticks a runbook step on an order it knows and is then killed by the test
// (kill -9): the tick must be in the store already, as the answer to the window said it was.
import { openChildCore } from './child-core';

const [baseUrl = '', dataDir = '', orderId = '', itemId = '', step = ''] = process.argv.slice(2);
const core = await openChildCore(baseUrl, dataDir);
const ticks = core.tickRunbookStep(orderId, itemId, step, true);
console.log(`ticked ${ticks.length}`);
setInterval(() => undefined, 60_000); // wait to be killed
