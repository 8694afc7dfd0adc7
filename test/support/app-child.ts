// The app's service opened as the app opens it (openAppService: its folder, log file, settings file
// and keychain) in a process of its own, for the test to kill (kill -9) with its accounts' first
// starts or polls under way. Each order it announces is printed as "arrived <id>" as it is. It runs
// until killed; with `--once` it checks now once (as the start's poll ends), closes and exits.
import { openAppService } from '../../main/app-service';

const [dataRoot = '', once] = process.argv.slice(2);
const { service, demo, policies } = await openAppService(dataRoot);
service.onEvent((event) => {
  if (event.type === 'orders-arrived') for (const id of event.orderIds) console.log(`arrived ${id}`);
});
service.listening();
if (once === '--once') {
  await service.handle('checkNow', undefined);
  await service.close();
  await demo.stop();
  policies.close();
} else {
  setInterval(() => undefined, 60_000); // wait to be killed
}
