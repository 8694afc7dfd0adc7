// The app's service opened as the app opens it (openAppService: its folder, log file, settings file
// and keychain) in a process of its own, left running for the test to kill (kill -9): its accounts'
// first starts, or polls, under way. Each order it announces is printed as "arrived <id>".
import { openAppService } from '../../main/app-service';

const [dataRoot = ''] = process.argv.slice(2);
const { service } = await openAppService(dataRoot);
service.onEvent((event) => {
  if (event.type === 'orders-arrived') for (const id of event.orderIds) console.log(`arrived ${id}`);
});
console.log('opened');
setInterval(() => undefined, 60_000); // wait to be killed
