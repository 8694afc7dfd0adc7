// A laptop process that polls once and is then killed by the test (kill -9), which watches its
// journal or its output for the moment: each order it announces is printed as "arrived <id>".
import { openChildCore } from './child-core';

const [baseUrl = '', dataDir = ''] = process.argv.slice(2);
const core = await openChildCore(baseUrl, dataDir);
core.on((event) => {
  if (event.type === 'orders-arrived') for (const id of event.orderIds) console.log(`arrived ${id}`);
});
await core.start();
console.log('polled');
setInterval(() => undefined, 60_000); // wait to be killed
