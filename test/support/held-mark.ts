// A status the app marked and did not send: its account's store opened as the app opens it, an
// order marked, and the store closed within the time to undo, so the status waits in the store
// to be delivered (what `accounts remove` counts before it removes an account).
import type { AccountRef } from '../../main/core/account/account-ref';
import { AccountSession } from '../../main/core/account/session';
import { DEFAULT_SETTINGS } from '../../main/core/settings';

/** The account's store as the app opens it, each mark held a minute (so it stays undelivered). */
export function openHolding(ref: AccountRef, dataRoot: string, clientSecret: string) {
  return AccountSession.open(ref, {
    surface: 'app',
    dataRoot,
    clientSecret: async () => clientSecret,
    settings: () => ({ ...DEFAULT_SETTINGS, undoSeconds: 60 }),
  });
}

/** Marks the account's first order and closes its store; answers the order's id. */
export async function markHeld(ref: AccountRef, dataRoot: string, clientSecret: string): Promise<string> {
  const session = await openHolding(ref, dataRoot, clientSecret);
  await session.core.start();
  const [order] = session.core.orders({ filter: 'all', search: '', offset: 0, limit: 1 }).rows;
  if (!order) throw new Error('no order');
  await session.core.markStatus({
    orderId: order.orderId,
    statusCode: 'ProvisioningInProgress',
    description: 'Provisioning started by Anna.',
  });
  await session.close();
  return order.orderId;
}
