// Settings → Automations' changes: one automation added, replaced or removed, the whole list then
// checked by the settings file's own rules (AutomationList: one place for them), a refusal
// naming the edited automation's fields; and its secret, written into the keychain entry of each
// listed account it runs for (the runner reads its own account's), never read back out: the
// window hears only whether it is stored. Refused while the organization manages automations.
// A command runs a program on this computer, so the window alone never sets one: the person
// confirms it in the shell's own dialog, outside the window's reach (absent: refused).
import { type AutomationSetting, type AutomationsView, automationNamed } from '../../../preload/automations';
import { CodedError } from '../../../preload/coded-error';
import type { AccountRef } from '../account/account-ref';
import type { Log } from '../log';
import type { SecretOwner, SecretStore } from '../secrets';
import { AutomationList, runsFor, webhookUrlProblem } from './automation-settings';
import { forgetAutomationSecrets, secretEntries, shareAutomationSecrets } from './ports';

export interface AutomationEditorPorts {
  automations: () => readonly AutomationSetting[];
  save: (automations: AutomationSetting[]) => void;
  /** The listed accounts (an automation's secret is kept for each it runs for). */
  accounts: () => readonly AccountRef[];
  secrets: SecretStore;
  /** The organization forbids automations or sets their list. */
  managed: () => boolean;
  /** Asks the person, outside the window, to allow a command automation; absent where nothing can ask. */
  confirmCommand?: ConfirmCommandPort;
  log: Log;
}

/** The shell's question, in a dialog of its own, whether an automation may run its program; true to allow. */
export type ConfirmCommandPort = (automation: AutomationSetting) => Promise<boolean>;

/** The bridge's automation channels, over the settings and the keychain. */
export class AutomationEditor {
  constructor(private readonly ports: AutomationEditorPorts) {}

  async view(): Promise<AutomationsView> {
    const automations = [...this.ports.automations()];
    const secretsStored: string[] = [];
    for (const automation of automations) {
      const owners = automation.action.type === 'command' ? [] : this.entries(automation);
      const stored = await Promise.all(owners.map((owner) => this.stored(owner)));
      if (owners.length > 0 && stored.every(Boolean)) secretsStored.push(automation.name);
    }
    return { automations, secretsStored, managed: this.ports.managed() };
  }

  async save(automation: unknown, replaces?: string): Promise<AutomationsView> {
    this.refuseIfManaged();
    const before = this.ports.automations();
    const list = withAutomation(before, automation, replaces);
    const edited =
      list[replaces === undefined ? list.length - 1 : before.findIndex((a) => a.name === replaces)];
    if (edited?.action.type === 'command') await this.confirmCommand(edited);
    this.ports.save(list);
    if (edited)
      await this.followAccounts(
        before.find((a) => a.name === edited.name),
        edited,
      );
    return this.view();
  }

  async remove(name: string): Promise<AutomationsView> {
    this.refuseIfManaged();
    const gone = this.named(name);
    this.ports.save(this.ports.automations().filter((a) => a !== gone));
    // Gone from the settings already, it never runs again; a keychain out of reach keeps a stray entry (logged).
    const { secrets, log } = this.ports;
    for (const ref of this.ports.accounts().filter((account) => runsFor(gone, account.id)))
      await forgetAutomationSecrets(secrets, [gone], ref, log);
    return this.view();
  }

  async setSecret(name: string, secret: string): Promise<AutomationsView> {
    this.refuseIfManaged();
    const automation = this.named(name);
    const refuse = (message: string): never => {
      throw new CodedError('invalid-input', message, { fields: [{ field: 'secret', message }] });
    };
    if (automation.action.type === 'command') refuse(`${name} runs a command: it has no secret.`);
    if (automation.action.type !== 'webhook') {
      const problem = webhookUrlProblem(secret);
      if (problem) refuse(`The incoming webhook address ${problem}.`);
    }
    const owners = this.entries(automation);
    if (owners.length === 0) refuse(`${name} runs for no account listed here: choose its accounts first.`);
    for (const owner of owners) await this.ports.secrets.set(owner, secret);
    return this.view();
  }

  /** Accounts it now runs for gain the secret the others hold; those it left lose theirs. */
  private async followAccounts(was: AutomationSetting | undefined, now: AutomationSetting): Promise<void> {
    if (!was) return;
    const accounts = this.ports.accounts();
    const gaining = accounts.filter((ref) => runsFor(now, ref.id) && !runsFor(was, ref.id));
    const left = accounts.filter((ref) => runsFor(was, ref.id) && !runsFor(now, ref.id));
    const { secrets, log } = this.ports;
    await shareAutomationSecrets(secrets, [now], accounts, gaining, log);
    for (const ref of left) await forgetAutomationSecrets(secrets, [was], ref, log);
  }

  private entries(automation: AutomationSetting): SecretOwner[] {
    return secretEntries(automation, this.ports.accounts());
  }

  private async stored(owner: SecretOwner): Promise<boolean> {
    // A keychain out of reach: not known to be stored (the runner says so when it needs it).
    return this.ports.secrets.get(owner).then(
      (value) => value !== undefined,
      () => false,
    );
  }

  private named(name: string): AutomationSetting {
    const automation = automationNamed(this.ports.automations(), name);
    if (!automation) throw new CodedError('not-found', `No automation is named ${name} any more.`);
    return automation;
  }

  /** A command (added, changed or turned on) is saved only when the person allows it outside the window. */
  private async confirmCommand(automation: AutomationSetting): Promise<void> {
    if (!this.ports.confirmCommand)
      throw new CodedError(
        'invalid-input',
        'A command runs a program on this computer, so it can be added or changed only in the desktop app, which asks you to confirm it, or in the settings file.',
      );
    if (!(await this.ports.confirmCommand(automation)))
      throw new CodedError('cancelled', `${automation.name} was not saved: its command was not allowed.`);
  }

  private refuseIfManaged(): void {
    if (this.ports.managed())
      throw new CodedError(
        'managed',
        'Your organization manages the automations on this computer: they cannot be changed here.',
      );
  }
}

/**
 * The list with `automation` added (no `replaces`) or in place of the one named `replaces`,
 * checked whole. A name stays: it names the automation's runs and its keychain entries.
 */
export function withAutomation(
  list: readonly AutomationSetting[],
  automation: unknown,
  replaces?: string,
): AutomationSetting[] {
  const index = replaces === undefined ? list.length : list.findIndex((a) => a.name === replaces);
  if (index < 0) throw new CodedError('not-found', `No automation is named ${replaces} any more.`);
  if (replaces !== undefined && (automation as { name?: unknown } | null)?.name !== replaces) {
    const message = `${replaces} keeps its name: it names its runs and its secret. Remove it and add a new one to use another name.`;
    throw new CodedError('invalid-input', message, { fields: [{ field: 'name', message }] });
  }
  const next: unknown[] = [...list];
  next.splice(index, replaces === undefined ? 0 : 1, automation);
  const parsed = AutomationList.safeParse(next);
  if (parsed.success) return parsed.data;
  // Each problem at its field of the edited automation; the list's own rules (a name twice,
  // too many) are about its name, or the automation as a whole.
  const fields = parsed.error.issues.map((issue) => {
    const [at, ...path] = issue.path;
    const twice = at === undefined && /twice/.test(issue.message);
    const field = at === index && path.length > 0 ? path.join('.') : twice ? 'name' : 'automation';
    return { field, message: twice ? 'another automation has this name' : issue.message };
  });
  return refused(fields);
}

function refused(fields: { field: string; message: string }[]): never {
  throw new CodedError(
    'invalid-input',
    `The automation was not saved: ${fields.map((f) => f.message).join('; ')}.`,
    {
      fields,
    },
  );
}
