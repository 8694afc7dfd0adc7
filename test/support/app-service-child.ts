// The app's service opened as the app opens it (openAppService: its folder, log file, settings file
// and keychain) in a process of its own, for a test that runs it where the test itself cannot (a
// read-only mount): checks now once, prints what it served and told as one JSON line, and closes.
import { openAppService } from '../../main/app-service';

const [dataRoot = ''] = process.argv.slice(2);
const { service, demo, policies } = await openAppService(dataRoot);
const problems: string[] = [];
service.onEvent((event) => {
  if (event.type === 'problem') problems.push(event.message);
});
service.listening();
await service.handle('checkNow', undefined);
const orders = await service.handle('listOrders', { backlog: 'shown' });
const state = service.state();
console.log(
  JSON.stringify({
    setup: state.setup,
    accounts: state.accounts.map((a) => ({ label: a.label, open: a.open, problem: a.problem?.message })),
    orders: orders.ok ? orders.value.total : orders.error.message,
    problems,
  }),
);
await service.close();
await demo.stop();
policies.close();
