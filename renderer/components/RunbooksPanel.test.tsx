// @vitest-environment happy-dom
// Settings → Runbooks: a runbook added and saved whole, a bad one refused naming its problem
// before anything is sent, the main process's refusal shown, export writing the versioned file,
// import taking a good file whole and refusing a bad one (not JSON, another version, one bad item
// among good ones) with nothing changed, and a policy's runbooks shown but not editable.
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { CodedError } from '../../preload/coded-error';
import { type AppState, UNMANAGED_STATE } from '../../preload/contract';
import { type Runbook, runbooksFile } from '../../preload/runbooks';
import { appState, createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { RunbooksPanel } from './RunbooksPanel';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const STANDARD: Runbook = {
  itemId: 'SS-STD',
  name: 'Standard',
  checklist: ['Create the tenant'],
  links: [{ label: 'Console', url: 'https://console.example/t/{buyerAccountId}' }],
  reasons: [],
};

async function renderPanel(runbooks: Runbook[] = [STANDARD], state: AppState = appState()) {
  const bridge = createFakeBridge({ state, settings: { runbooks } });
  renderWithBridge(bridge, <RunbooksPanel state={state} />);
  await screen.findByRole('button', { name: 'Add a product' });
  return bridge;
}

const type = (label: string, value: string, scope: HTMLElement = document.body) =>
  fireEvent.change(within(scope).getByLabelText(label), { target: { value } });

/** Chooses `text` as the file to import, named `name`. */
function choose(text: string, name = 'team.json'): void {
  const input = screen.getByLabelText('Runbooks file to import');
  Object.defineProperty(input, 'files', { value: [new File([text], name)], configurable: true });
  fireEvent.change(input);
}

it('adds a product with its steps, link and reason, and saves the list whole', async () => {
  const bridge = await renderPanel();
  expect((screen.getByRole('button', { name: 'Save runbooks' }) as HTMLButtonElement).disabled).toBe(true);
  fireEvent.click(screen.getByRole('button', { name: 'Add a product' }));
  const added = screen.getByRole('group', { name: 'Runbook 2' });
  type('Item id', 'AN-ADD', added);
  type('Name', 'Add-on', added);
  type('Checklist, one step a line', 'Enable the add-on\n\n  Tell the buyer  \n', added);
  fireEvent.click(within(added).getByRole('button', { name: 'Add a link' }));
  type('Link 1: label', 'Admin', added);
  type('Link 1: address', 'https://admin.example/orders/{orderId}', added);
  fireEvent.click(within(added).getByRole('button', { name: 'Add a reason' }));
  type('Failed reason 1: description', 'Not sold there', added);
  type('Failed reason 1: detailed description', 'The add-on is not sold in that region.', added);
  fireEvent.click(screen.getByRole('button', { name: 'Save runbooks' }));
  await screen.findByText('Runbooks saved.');
  expect(bridge.callsOf('setSettings')).toEqual([
    {
      runbooks: [
        STANDARD,
        {
          itemId: 'AN-ADD',
          name: 'Add-on',
          checklist: ['Enable the add-on', 'Tell the buyer'],
          links: [{ label: 'Admin', url: 'https://admin.example/orders/{orderId}' }],
          reasons: [
            { description: 'Not sold there', detailedDescription: 'The add-on is not sold in that region.' },
          ],
        },
      ],
    },
  ]);
});

it('refuses a link that could go anywhere before sending anything, naming the runbook and link', async () => {
  const bridge = await renderPanel();
  const standard = screen.getByRole('group', { name: 'Standard' });
  type('Link 1: address', 'javascript:alert(document.cookie)', standard);
  // Said under the field as it is typed.
  const address = within(standard).getByLabelText('Link 1: address');
  expect(address.getAttribute('aria-invalid')).toBe('true');
  expect(document.getElementById(address.getAttribute('aria-describedby') ?? '')?.textContent).toMatch(
    /^The address must start with https:\/\/ or http:\/\//,
  );
  fireEvent.click(screen.getByRole('button', { name: 'Save runbooks' }));
  const alert = await screen.findByRole('alert');
  expect(alert.textContent).toContain('nothing changed');
  expect(
    within(alert).getByText(/Runbook 1 \(SS-STD\): link 1's address must start with https:\/\//),
  ).toBeTruthy();
  expect(bridge.callsOf('setSettings')).toEqual([]);
  // Removed, the link is gone and the list saves.
  fireEvent.click(within(standard).getByRole('button', { name: 'Remove link 1' }));
  fireEvent.click(screen.getByRole('button', { name: 'Save runbooks' }));
  await screen.findByText('Runbooks saved.');
  expect(bridge.callsOf('setSettings')).toEqual([{ runbooks: [{ ...STANDARD, links: [] }] }]);
});

it("shows the main process's refusal in words", async () => {
  const bridge = await renderPanel();
  bridge.handle('setSettings', () => {
    throw new CodedError('invalid-input', 'Your settings could not be saved: the disk is full.');
  });
  type('Name', 'Standard edition', screen.getByRole('group', { name: 'Standard' }));
  fireEvent.click(screen.getByRole('button', { name: 'Save runbooks' }));
  expect((await screen.findByRole('alert')).textContent).toContain('the disk is full');
});

it('exports the runbooks as the versioned file', async () => {
  await renderPanel();
  const blobs: Blob[] = [];
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    blobs.push(blob as Blob);
    return 'blob:runbooks';
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    expect(this.download).toBe('seller-tray-runbooks.json');
  });
  fireEvent.click(screen.getByRole('button', { name: 'Export to a file' }));
  expect(click).toHaveBeenCalledOnce();
  expect(await blobs[0]?.text()).toBe(runbooksFile([STANDARD]));
});

it('imports a good file whole, replacing the list', async () => {
  const bridge = await renderPanel();
  const team: Runbook[] = [
    { ...STANDARD, name: 'Standard (team)' },
    { itemId: 'BV-1TB', name: 'Backup Vault', checklist: ['Attach the vault'], links: [], reasons: [] },
  ];
  choose(runbooksFile(team));
  await screen.findByText('Imported 2 runbooks from team.json.');
  expect(bridge.callsOf('setSettings')).toEqual([{ runbooks: team }]);
  expect(screen.getByRole('group', { name: 'Backup Vault' })).toBeTruthy();
});

it('refuses a bad file, naming what is wrong in it, and changes nothing', async () => {
  const bridge = await renderPanel();
  const cases: [string, RegExp][] = [
    ['{"format": "seller-tray-runbooks", "version": 1, "runbooks": [', /is not JSON/],
    [
      '{"format": "seller-tray-runbooks", "version": 7, "runbooks": []}',
      /version 7; this Seller Tray reads version 1/,
    ],
    ['{"runbooks": []}', /not a runbooks file/],
    [
      JSON.stringify({
        format: 'seller-tray-runbooks',
        version: 1,
        runbooks: [
          STANDARD,
          { ...STANDARD, itemId: 'EVIL', links: [{ label: 'x', url: 'file:///etc/passwd' }] },
        ],
      }),
      /Runbook 2 \(EVIL\): link 1's address must start with https:\/\//,
    ],
  ];
  for (const [text, problem] of cases) {
    choose(text, 'bad.json');
    const alert = await screen.findByRole('alert');
    await waitFor(() => expect(alert.textContent).toMatch(problem));
    expect(alert.textContent).toContain('bad.json was not imported; nothing changed.');
  }
  expect(bridge.callsOf('setSettings')).toEqual([]);
  expect(screen.getByRole('group', { name: 'Standard' })).toBeTruthy();
});

it("shows a policy's runbooks, exportable, not editable or importable", async () => {
  const state = appState({
    managed: { ...UNMANAGED_STATE, locked: ['runbooks'] },
  });
  await renderPanel([STANDARD], state);
  const editor = screen.getByRole('group', { name: 'Runbooks' }) as HTMLFieldSetElement;
  expect(editor.disabled).toBe(true);
  expect(document.getElementById(editor.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
    'Managed by your organization',
  );
  expect((screen.getByRole('button', { name: 'Import from a file…' }) as HTMLButtonElement).disabled).toBe(
    true,
  );
  expect((screen.getByRole('button', { name: 'Export to a file' }) as HTMLButtonElement).disabled).toBe(
    false,
  );
});
