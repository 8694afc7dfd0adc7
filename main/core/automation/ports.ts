// What an account's automations get from the platform, made the same way by the app and the CLI:
// the keychain entry of each automation's secret (a webhook's signing secret, a chat's incoming
// webhook address; one per account, shared with accounts that gain the automation), the account
// as automations name it, this computer's name and the folder commands run in.
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { AutomationSetting } from '../../../preload/automations';
import { capped } from '../../../preload/marketplace-text';
import {
  type AccountId,
  type AccountRef,
  accountFolder,
  accountName,
  keychainEntry,
} from '../account/account-ref';
import { failureFields, type Log } from '../log';
import { automationsForbidden, type Policies } from '../policy/layers';
import type { SecretOwner, SecretStore } from '../secrets';
import { runsFor } from './automation-settings';
import type { Post } from './delivery';
import type { AutomationAccount } from './payload';
import type { AutomationPorts } from './runner';

/** The keychain entry of an automation's secret: beside the account's own, named for the automation. */
export function automationSecretEntry(ref: AccountRef, automation: string): SecretOwner {
  return { origin: keychainEntry(ref).origin, clientId: `automation ${automation} of ${ref.id}` };
}

/** The keychain entries of an automation's secret: one per listed account it runs for. */
export function secretEntries(automation: AutomationSetting, accounts: readonly AccountRef[]): SecretOwner[] {
  return accounts
    .filter((ref) => runsFor(automation, ref.id))
    .map((ref) => automationSecretEntry(ref, automation.name));
}

/** What the other accounts an automation runs for hold in the keychain (see `heldAutomationSecrets`). */
export interface HeldSecrets {
  /** The accounts it runs for, `except` aside, each with its own secret (undefined: none). */
  held: { ref: AccountRef; secret: string | undefined }[];
  /** The one secret they hold, where all that hold one hold the same; else undefined. */
  shared: string | undefined;
}

/**
 * The secrets of an automation that the accounts it runs for hold, `except` aside: the one they
 * share is what an account joining them gets (a webhook's receiver verifies every account's
 * deliveries with the one secret it was given). The decision for a keychain that cannot be read:
 * it throws (KeychainUnavailableError), never answers "none", as a second secret made then would
 * differ from the one the receiver has. The app's changes and the CLI's `automations secret` both ask here.
 */
export async function heldAutomationSecrets(
  secrets: SecretStore,
  automation: AutomationSetting,
  accounts: readonly AccountRef[],
  except: ReadonlySet<AccountId>,
): Promise<HeldSecrets> {
  const others = accounts.filter((ref) => !except.has(ref.id) && runsFor(automation, ref.id));
  const held = await Promise.all(
    others.map(async (ref) => ({
      ref,
      secret: await secrets.get(automationSecretEntry(ref, automation.name)),
    })),
  );
  const values = new Set(held.flatMap(({ secret }) => (secret === undefined ? [] : [secret])));
  return { held, shared: values.size === 1 ? [...values][0] : undefined };
}

/**
 * Gives `gaining` (an account just added, or those an automation now runs for that it did not),
 * where they hold none, the secret the other accounts an automation runs for hold, when they all
 * hold the same one: they would otherwise run without it. Secrets that differ (set per account
 * from the CLI) are left for the person to set; a keychain out of reach is logged, never a failed
 * change (and nothing is shared: heldAutomationSecrets).
 */
export async function shareAutomationSecrets(
  secrets: SecretStore,
  automations: readonly AutomationSetting[],
  accounts: readonly AccountRef[],
  gaining: readonly AccountRef[],
  log?: Log,
): Promise<void> {
  const gainingIds = new Set(gaining.map((ref) => ref.id));
  for (const automation of automations) {
    if (automation.action.type === 'command') continue;
    const targets = accounts.filter((ref) => gainingIds.has(ref.id) && runsFor(automation, ref.id));
    if (targets.length === 0) continue;
    const entry = (ref: AccountRef) => automationSecretEntry(ref, automation.name);
    await keychainWork(log, automation, async () => {
      const { shared } = await heldAutomationSecrets(secrets, automation, accounts, gainingIds);
      if (shared === undefined) return;
      for (const ref of targets) {
        if ((await secrets.get(entry(ref))) === undefined) await secrets.set(entry(ref), shared);
      }
    });
  }
}

/** Takes the secrets of these automations out of an account's keychain entries (it left, or they no longer run for it). */
export async function forgetAutomationSecrets(
  secrets: SecretStore,
  automations: readonly Pick<AutomationSetting, 'name'>[],
  ref: AccountRef,
  log?: Log,
): Promise<void> {
  for (const automation of automations) {
    await keychainWork(log, automation, () => secrets.delete(automationSecretEntry(ref, automation.name)));
  }
}

async function keychainWork(
  log: Log | undefined,
  automation: Pick<AutomationSetting, 'name'>,
  work: () => Promise<unknown>,
) {
  try {
    await work();
  } catch (error) {
    log?.warn(`the keychain entries of the automation ${automation.name} were not all updated`, {
      ...failureFields(error),
    });
  }
}

/** The account as automations name it (never its secret or token): by its label, as the list and the log do. */
export function automationAccount(ref: AccountRef): AutomationAccount {
  return { id: ref.id, label: accountName(ref), baseUrl: ref.baseUrl };
}

/** This computer's name as a status an automation reports writes it: no colon, no controls. */
export function laptopName(name: string = hostname()): string {
  const cleaned = capped(name.replace(/[:\p{Cc}]/gu, '').trim(), 40);
  return cleaned === '' ? 'this computer' : cleaned;
}

/**
 * `post`: deliveries through the platform's network client (a company's proxy applies); else
 * node:http. `named`: whether an order's link names the account (as the platform's own links).
 * `policies`: what the organization allows, read at each run (a policy may change meanwhile).
 */
export function automationPortsFor(
  ref: AccountRef,
  ports: {
    secrets: SecretStore;
    dataRoot: string;
    post?: Post | undefined;
    named: () => boolean;
    /** The organization's policies in force now: they may forbid every run. */
    policies: () => Policies;
  },
): AutomationPorts {
  return {
    named: ports.named,
    forbidden: () => automationsForbidden(ports.policies()),
    secret: (automation) => ports.secrets.get(automationSecretEntry(ref, automation)),
    account: automationAccount(ref),
    laptop: laptopName(),
    workDir: join(accountFolder(ports.dataRoot, ref.id), 'automations'),
    ...(ports.post ? { post: ports.post } : {}),
  };
}
