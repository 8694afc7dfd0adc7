// What an automation hands on: the order as one documented, versioned JSON shape (standard input
// of a command, the body of a webhook), the signature a webhook carries (Stripe's scheme: an
// HMAC-SHA256 of "<time>.<body>" with the signing secret), and the few environment variables a
// command gets. docs/automations.md documents all three; change them only with the version.
import { createHmac } from 'node:crypto';
import { AUTOMATION_LIMITS, type AutomationRun } from '../../../preload/automations';
import { isOrderId, orderLink } from '../../../preload/order-link';
import type { License, Order } from '../api/wire';

/** The account as an automation sees it: never its secret or token. */
export interface AutomationAccount {
  id: string;
  /** How people name it: its label, else the client id at the marketplace's host. */
  label: string;
  baseUrl: string;
}

/** The order JSON, version 1. */
export interface OrderPayload {
  version: typeof AUTOMATION_LIMITS.payloadVersion;
  /** order.created for a new order; order.test for `seller-tray automations test`. */
  event: 'order.created' | 'order.test';
  deliveryId: string;
  /** Which attempt of the run this is: 1 for the first (a try cut short by a kill may come again as the same number). */
  attempt: number;
  automation: string;
  /** When the run was queued (the announcement's time), not when this attempt started. */
  createdAt: string;
  account: AutomationAccount;
  orderId: string;
  /**
   * seller-tray://order/<id>, or seller-tray://order/<account>/<id> while several accounts are
   * served (as the app's Copy link): opens the order in the app on any laptop that has it.
   */
  link: string | null;
  /** The order's status as this laptop knows it. */
  status: string | null;
  /** The marketplace's order document and licenses, as it sent them. */
  order: Order;
  licenses: License[];
}

/** The order JSON but the order and its licenses: what the run, the account and this laptop say. */
export type PayloadHead = Omit<OrderPayload, 'order' | 'licenses'>;

export function payloadHead(input: {
  run: AutomationRun;
  /** The attempt being made: the run's attempts so far and this one. */
  attempt: number;
  account: AutomationAccount;
  /** Whether the link names the account (several served: preload/served-account.ts). */
  named: boolean;
  status: string | undefined;
}): PayloadHead {
  const { run } = input;
  return {
    version: AUTOMATION_LIMITS.payloadVersion,
    event: run.trigger === 'test' ? 'order.test' : 'order.created',
    deliveryId: run.deliveryId,
    attempt: input.attempt,
    automation: run.automation,
    createdAt: run.queuedAt,
    account: input.account,
    orderId: run.orderId,
    link: orderLink(run.orderId, input.named ? input.account : undefined) ?? null,
    status: input.status ?? null,
  };
}

/**
 * The order JSON as sent, byte for byte JSON.stringify of the whole OrderPayload: the head, then
 * the order and its licenses as the store keeps them (JSON text it wrote with JSON.stringify),
 * not parsed and written again for every run. Bytes: the body, its length and its signature share them.
 */
export function payloadBody(head: PayloadHead, orderJson: string, licensesJson: string | null): Buffer {
  return Buffer.from(
    `${JSON.stringify(head).slice(0, -1)},"order":${orderJson},"licenses":${licensesJson ?? '[]'}}`,
  );
}

export const SIGNATURE_HEADER = 'Seller-Tray-Signature';
export const DELIVERY_HEADER = 'Seller-Tray-Delivery';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the receiver recomputes it with its copy of the secret. */
export function signature(secret: string, body: Buffer, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/**
 * A command's environment: what finding programs and writing temporary files need, and the
 * run's own ids. Nothing else of this process (no credentials, proxies or tokens it may hold);
 * no marketplace text (an order id that is not a UUID is left out).
 */
export function commandEnvironment(
  payload: PayloadHead,
  parent: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const kept = [
    'PATH',
    'HOME',
    'USER',
    'LOGNAME',
    'LANG',
    'LC_ALL',
    'TMPDIR',
    'TEMP',
    'TMP',
    'SystemRoot',
    'USERPROFILE',
    'PATHEXT',
  ];
  const env: NodeJS.ProcessEnv = {};
  for (const key of kept) if (parent[key] !== undefined) env[key] = parent[key];
  env.SELLER_TRAY_EVENT = payload.event;
  env.SELLER_TRAY_DELIVERY_ID = payload.deliveryId;
  env.SELLER_TRAY_ACCOUNT = payload.account.label;
  if (isOrderId(payload.orderId)) {
    env.SELLER_TRAY_ORDER_ID = payload.orderId;
    if (payload.link) env.SELLER_TRAY_ORDER_LINK = payload.link;
  }
  return env;
}
