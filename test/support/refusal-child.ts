// A store whose one mark the marketplace refuses and the user sends again, over and over: each
// change moves the mark between the journal's two files (seller-tray.journal.json and
// seller-tray.refused.json), for a test to kill the process between their writes.
import { AccountStore } from '../../main/core/store/account-store';

const [dataDir] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: refusal-child <data dir>');
const { store } = AccountStore.open(dataDir);
const mark = {
  requestId: '7d203e3c-af91-4e30-9c73-5b3b1e3f4a21',
  orderId: 'o-1',
  statusCode: 'ProvisioningCompleted' as const,
  description: 'Done',
  createdAt: '2026-11-22T00:00:00Z',
  attempts: 1,
};
store.putOutboxItem({ ...mark, state: 'failed' });
process.stdout.write('moving\n');
for (;;) {
  store.putOutboxItem({ ...mark, state: 'pending' });
  store.putOutboxItem({ ...mark, state: 'failed' });
}
