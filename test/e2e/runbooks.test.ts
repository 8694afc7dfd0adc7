// Runbooks in real Chromium (issue 26): the built renderer over the preview's bridge, the service
// with the real keychain, the simulator over loopback. An order with two products shows both
// runbooks; a tick is kept through a reload (the store); a hostile buyer name stays inside the
// link's encoded path; Settings → Runbooks shows the editor and refuses a bad file whole. Screenshots of both at 420×640 and
// 1280×800, light and dark, each passing axe-core.
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { KeytarSecretStore, secretOwner } from '../../main/core/secrets';
import type { SellerTrayService } from '../../main/core/service';
import type { Runbook } from '../../preload/runbooks';
import { checkScreen, openConfiguredPreview, previewParts } from '../support/preview-app';
import { admin } from '../support/raw-api';

const CLIENT = { clientId: 'runbook-client', clientSecret: 'runbook-secret-5e1a' };
const HOSTILE_BUYER = 'Northwind}{&#/../javascript:alert(1)\nTraders';

const RUNBOOKS: Runbook[] = [
  {
    itemId: 'SS-STD',
    name: 'Seller Suite Standard',
    checklist: ['Create the tenant', 'Invite the buyer’s admin', 'Send the welcome mail'],
    links: [
      {
        label: 'Tenant console',
        url: 'https://console.example.com/tenants/{buyerName}?account={buyerAccountId}',
      },
      { label: 'License admin', url: 'https://licenses.example.com/users/{licenseEmail}' },
    ],
    reasons: [
      { description: 'Tenant quota reached', detailedDescription: 'The region has no tenant quota left.' },
    ],
  },
  {
    itemId: 'AN-ADD',
    name: 'Analytics add-on',
    checklist: ['Enable analytics for the tenant'],
    links: [{ label: 'Analytics admin', url: 'https://analytics.example.com/orders/{orderId}' }],
    reasons: [],
  },
];

const parts = previewParts({ sellers: [{ sellerId: 1001, orders: 8, clients: [CLIENT] }] });
const secrets = new KeytarSecretStore();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
  await secrets.delete(secretOwner(parts.sim.url, CLIENT.clientId));
  await admin(parts.sim.url, 'POST', 'reset');
});

async function openApp(colorScheme: 'light' | 'dark', viewport: { width: number; height: number }) {
  const { service, preview } = await openConfiguredPreview({
    sim: parts.sim,
    client: CLIENT,
    rendererDir: parts.renderer.dir,
    secrets,
    settings: { runbooks: RUNBOOKS },
    cleanups,
  });
  const page = await parts.browser.newPage({ colorScheme, viewport, locale: 'en-US' });
  cleanups.push(() => page.close());
  await page.goto(preview.url);
  await page.getByRole('listbox', { name: 'Orders' }).waitFor();
  return { page, service };
}

/** An order of two products, both with a runbook, bought by a hostile name; opened. */
async function openTwoProductOrder(page: Page, service: SellerTrayService): Promise<string> {
  const created = await admin(parts.sim.url, 'POST', 'purchases', {
    order: {
      buyerCustomerParty: { supplierAssignedAccountId: 'NW-1001', party: { partyName: HOSTILE_BUYER } },
      documentLines: [
        {
          lineId: 1,
          lineItem: { name: 'Seller Suite Standard', sellersItemId: 'SS-STD', quantity: { value: 5 } },
        },
        {
          lineId: 2,
          lineItem: { name: 'Analytics add-on', sellersItemId: 'AN-ADD', quantity: { value: 1 } },
        },
      ],
    },
    licenseEmails: ['admin@northwind.example'],
  });
  const orderId: string = created.json.orderId;
  await service.handle('checkNow', undefined);
  await page.getByLabel('Search orders').fill(orderId);
  const rows = page.getByRole('listbox', { name: 'Orders' }).getByRole('option');
  await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
  await rows.click();
  await page.getByRole('region', { name: 'Runbook: Seller Suite Standard (SS-STD)' }).waitFor();
  return orderId;
}

describe.each([
  ['light', { width: 1280, height: 800 }],
  ['dark', { width: 1280, height: 800 }],
  ['light', { width: 420, height: 640 }],
  ['dark', { width: 420, height: 640 }],
] as const)('runbooks in the %s theme at %o', (colorScheme, viewport) => {
  const size = `${viewport.width}x${viewport.height}`;

  it('the order page shows a runbook per product, keeps ticks, and builds links that stay on their host', async () => {
    const { page, service } = await openApp(colorScheme, viewport);
    const orderId = await openTwoProductOrder(page, service);
    const suite = page.getByRole('region', { name: 'Runbook: Seller Suite Standard (SS-STD)' });
    await page.getByRole('region', { name: 'Runbook: Analytics add-on (AN-ADD)' }).waitFor();

    const console = suite.getByRole('link', { name: 'Tenant console' });
    const href = (await console.getAttribute('href')) ?? '';
    const url = new URL(href);
    expect(url.host).toBe('console.example.com');
    const segments = url.pathname.split('/');
    expect(segments.slice(0, 2)).toEqual(['', 'tenants']);
    expect(segments.map(decodeURIComponent).slice(2)).toEqual([HOSTILE_BUYER]);
    expect(url.searchParams.get('account')).toBe('NW-1001');
    expect(url.hash).toBe('');
    // The address it opens is on the page, to read first.
    expect(await suite.getByText(href, { exact: true }).count()).toBe(1);
    expect(await suite.getByRole('link', { name: 'License admin' }).getAttribute('href')).toBe(
      'https://licenses.example.com/users/admin%40northwind.example',
    );

    await suite.getByRole('checkbox', { name: 'Create the tenant' }).check();
    await suite.getByRole('group', { name: 'Checklist: 1 of 3 done' }).waitFor();
    await suite.scrollIntoViewIfNeeded();
    await checkScreen(page, `order-runbooks-${colorScheme}-${size}`);

    // Kept in the store: the page read again shows it ticked.
    await page.reload();
    await page.getByLabel('Search orders').fill(orderId);
    await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').click();
    const again = page.getByRole('region', { name: 'Runbook: Seller Suite Standard (SS-STD)' });
    expect(await again.getByRole('checkbox', { name: 'Create the tenant' }).isChecked()).toBe(true);
  }, 90_000);

  it('Settings → Runbooks shows each product to edit, and refuses a bad file whole', async () => {
    const { page, service } = await openApp(colorScheme, viewport);
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Runbooks' });
    await section.getByRole('group', { name: 'Seller Suite Standard' }).waitFor();
    expect(await section.getByLabel('Link 1: address').first().inputValue()).toBe(RUNBOOKS[0]?.links[0]?.url);
    await section.getByRole('heading', { name: 'Runbooks' }).scrollIntoViewIfNeeded();
    await checkScreen(page, `settings-runbooks-${colorScheme}-${size}`);

    // A file with one good runbook and one without a name: nothing of it is taken.
    const bad = {
      format: 'seller-tray-runbooks',
      version: 1,
      runbooks: [RUNBOOKS[1], { itemId: 'SSO-CON' }],
    };
    await section.getByLabel('Runbooks file to import').setInputFiles({
      name: 'team-runbooks.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(bad)),
    });
    await section.getByText('Runbook 2 (SSO-CON): the name must be text (it is empty or missing)').waitFor();
    expect(service.currentSettings().runbooks).toEqual(RUNBOOKS);
    await section.getByRole('button', { name: 'Import from a file…' }).scrollIntoViewIfNeeded();
    await checkScreen(page, `settings-runbooks-import-refused-${colorScheme}-${size}`);
  }, 90_000);
});
