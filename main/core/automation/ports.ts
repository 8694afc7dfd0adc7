// What an account's automations get from the platform, made the same way by the app and the CLI:
// the keychain entry of each automation's secret (a webhook's signing secret, a chat's incoming
// webhook address), the account as automations name it, this computer's name and the folder
// commands run in.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { capped } from '../../../preload/marketplace-text';
import { type AccountRef, accountFolder, keychainEntry } from '../account/account-ref';
import type { SecretOwner, SecretStore } from '../secrets';
import type { AutomationAccount } from './payload';
import type { AutomationPorts } from './runner';

/** The keychain entry of an automation's secret: beside the account's own, named for the automation. */
export function automationSecretEntry(ref: AccountRef, automation: string): SecretOwner {
  return { origin: keychainEntry(ref).origin, clientId: `automation ${automation} of ${ref.id}` };
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
