// @vitest-environment happy-dom
// Settings → Automations with a fake bridge whose automation channels are the real editor's
// (main/core/automation/automation-editing.ts: the settings file's checks): adding a command as a
// list of arguments, the main process's refusals at their fields, a secret stored but never
// shown, accounts chosen by id and shown by label, Test against a stored order, and read only
// under the organization's lock.
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { accountRef } from '../../main/core/account/account-ref';
import type { AutomationSetting } from '../../preload/automations';
import type { AccountState, OrderListItem } from '../../preload/contract';
import { expectEscapeClosesForm } from '../../test/support/renderer/escape';
import {
  accountState,
  appState,
  createFakeBridge,
  type FakeBridgeOptions,
} from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { AutomationsPanel } from './AutomationsPanel';

afterEach(cleanup);

// Real ids (the editor checks them against the accounts' own refs).
const account = (label: string): AccountState => {
  const state = accountState(label);
  return { ...state, id: accountRef(state).id };
};
const EU = account('EU');
const US = account('US');

const HOOK: AutomationSetting = {
  name: 'billing hook',
  enabled: true,
  products: [],
  orderTypes: [],
  accounts: 'all',
  action: { type: 'webhook', url: 'https://billing.example.com/seller-tray' },
  reportStatus: null,
};

async function renderPanel(options: FakeBridgeOptions & { automations?: AutomationSetting[] } = {}) {
  const state = appState({ accounts: [EU, US] });
  const bridge = createFakeBridge({
    state,
    ...options,
    settings: { automations: options.automations ?? [] },
  });
  renderWithBridge(bridge, <AutomationsPanel state={state} />);
  await screen.findByRole('heading', { name: 'Your automations' });
  await waitFor(() => expect(screen.queryByText('Loading the automations…')).toBeNull());
  return bridge;
}

const form = () => screen.getByRole('form', { name: /^(Add an automation|Edit )/ });
const type = (label: string | RegExp, value: string) =>
  fireEvent.change(within(form()).getByLabelText(label), { target: { value } });

describe('AutomationsPanel', () => {
  it('adds a command as a list of arguments, never one shell line, for the accounts chosen', async () => {
    const bridge = await renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Add an automation' }));
    type('Name', 'provision');
    type('Program', '/opt/acme/provision tool.sh');
    fireEvent.click(within(form()).getByRole('button', { name: 'Add an argument' }));
    type('Argument 1', '--region eu; rm -rf /');
    type('Working folder (optional)', '/opt/acme');
    type('Time limit (seconds)', '120');
    type(/^Only for these products/, 'BV-1TB\n\n  Backup Vault  ');
    fireEvent.click(within(form()).getByLabelText("Only these accounts' new orders:"));
    fireEvent.click(within(form()).getByLabelText('EU'));
    fireEvent.change(within(form()).getByLabelText('Report the status'), { target: { value: 'completed' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Save automation' }));

    await screen.findByText('provision is saved.');
    expect(bridge.settings.automations).toEqual([
      {
        name: 'provision',
        enabled: true,
        products: ['BV-1TB', 'Backup Vault'],
        orderTypes: [],
        accounts: [EU.id],
        action: {
          type: 'command',
          command: ['/opt/acme/provision tool.sh', '--region eu; rm -rf /'],
          cwd: '/opt/acme',
          timeoutSeconds: 120,
        },
        reportStatus: 'completed',
      },
    ]);
    const [item] = within(screen.getByRole('list', { name: 'Automations' })).getAllByRole('listitem');
    expect(item?.querySelector('.automation-summary')?.textContent).toBe(
      'provision: command /opt/acme/provision tool.sh --region eu; rm -rf / (120 s), for product BV-1TB, product Backup Vault of EU; marks Completed or Failed',
    );
  });

  it('has the focus in the form it opens, and gives it back to its button as the form closes', async () => {
    await renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Add an automation' }));
    expect(document.activeElement).toBe(within(form()).getByLabelText('Name'));
    fireEvent.click(within(form()).getByRole('button', { name: 'Cancel' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Add an automation' }));
  });

  it('closes its forms on Escape, as Cancel does, the focus back on what opened them', async () => {
    await renderPanel({ automations: [HOOK] });
    for (const opener of ['Add an automation', 'Set signing secret of billing hook'])
      expectEscapeClosesForm(opener);
    // Its test panel, whose order list loads first.
    fireEvent.click(screen.getByRole('button', { name: 'Test billing hook' }));
    await screen.findByRole('form', { name: 'Test billing hook' });
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Test billing hook' }));
    expect(document.querySelector('form')).toBeNull();
  });

  it('says, as a webhook is saved, that it runs only once its signing secret is set', async () => {
    await renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Add an automation' }));
    type('Name', 'billing hook');
    fireEvent.change(within(form()).getByLabelText('When a new order arrives'), {
      target: { value: 'webhook' },
    });
    type('Webhook address', 'https://billing.example.com/seller-tray');
    fireEvent.click(within(form()).getByRole('button', { name: 'Save automation' }));
    await screen.findByText(
      'billing hook is saved. It runs once its signing secret is set: Set signing secret, beside it.',
    );
  });

  it("saves a command only when the person allows it in the shell's own dialog", async () => {
    const asked: string[] = [];
    const bridge = await renderPanel({
      allowCommand: (automation) => {
        asked.push(automation.name);
        return false;
      },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Add an automation' }));
    type('Name', 'provision');
    type('Program', '/opt/acme/provision.sh');
    fireEvent.click(within(form()).getByRole('button', { name: 'Save automation' }));

    await within(form()).findByText('provision was not saved: its command was not allowed.');
    expect(asked).toEqual(['provision']);
    expect(bridge.settings.automations).toEqual([]);
  });

  it("shows the main process's refusals at their fields, with the settings file's words", async () => {
    await renderPanel({ automations: [HOOK] });
    fireEvent.click(screen.getByRole('button', { name: 'Add an automation' }));
    type('Name', 'Billing Hook');
    fireEvent.change(within(form()).getByLabelText('When a new order arrives'), {
      target: { value: 'webhook' },
    });
    type('Webhook address', 'http://billing.example.com/x');
    fireEvent.click(within(form()).getByRole('button', { name: 'Save automation' }));

    await screen.findByText('The automation was not saved: see the fields marked.');
    const url = within(form()).getByLabelText('Webhook address');
    expect(url.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(url.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'the address must use https:// (plain http:// only to this computer: 127.0.0.1, [::1] or localhost)',
    );
    const name = within(form()).getByLabelText('Name');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('another automation has this name')).toBeTruthy();

    // A command: an empty program and a time limit out of range, each at its field.
    fireEvent.change(within(form()).getByLabelText('When a new order arrives'), {
      target: { value: 'command' },
    });
    type('Name', 'provision');
    type('Time limit (seconds)', '0');
    fireEvent.click(within(form()).getByRole('button', { name: 'Save automation' }));
    await screen.findByText('an argument must not be empty');
    expect(screen.getByText('the time limit is a whole number of seconds from 1 to 3600')).toBeTruthy();
    expect(within(form()).getByLabelText('Program').getAttribute('aria-invalid')).toBe('true');
  });

  it('stores a secret without ever showing it: only "set" or "not set"', async () => {
    const bridge = await renderPanel({ automations: [HOOK] });
    expect(screen.getByText(/Signing secret: not set/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Set signing secret of billing hook' }));
    const input = screen.getByLabelText('New signing secret of billing hook');
    expect(input.getAttribute('type')).toBe('password');
    fireEvent.change(input, { target: { value: 'whsec_TOP_SECRET_42' } });
    fireEvent.click(screen.getByRole('button', { name: 'Store in the keychain' }));

    await screen.findByText('The signing secret of billing hook is in the keychain.');
    expect(screen.getByText(/Signing secret: set/)).toBeTruthy();
    // In the keychain, for each account it runs for; nowhere in the window.
    expect([...bridge.keychain.values()]).toEqual(['whsec_TOP_SECRET_42', 'whsec_TOP_SECRET_42']);
    expect(document.body.innerHTML).not.toContain('whsec_TOP_SECRET_42');
    expect(screen.queryByLabelText('New signing secret of billing hook')).toBeNull();
  });

  it("refuses a chat's address that is no https address, and keeps it out of the keychain", async () => {
    const bridge = await renderPanel({
      automations: [{ ...HOOK, name: 'sales', action: { type: 'slack' } }],
    });
    fireEvent.click(screen.getByRole('button', { name: 'Set slack incoming-webhook address of sales' }));
    fireEvent.change(screen.getByLabelText('New slack incoming-webhook address of sales'), {
      target: { value: 'http://hooks.slack.com/services/T/B/X' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Store in the keychain' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(
      /^The incoming webhook address must use https:/,
    );
    expect(bridge.keychain.size).toBe(0);
  });

  it('turns an automation off and removes it, asked first', async () => {
    const bridge = await renderPanel({ automations: [HOOK] });
    fireEvent.click(screen.getByRole('button', { name: 'Turn off billing hook' }));
    await screen.findByText('billing hook is off.');
    expect(bridge.settings.automations[0]?.enabled).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Remove billing hook' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Remove billing hook?' });
    expect(bridge.settings.automations).toHaveLength(1);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove billing hook' }));
    await screen.findByText('billing hook is removed.');
    expect(bridge.settings.automations).toEqual([]);
  });

  it('tests an automation against a stored order of its account, showing how it went', async () => {
    const orders = [
      { orderId: 'order-1', account: US.id, buyer: 'Contoso\u202e evil', product: 'Backup' },
    ] as OrderListItem[];
    const bridge = await renderPanel({ automations: [HOOK], orders });
    fireEvent.click(screen.getByRole('button', { name: 'Test billing hook' }));
    const choice = await screen.findByLabelText('Test billing hook with the order');
    expect(choice.textContent).toBe('Contoso evil · Backup · order-1');
    fireEvent.click(screen.getByRole('button', { name: 'Run the test' }));
    await screen.findByText('billing hook: succeeded (exit 0)');
    expect(bridge.callsOf('testAutomation')).toEqual([
      { automation: 'billing hook', orderId: 'order-1', account: US.id },
    ]);
    expect(screen.getByText('tenant ready')).toBeTruthy();
  });

  it('is read only, "Managed by your organization", when the organization manages automations', async () => {
    await renderPanel({ automations: [HOOK], automationsManaged: true });
    expect(screen.getByText('Managed by your organization')).toBeTruthy();
    expect(screen.getByRole('list', { name: 'Automations' }).textContent).toContain('billing hook');
    expect(screen.queryAllByRole('button')).toEqual([]);
  });
});
