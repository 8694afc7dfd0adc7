// Another process on an account's folder that comes and goes between two reads of the app: it
// opens the store (registering on the folder as every Seller Tray process does), opens an
// arrival, closes the store and ends, as a CLI command does.
import { AccountStore } from '../../main/core/store/account-store';

const [folder = '', orderId = ''] = process.argv.slice(2);
const { store } = AccountStore.open(folder);
const opened = store.markOpened(orderId, new Date().toISOString());
store.close();
console.log(opened ? 'opened' : 'not opened');
