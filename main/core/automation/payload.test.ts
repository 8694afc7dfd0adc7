// The order JSON an automation sends is made from the store's JSON text, not from the order
// parsed and written again: byte for byte what JSON.stringify of the whole payload gives, for a
// hostile order (markup, controls, separators, a lone surrogate, a key JSON.parse moves first),
// with its licenses or before they are read; and its signature covers those bytes.
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AutomationRun } from '../../../preload/automations';
import { hostileOrder } from '../../../test/support/hostile-order';
import { pollOnePurchase } from '../../../test/support/store-files';
import type { License, Order } from '../api/wire';
import { AccountStore } from '../store/account-store';
import { payloadBody, payloadHead, signature } from './payload';

const ORDER_ID = '7d3f5a52-3c8e-4a8e-9d6b-2f1e0c4b9a11';
let dir: string;
let store: AccountStore;
/** The order's run as the store queued it with its purchase. */
let run: AutomationRun;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payload-'));
  store = AccountStore.open(dir).store;
  pollOnePurchase(store, ORDER_ID, '2026-11-26T10:00:01.000Z', ['provision "everything"']);
  const [queued] = store.runsFor(ORDER_ID);
  if (!queued) throw new Error('no run was queued');
  run = queued;
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

const account = { id: 'a1', label: 'demo-client at 127.0.0.1', baseUrl: 'http://127.0.0.1:1' };
// As fetch hands it over: parsed from the marketplace's JSON.
const order = JSON.parse(
  JSON.stringify({
    ...hostileOrder,
    orderId: ORDER_ID,
    note: 'half a pair \ud800 and a \u2028 break',
    extensions: { b: 1, '10': 'moved first by JSON.parse', a: [1.5, -0, 1e21, null] },
  }),
) as Order;
const licenses = [{ licenseId: 'l1', orderId: ORDER_ID, note: '</script>' }] as unknown as License[];

/** The order JSON as JSON.stringify makes it of the whole payload, the order parsed from the store. */
function whole(status: string | undefined): string {
  const stored = store.storedOrder(ORDER_ID);
  return JSON.stringify({
    ...payloadHead({ run, attempt: 1, account, named: false, status }),
    order: stored?.document,
    licenses: stored?.licenses ?? [],
  });
}

it('is the whole payload byte for byte, made from the stored JSON text', () => {
  store.saveOrder(ORDER_ID, order, licenses, run.queuedAt);
  const stored = store.storedOrderJson(ORDER_ID);
  if (!stored?.document) throw new Error('the order was not stored');
  const body = payloadBody(
    payloadHead({ run, attempt: 1, account, named: false, status: 'ProvisioningStarted' }),
    stored.document,
    stored.licenses,
  );
  expect(body.toString('utf8')).toBe(whole('ProvisioningStarted'));
  expect(JSON.parse(body.toString('utf8'))).toMatchObject({
    version: 1,
    attempt: 1,
    orderId: ORDER_ID,
    licenses: [{ licenseId: 'l1' }],
  });
});

it('sends no licenses as an empty list before they are read', () => {
  const head = payloadHead({ run, attempt: 1, account, named: false, status: undefined });
  const body = JSON.parse(payloadBody(head, JSON.stringify(order), null).toString('utf8'));
  expect(body.licenses).toEqual([]);
  expect(body.status).toBeNull();
});

it('signs the bytes sent: the HMAC of "<t>.<body>" as a receiver computes it from the text', () => {
  const text = JSON.stringify({ buyer: hostileOrder.buyerCustomerParty.party.partyName, euro: '€' });
  const expected = createHmac('sha256', 'whsec_test').update(`1764151200.${text}`).digest('hex');
  expect(signature('whsec_test', Buffer.from(text), 1764151200)).toBe(`t=1764151200,v1=${expected}`);
});

it("links the order as the app's Copy link does: naming the account only while several are served", () => {
  const head = (named: boolean) => payloadHead({ run, attempt: 1, account, named, status: undefined });
  expect(head(false).link).toBe(`seller-tray://order/${ORDER_ID}`);
  // The label is not plain (spaces): the link names the account by its id.
  expect(head(true).link).toBe(`seller-tray://order/a1/${ORDER_ID}`);
  const eu = { ...account, label: 'EU' };
  expect(payloadHead({ run, attempt: 1, account: eu, named: true, status: undefined }).link).toBe(
    `seller-tray://order/EU/${ORDER_ID}`,
  );
});
