// What an account's automations get from the platform, made the same way by the app and the CLI:
// the keychain entry of each automation's secret (a webhook's signing secret, a chat's incoming
// webhook address; one per account, shared with accounts that gain the automation), the account
// as automations name it, this computer's name and the folder commands run in.
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { AutomationSetting } from '../../../preload/automations';
import { capped } from '../../../preload/marketplace-text';
import { type AccountRef, accountFolder, keychainEntry } from '../account/account-ref';
import { failureFields, type Log } from '../log';
import type { SecretOwner, SecretStore } from '../secrets';
import { runsFor } from './automation-settings';
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

/**
 * Gives each account an automation runs for, and that has no entry for its secret, the secret the
 * others hold, when they all hold the same one: an account added later, or an automation widened
 * to more accounts, would otherwise run without it. Secrets that differ (set per account from the
 * CLI) are left for the person to set; a keychain out of reach is logged, never a failed change.
 */
export async function shareAutomationSecrets(
  secrets: SecretStore,
  automations: readonly AutomationSetting[],
  accounts: readonly AccountRef[],
  log?: Log,
): Promise<void> {
  for (const automation of automations) {
    if (automation.action.type === 'command') continue;
    const owners = secretEntries(automation, accounts);
    try {
      const held = await Promise.all(owners.map((owner) => secrets.get(owner)));
      const values = new Set(held.filter((value) => value !== undefined));
      const [shared] = values;
      if (values.size !== 1 || shared === undefined) continue;
      for (const [index, owner] of owners.entries()) {
        if (held[index] === undefined) await secrets.set(owner, shared);
      }
    } catch (error) {
      log?.warn(`the secret of the automation ${automation.name} was not given to every account`, {
        ...failureFields(error),
      });
    }
  }
}

/** The account as automations name it (never its secret or token). */
export function automationAccount(ref: AccountRef): AutomationAccount {
  const host = URL.canParse(ref.baseUrl) ? new URL(ref.baseUrl).host : ref.baseUrl;
  return { id: ref.id, label: ref.demo ? 'the demo' : `${ref.clientId} at ${host}`, baseUrl: ref.baseUrl };
}

/** This computer's name as a status an automation reports writes it: no colon, no controls. */
export function laptopName(name: string = hostname()): string {
  const cleaned = capped(name.replace(/[:\p{Cc}]/gu, '').trim(), 40);
  return cleaned === '' ? 'this computer' : cleaned;
}

export function automationPortsFor(
  ref: AccountRef,
  ports: { secrets: SecretStore; dataRoot: string },
): AutomationPorts {
  return {
    secret: (automation) => ports.secrets.get(automationSecretEntry(ref, automation)),
    account: automationAccount(ref),
    laptop: laptopName(),
    workDir: join(accountFolder(ports.dataRoot, ref.id), 'automations'),
  };
}
