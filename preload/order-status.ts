// An order's provisioning status, derived from its events, and the transitions a user may
// make without a second thought.
import type { MarketplaceEvent, StatusCode } from './marketplace';

/** The statuses a user can mark (the marketplace itself sets ProvisioningStarted). */
export const MARKABLE_STATUSES = [
  'ProvisioningInProgress',
  'ProvisioningCompleted',
  'ProvisioningFailed',
] as const;
export type MarkableStatus = (typeof MARKABLE_STATUSES)[number];

/** What the purchase event's type is called where people read it (notifications, the inbox). */
const PURCHASE_TYPE_LABELS: Readonly<Record<string, string>> = {
  ServicePurchased: 'Purchase',
  Trial: 'Trial',
  Evaluation: 'Evaluation',
  UpgradeToTrial: 'Upgrade to trial',
  UpgradeToPurchase: 'Upgrade to purchase',
};

/** A purchase type in words; one this app does not know yet is split into words as it came. */
export function purchaseTypeLabel(code: string): string {
  const known = PURCHASE_TYPE_LABELS[code];
  if (known) return known;
  const words = code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Whether the purchase is the plain kind: other kinds (a trial, an upgrade) are named where shown. */
export function isPlainPurchase(code: string | undefined): boolean {
  return code === undefined || code === 'ServicePurchased';
}

const USUAL_TRANSITIONS: Readonly<Record<StatusCode, readonly StatusCode[]>> = {
  ProvisioningStarted: ['ProvisioningInProgress'],
  ProvisioningInProgress: ['ProvisioningCompleted', 'ProvisioningFailed'],
  ProvisioningFailed: ['ProvisioningInProgress'],
  ProvisioningCompleted: [],
};

/**
 * Started → InProgress → Completed or Failed, and Failed → InProgress (a retry). Anything
 * else (skipping a step, reopening a completed order, an unknown status) is unusual: it
 * needs the user's explicit override.
 */
export function isUsualTransition(from: string | undefined, to: StatusCode): boolean {
  if (from === undefined) return false;
  return (USUAL_TRANSITIONS[from as StatusCode] ?? []).includes(to);
}

/** Listing order: by time, then id, as the API lists events. */
export function compareEventTime(a: MarketplaceEvent, b: MarketplaceEvent): number {
  const ta = a.eventTime ? Date.parse(a.eventTime) : 0;
  const tb = b.eventTime ? Date.parse(b.eventTime) : 0;
  if (ta !== tb) return ta - tb;
  // Same millisecond: the text carries microseconds, and equal texts fall back to the id.
  const sa = a.eventTime ?? '';
  const sb = b.eventTime ?? '';
  if (sa !== sb) return sa < sb ? -1 : 1;
  return (a.eventId ?? '') < (b.eventId ?? '') ? -1 : (a.eventId ?? '') > (b.eventId ?? '') ? 1 : 0;
}

/** A new purchase nobody has started to provision yet. */
export function isWaitingForAction(status: string | undefined): boolean {
  return status === 'ProvisioningStarted';
}

/**
 * The event a new order arrives with: spec §6 names ServicePurchased with ProvisioningStarted,
 * but any purchase-like type (Trial, Evaluation, UpgradeToTrial, UpgradeToPurchase, one the spec
 * does not list yet) with that status is a new order to provision too. The wire model has
 * already matched the status's case.
 */
export function isNewPurchase(event: MarketplaceEvent): boolean {
  return event.statusCode === 'ProvisioningStarted';
}
