// The whole app end to end in real Chromium: the built renderer, the browser preview's
// bridge, the service and core with the real keychain, and the simulator over loopback.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS_AT_ONCE } from '../../main/core/automation/command-slots';
import { KeytarSecretStore, secretOwner } from '../../main/core/secrets';
import { type SaveFilePort, SellerTrayService, type ServiceEvent } from '../../main/core/service';
import { ConfSettingsStore } from '../../main/core/settings';
import { fileLog, LOG_FILE_NAME, logsDir } from '../../main/file-log';
import { type Preview, startPreview } from '../../main/preview/server';
import type { Settings } from '../../preload/model';
import { type Simulator, startSimulator } from '../../simulator/server';
import { axeViolations, cutTexts, faintFieldBorders } from '../support/axe';
import { buildRenderer, launchChromium } from '../support/browser';
import { makeDataDir } from '../support/core';
import { CONTROL_OR_BIDI, hostileOrder } from '../support/hostile-order';
import { REPO_ROOT } from '../support/processes';
import { admin, rawCall, tokenFor } from '../support/raw-api';

const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
const CLIENT = { clientId: 'e2e-client', clientSecret: 'e2e-secret-41c9' };
/** A second client of the same seller: a second account in Settings → Accounts. */
const SECOND_CLIENT = { clientId: 'e2e-client-2', clientSecret: 'e2e-secret-2-77b0' };

let renderer: Awaited<ReturnType<typeof buildRenderer>>;
let browser: Browser;
let sim: Simulator;
const secrets = new KeytarSecretStore();

beforeAll(async () => {
  [renderer, browser, sim] = await Promise.all([
    buildRenderer(),
    launchChromium(),
    startSimulator({ port: 0, sellers: [{ sellerId: 1001, orders: 30, clients: [CLIENT, SECOND_CLIENT] }] }),
  ]);
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sim?.close();
  await renderer?.remove();
});

interface App {
  page: Page;
  service: SellerTrayService;
  events: ServiceEvent[];
  preview: Preview;
  settingsFile: string;
}
const running: { app: App; dir: string }[] = [];
afterEach(async () => {
  for (const { app, dir } of running.splice(0)) {
    await app.page.close();
    app.service.close();
    await app.preview.close();
    await rm(dir, { recursive: true, force: true });
  }
  await secrets.delete(secretOwner(sim.url, CLIENT.clientId));
  await admin(sim.url, 'POST', 'reset');
});

type Viewport = { width: number; height: number };
const DESKTOP: Viewport = { width: 1280, height: 800 };
/** The tray popover's size. */
const POPOVER: Viewport = { width: 420, height: 640 };

async function openApp(
  options: {
    configured?: boolean;
    colorScheme?: 'light' | 'dark';
    logs?: boolean;
    viewport?: Viewport;
    settings?: Partial<Settings>;
    /** The browser's locale: English unless a test says otherwise, whatever this machine's. */
    locale?: string;
    /** The shell's save dialog, faked ("Export statuses"). */
    saveFile?: SaveFilePort;
  } = {},
): Promise<App> {
  const dir = await makeDataDir();
  const settings = new ConfSettingsStore({ cwd: dir });
  if (options.configured) {
    settings.save({
      ...settings.load().settings,
      baseUrl: sim.url,
      clientId: CLIENT.clientId,
      ...options.settings,
    });
    await secrets.set(secretOwner(sim.url, CLIENT.clientId), CLIENT.clientSecret);
  }
  // With `logs`, the log file as the preview writes it (main/app-service.ts).
  const logs = options.logs ? { log: fileLog(logsDir(dir)), logFolder: { path: logsDir(dir) } } : {};
  const service = await SellerTrayService.open({
    settings,
    secrets,
    dataRoot: dir,
    ...logs,
    ...(options.saveFile ? { saveFile: options.saveFile } : {}),
  });
  const events: ServiceEvent[] = [];
  service.onEvent((event) => events.push(event));
  const preview = await startPreview({ service, rendererDir: renderer.dir });
  service.listening();
  const page = await browser.newPage({
    colorScheme: options.colorScheme ?? 'light',
    viewport: options.viewport ?? { width: 1100, height: 800 },
    locale: options.locale ?? 'en-US',
  });
  const app = { page, service, events, preview, settingsFile: settings.path };
  running.push({ app, dir });
  await page.goto(preview.url);
  return app;
}

/**
 * Waits for the page's next rendering update. Order lines are drawn in `content-visibility: auto` groups, and
 * Chromium leaves a line out of innerText until a rendering update has found it near the view.
 */
async function afterRendering(page: Page): Promise<void> {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** Reads the marketplace now, opens the order: its automations' runs. */
async function orderRuns(page: Page, service: SellerTrayService, orderId: string): Promise<Locator> {
  await service.handle('checkNow', undefined);
  await openOrder(page, orderId);
  return page.getByRole('region', { name: 'Automations' }).getByRole('listitem');
}

/** Finds an order by its id through the inbox's search, and opens it. */
async function openOrder(page: Page, orderId: string): Promise<void> {
  await page.getByLabel('Search orders').fill(orderId);
  const rows = page.getByRole('listbox', { name: 'Orders' }).getByRole('option');
  await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
  await rows.click();
}

describe('onboarding', () => {
  it('tells wrong credentials apart, then connects with the right ones', async () => {
    const { page } = await openApp();
    await page.getByRole('heading', { name: 'Connect Seller Tray to the marketplace' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'onboarding.png') });
    await page.getByLabel('Base URL').fill(sim.url);
    await page.getByLabel('Client id').fill(CLIENT.clientId);
    await page.getByLabel('Client secret').fill('not-the-secret');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText('did not accept the client id and secret').waitFor();

    // Save asks the marketplace first: a secret it rejects is not stored.
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Nothing was saved.').waitFor();
    expect(await secrets.get(secretOwner(sim.url, CLIENT.clientId))).toBeUndefined();

    await page.getByLabel('Client secret').fill(CLIENT.clientSecret);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText('Signed in as seller 1001').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('listbox', { name: 'Orders' }).waitFor();
    expect(await secrets.get(secretOwner(sim.url, CLIENT.clientId))).toBe(CLIENT.clientSecret);
    expect(await page.content()).not.toContain(CLIENT.clientSecret);
  }, 60_000);
});

describe.each([
  ['light', DESKTOP],
  ['dark', DESKTOP],
  ['light', POPOVER],
  ['dark', POPOVER],
] as const)('every screen in the %s theme at %o', (colorScheme, viewport) => {
  const size = `${viewport.width}x${viewport.height}`;
  /**
   * axe-core finds nothing wrong, of any impact, every field's outline stands out at 3:1, and no
   * text is cut; the screen is kept as a screenshot to look at.
   */
  async function check(page: Page, screen: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${screen}-${colorScheme}-${size}.png`) });
    expect(await axeViolations(page), screen).toEqual([]);
    expect(await faintFieldBorders(page), screen).toEqual([]);
    expect(await cutTexts(page), screen).toEqual([]);
  }

  it('onboarding passes axe-core', async () => {
    const { page } = await openApp({ colorScheme, viewport });
    await page.getByRole('heading', { level: 1 }).waitFor();
    await check(page, 'onboarding');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Enter the client secret.').waitFor();
    await check(page, 'onboarding-errors');
  }, 60_000);

  it('the proof of delivery export passes axe-core, and saves the statuses marked in the window', async () => {
    const saved: string[] = [];
    const { page, service } = await openApp({
      configured: true,
      colorScheme,
      viewport,
      saveFile: async (name, content) => {
        saved.push(content);
        return `/home/anna/Documents/${name}`;
      },
    });
    await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
    const listed = await service.handle('listOrders', {});
    const orderId = listed.ok ? (listed.value.orders[0]?.orderId ?? '') : '';
    const marked = await service.handle('markStatus', {
      orderId,
      statusCode: 'ProvisioningInProgress',
      override: true,
    });
    expect(marked).toMatchObject({ ok: true });
    await page.getByRole('button', { name: 'Settings' }).click();
    const panel = page.getByRole('region', { name: 'Proof of delivery' });
    await panel.scrollIntoViewIfNeeded();
    await check(page, 'settings-proof-of-delivery');
    await panel.getByLabel('Marked since (optional)').fill('2026-11-01');
    await panel.getByRole('button', { name: 'Export statuses (CSV)' }).click();
    await expect
      .poll(() => panel.innerText())
      .toMatch(/Exported 1 status to \/home\/anna\/Documents\/seller-tray-statuses-\d{4}-\d{2}-\d{2}\.csv/);
    await check(page, 'settings-proof-of-delivery-exported');
    expect(saved).toEqual([expect.stringContaining(`,${orderId},ProvisioningInProgress,`)]);
  }, 60_000);

  it('inbox, order, settings and diagnosis pass axe-core', async () => {
    const { page, service, settingsFile } = await openApp({ configured: true, colorScheme, viewport });
    await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
    await admin(sim.url, 'POST', 'purchases', {
      order: { buyerCustomerParty: { party: { partyName: 'Nordlicht Analytics GmbH & Co. KG' } } },
    });
    await service.handle('checkNow', undefined);
    await page.getByRole('option').filter({ hasText: 'Nordlicht' }).waitFor();
    // The arrival on top, the first sync's backlog folded away under its heading.
    await page.locator('.inbox-group.group-backlog').waitFor();
    await check(page, 'inbox');
    await page.getByRole('button', { name: 'Show the backlog' }).click();
    await page.locator('.inbox-row.backlog').first().waitFor();
    await check(page, 'inbox-backlog');
    expect(await page.locator('.inbox-row.backlog .urgency-word').count()).toBe(0);

    // Two rows selected for a bulk step, and its question.
    const list = page.getByRole('listbox', { name: 'Orders' });
    await list.focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Shift+ArrowDown');
    await page.getByText('2 orders selected').waitFor();
    await check(page, 'inbox-selected');
    await page.getByRole('button', { name: /^Start provisioning \(/ }).click();
    await page.getByRole('alertdialog').waitFor();
    await check(page, 'inbox-bulk-confirm');
    await page.getByRole('button', { name: 'Keep them as they are' }).click();
    await page.keyboard.press('Escape');
    await page.getByText('2 orders selected').waitFor({ state: 'detached' });

    // Help, from "?", and back (Help's own checks: help.test.ts).
    await page.keyboard.press('?');
    await page.getByRole('region', { name: 'Help' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('region', { name: 'Help' }).waitFor({ state: 'detached' });

    // A search that finds nothing: no empty list of options.
    await page.getByLabel('Search orders').fill('no order is called this');
    await page.getByText('No orders match.').waitFor();
    await check(page, 'inbox-empty-search');
    await page.getByLabel('Search orders').fill('');
    // No status chip, waiting time or product (the demo's, of usual length) is cut short, whatever the status.
    for (const status of ['In progress', 'Completed', 'Failed', 'All']) {
      await page.locator('label.filter-chip', { hasText: status }).click();
      await page.locator('.inbox-row .chip').first().waitFor();
      const cut = await page.evaluate(() =>
        [...document.querySelectorAll('.inbox-row .chip, .inbox-row .row-age, .inbox-row .row-sub')]
          .filter((e) => e.scrollWidth > e.clientWidth)
          .map((e) => e.textContent),
      );
      expect(cut, status).toEqual([]);
    }

    await openOrder(page, firstWaitingOrderId());
    // The heading shows at once from the inbox's row: the check waits for the whole order.
    await page.getByRole('region', { name: 'To provision' }).waitFor();
    // From 900 px the inbox stays beside the order.
    const split = viewport.width >= 900;
    expect(await page.locator('.split').count()).toBe(split ? 1 : 0);
    await check(page, split ? 'order-split' : 'order');

    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('form', { name: 'Settings' }).waitFor();
    await check(page, 'settings');

    // A second account, added in Settings → Accounts and listed beside the first; its removal asked first.
    await page.getByRole('button', { name: 'Add an account' }).click();
    const adding = page.getByRole('form', { name: 'Add an account' });
    await adding.getByLabel('Label (such as EU, US, Test)').fill('Test');
    await adding.getByLabel('Base URL').fill(sim.url);
    await adding.getByLabel('Client id').fill(SECOND_CLIENT.clientId);
    await adding.getByLabel('Client secret').fill(SECOND_CLIENT.clientSecret);
    await check(page, 'settings-add-account');
    await adding.getByRole('button', { name: 'Check and add' }).click();
    await page.getByRole('button', { name: 'Remove Test' }).waitFor();
    await check(page, 'settings-accounts');
    // Test's notifications paused alone: its row says until when, with Resume.
    await page.getByRole('button', { name: 'Pause notifications of Test' }).click();
    const choices = page.getByRole('group', { name: 'Pause notifications of Test' });
    await choices.waitFor();
    await check(page, 'settings-account-pause');
    // Refused (the settings file turned into a folder cannot be written): said in the row, the
    // focus back on the choice (Chromium drops it to the page as the choice is disabled), and
    // Escape closes the choices, the focus on Pause.
    const saved = await readFile(settingsFile);
    await rm(settingsFile);
    await mkdir(settingsFile);
    await choices.getByRole('button', { name: 'For 4 hours' }).click();
    await page
      .locator('.account-list')
      .getByRole('alert')
      .filter({ hasText: 'could not read or write its files' })
      .waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? null);
    await expect.poll(focused).toBe('For 4 hours');
    await check(page, 'settings-account-pause-refused');
    await page.keyboard.press('Escape');
    await choices.waitFor({ state: 'detached' });
    await expect.poll(focused).toBe('Pause notifications of Test');
    await rm(settingsFile, { recursive: true });
    await writeFile(settingsFile, saved);
    await page.getByRole('button', { name: 'Pause notifications of Test' }).click();
    await choices.getByRole('button', { name: 'For 1 hour' }).click();
    await page.getByRole('button', { name: 'Resume notifications of Test' }).waitFor();
    await page.getByText(/Notifications paused until/).waitFor();
    await check(page, 'settings-account-paused');
    await page.getByRole('button', { name: 'Remove Test' }).click();
    await page.getByRole('alertdialog', { name: 'Remove Test?' }).waitFor();
    await check(page, 'settings-remove-account');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove Test' }).click();
    await page.getByRole('button', { name: 'Remove Test' }).waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Diagnose connection' }).click();
    await page.getByRole('region', { name: 'Diagnosis report' }).waitFor();
    await page.getByRole('region', { name: 'Diagnosis report' }).scrollIntoViewIfNeeded();
    await check(page, 'diagnose');

    // Paused, and the marketplace failing: both banners, and the header with them at most a
    // quarter of the window.
    await page.getByRole('button', { name: 'Inbox' }).click();
    await page.getByRole('button', { name: 'Pause notifications' }).click();
    await page.getByRole('button', { name: 'Until I resume' }).click();
    await page.getByText('Notifications paused until you resume them').waitFor();
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
    await page.getByRole('button', { name: 'Check now' }).click();
    await page.getByRole('alert').filter({ hasText: 'having problems' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, `inbox-banners-${colorScheme}-${size}.png`) });
    const top = () =>
      page.evaluate(() => {
        const box = (selector: string) =>
          document.querySelector(selector)?.getBoundingClientRect().height ?? 0;
        return box('.app-header') + box('.banners');
      });
    expect(await top()).toBeLessThanOrEqual(viewport.height / 4);
    await check(page, 'inbox-banners');

    // Resume failing as well (the settings file turned into a folder cannot be written): it is
    // said under the banners, which keep their size, its detail behind Details.
    await rm(settingsFile);
    await mkdir(settingsFile);
    await page.locator('.paused-banner').getByRole('button', { name: 'Resume' }).click();
    const failed = page
      .locator('.problems')
      .getByRole('alert')
      .filter({ hasText: 'could not read or write its files' });
    await failed.getByRole('button', { name: 'Details' }).click();
    await failed.getByText(/^Message: EISDIR/).waitFor();
    expect(await top()).toBeLessThanOrEqual(viewport.height / 4);
    await check(page, 'inbox-resume-failed');
    // And from the header's menu: said in its panel, which floats over the page.
    await page.getByRole('button', { name: 'Paused notifications' }).click();
    await page.getByRole('button', { name: 'For 1 hour' }).click();
    const inMenu = page.locator('.pause-panel').getByRole('alert');
    await inMenu.getByRole('button', { name: 'Details' }).click();
    await inMenu.getByText(/^Message: EISDIR/).waitFor();
    expect(await top()).toBeLessThanOrEqual(viewport.height / 4);
    await check(page, 'inbox-pause-failed');
  }, 90_000);

  it('help opens by "?" and by click, and passes axe-core', async () => {
    const { page } = await openApp({ configured: true, colorScheme, viewport });
    const help = page.getByRole('region', { name: 'Help' });
    const list = page.getByRole('listbox', { name: 'Orders' });
    await list.getByRole('option').first().waitFor();
    // "?" typed into the search box is the search's own.
    await page.getByLabel('Search orders').fill('?');
    await page.getByText('No orders match.').waitFor();
    expect(await help.count()).toBe(0);
    await page.getByLabel('Search orders').fill('');

    // "?" from the list: Help, its heading focused, nothing wider than the window; Escape: back.
    await list.focus();
    await page.keyboard.press('?');
    await help.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Help');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      viewport.width,
    );
    await check(page, 'help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await list.waitFor();

    // The header's Help, and its Close; the inbox's keys button opens it at the keys.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Help' }).click();
    await help.waitFor();
    await help.getByRole('button', { name: /^Close/ }).click();
    await help.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await help.getByRole('heading', { name: 'Keys' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keys');
    await check(page, 'help-keys');
    // Its end: what to do when something is wrong, and the way to Settings.
    await help.getByRole('button', { name: 'Open Settings' }).scrollIntoViewIfNeeded();
    await check(page, 'help-trouble');
    await help.getByRole('button', { name: 'Open Settings' }).click();
    await page.getByRole('heading', { level: 2, name: 'Settings' }).waitFor();
  }, 60_000);
  it('needs attention passes axe-core, and sends again a status the marketplace lost', async () => {
    const { page, service } = await openApp({
      configured: true,
      colorScheme,
      viewport,
      settings: { reminderAfterMinutes: 15, staleInProgressDays: 1, undoSeconds: 0 },
    });
    await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
    // A status the marketplace accepts and never lists, then events it sends that cannot be read.
    await admin(sim.url, 'PATCH', 'faults', { quirks: ['lost-posts'] });
    const marked = await service.handle('markStatus', {
      orderId: firstWaitingOrderId(),
      statusCode: 'ProvisioningInProgress',
    });
    expect(marked.ok).toBe(true);
    await expect.poll(() => service.state().pendingOutbox).toBe(0);
    for (let poll = 0; poll < 3; poll++) await service.handle('checkNow', undefined);
    await admin(sim.url, 'PATCH', 'faults', { quirks: ['unreadable-events'] });
    await service.handle('checkNow', undefined);
    expect(service.state().attention).toMatchObject({ unconfirmed: 1 });

    await page.getByRole('button', { name: /^Needs attention/ }).click();
    const lost = page.getByRole('region', { name: 'Statuses the marketplace did not show' });
    await lost.waitFor();
    await page.getByRole('region', { name: 'Unreadable items kept aside' }).waitFor();
    await check(page, 'attention');
    // The statuses and the items kept aside, scrolled to, to look at too.
    await lost.scrollIntoViewIfNeeded();
    await check(page, 'attention-statuses');

    await admin(sim.url, 'PATCH', 'faults', { quirks: [] });
    await lost.getByRole('button', { name: /^Send again: In progress for / }).click();
    await page.getByText('In progress is being sent again.').waitFor();
    await service.handle('checkNow', undefined);
    await lost.waitFor({ state: 'detached' });
    // Snoozing a new order's urgent announcement, on this laptop.
    const notStarted = page.getByRole('region', { name: 'New orders not started' });
    await notStarted
      .getByRole('button', { name: /^Snooze for 1 hour: / })
      .first()
      .click();
    await page.getByText(/not announced as urgent on this laptop before /).waitFor();
    await notStarted
      .getByText(/urgent announcement snoozed until/)
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Mark the unreadable items as seen' }).click();
    await page.getByRole('region', { name: 'Unreadable items kept aside' }).waitFor({ state: 'detached' });
    await check(page, 'attention-after');
  }, 90_000);
});

describe('orders', () => {
  it('shows a new purchase in the inbox, with a notification request for it', async () => {
    const { page, service, events } = await openApp({ configured: true });
    await page.getByRole('listbox', { name: 'Orders' }).waitFor();
    const created = await admin(sim.url, 'POST', 'purchases', {
      order: { buyerCustomerParty: { party: { partyName: 'Tundra Logistics Oy' } } },
    });
    await service.handle('checkNow', undefined);
    await page
      .getByRole('listbox', { name: 'Orders' })
      .getByRole('option')
      .filter({ hasText: 'Tundra Logistics Oy' })
      .waitFor();
    expect(events).toContainEqual({
      type: 'notification',
      request: expect.objectContaining({
        kind: 'order',
        orderId: created.json.orderId,
        title: 'New order from Tundra Logistics Oy',
      }),
    });
    await page.screenshot({ path: join(SCREENSHOTS, 'inbox.png') });
  }, 60_000);

  it.each(['light', 'dark'] as const)(
    'shows every field of an order, as the simulator has it (%s theme)',
    async (colorScheme) => {
      const { page } = await openApp({ configured: true, colorScheme });
      const order = JSON.parse(sim.store.orderJson(1001, firstWaitingOrderId()) ?? '{}');
      await openOrder(page, order.orderId);
      await page.getByRole('heading', { name: 'Order details' }).waitFor();
      await afterRendering(page);
      const text = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
      const buyer = order.buyerCustomerParty;
      const expected = [
        order.orderId,
        buyer.party.partyName,
        buyer.supplierAssignedAccountId,
        ...buyer.party.partyIdentifications.map((i: { id: string }) => i.id),
        buyer.party.postalAddress.cityName,
        buyer.party.postalAddress.postalZone,
        buyer.buyerContact.name,
        buyer.buyerContact.electronicMail,
        buyer.buyerContact.telephone,
        order.sellerSupplierParty.party.partyName,
        ...(await page.evaluate(
          (dates) =>
            dates.map((date) =>
              new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(
                Date.parse(`${date}T00:00:00Z`),
              ),
            ),
          [order.validityPeriod.startDate, order.validityPeriod.endDate],
        )),
        ...order.documentLines.flatMap((l: { lineItem: { name: string; sellersItemId: string } }) => [
          l.lineItem.name,
          l.lineItem.sellersItemId,
        ]),
        ...(order.note ? [order.note] : []),
      ];
      for (const value of expected) expect(text).toContain(String(value));
      // Until drawn, the lines' group is as tall as the lines it holds (its style is let through the CSP).
      const reserved = await page.locator('.line-group').evaluate((group) => {
        const style = getComputedStyle(group);
        return { size: style.containIntrinsicSize, line: 3.2 * Number.parseFloat(style.fontSize) };
      });
      expect(reserved.size).toMatch(/^auto [\d.]+px$/);
      expect(Number.parseFloat(reserved.size.slice('auto '.length))).toBeCloseTo(
        order.documentLines.length * reserved.line,
      );
      await page.screenshot({ path: join(SCREENSHOTS, `order-detail-${colorScheme}.png`), fullPage: true });
    },
    60_000,
  );

  it('marks InProgress, then Completed, and the simulator has both events', async () => {
    const { page, service } = await openApp({ configured: true, settings: { undoSeconds: 0 } });
    const orderId = firstWaitingOrderId();
    await openOrder(page, orderId);
    await page.getByRole('button', { name: 'Start provisioning' }).click();
    // The order's own status (beside the inbox, its filters say "In progress" too).
    await page
      .locator('.order-detail')
      .getByText(/In progress/i)
      .first()
      .waitFor();
    await service.handle('checkNow', undefined);
    await page.waitForTimeout(700); // a second decision, not a double click
    await page.getByRole('button', { name: 'Mark completed' }).click();
    await service.handle('checkNow', undefined);
    await expect
      .poll(() => statusesPosted(orderId), { timeout: 10_000 })
      .toEqual(['ProvisioningInProgress', 'ProvisioningCompleted']);
  }, 60_000);

  it("writes a total in the browser's locale, the same in the inbox row as on the order page", async () => {
    const { page, service } = await openApp({ configured: true, locale: 'de-DE' });
    await page.getByRole('listbox', { name: 'Orders' }).waitFor();
    const created = await admin(sim.url, 'POST', 'purchases', {
      order: {
        buyerCustomerParty: { party: { partyName: 'Brauhaus Kessler KG' } },
        documentCurrencyCode: 'EUR',
        anticipatedMonetaryTotal: { amount: 1234.56, currencyCode: 'EUR' },
      },
    });
    await service.handle('checkNow', undefined);
    const row = page.getByRole('option').filter({ hasText: 'Brauhaus Kessler KG' });
    await row.locator('.row-amount').filter({ hasText: /\S/ }).waitFor();
    const inRow = await row.locator('.row-amount').innerText();
    expect(inRow).toMatch(/^1\.234,56\s€$/);
    await openOrder(page, created.json.orderId);
    await page.getByRole('region', { name: 'Order details' }).waitFor();
    expect(await page.locator('.order-total').innerText()).toBe(inRow);
  }, 60_000);

  it('renders HTML and script in order text as inert text', async () => {
    const payload = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
    const created = await admin(sim.url, 'POST', 'purchases', {
      order: { note: payload, buyerCustomerParty: { party: { partyName: payload } } },
    });
    const { page, service } = await openApp({ configured: true });
    await service.handle('checkNow', undefined);
    await page.getByRole('listbox', { name: 'Orders' }).waitFor();
    await openOrder(page, created.json.orderId);
    await page.getByText(payload).first().waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
  }, 60_000);
});

const SIZES = [DESKTOP, POPOVER];

describe('the order page', () => {
  it.each(SIZES)(
    'at $width×$height, by keyboard: a mark undone posts nothing; a mark left alone is posted once, naming who',
    async (viewport) => {
      const { page } = await openApp({ configured: true, viewport, settings: { undoSeconds: 3 } });
      const orderId = firstWaitingOrderId();
      await openOrder(page, orderId);
      const start = page.getByRole('button', { name: 'Start provisioning' });
      await start.focus();
      await page.keyboard.press('Enter');
      const undo = page.locator('.undo-bar').getByRole('button', { name: /^Undo/ });
      await undo.waitFor();
      await expectWithin(undo, { x: 0, y: 0, ...viewport });
      await page.screenshot({
        path: join(SCREENSHOTS, `order-page-undo-${viewport.width}x${viewport.height}.png`),
      });
      // The focus moved on to the next waiting order, never to the next step (a double Enter marks once).
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent))
        .toBe('Next waiting order →');
      await page.keyboard.press('Control+z');
      await page.getByText('Undone: the marketplace was not told.').waitFor();
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent))
        .toBe('Start provisioning');
      await page.waitForTimeout(3_500); // past the grace period
      expect(statusesPosted(orderId)).toEqual([]);

      await page.keyboard.press('Enter');
      await undo.waitFor();
      await expect
        .poll(() => statusesPosted(orderId), { timeout: 15_000 })
        .toEqual(['ProvisioningInProgress']);
      const posted = sim.store
        .listEvents(1001, 0, 100_000)
        .items.find(
          (e) => e.statusCode === 'ProvisioningInProgress' && e.additionalProperties?.[0]?.value === orderId,
        );
      expect(posted?.description).toMatch(/^Provisioning started by \S.*\.$/);
      await page
        .getByText(/^Marked In progress by /)
        .first()
        .waitFor();

      // Escape goes back to the inbox, on this order's row.
      await page.keyboard.press('Escape');
      const list = page.getByRole('listbox', { name: 'Orders' });
      await expect.poll(() => list.evaluate((el) => el === document.activeElement)).toBe(true);
    },
    60_000,
  );

  it('at 420×640, the undo bar covers nothing: it takes its own room below the page while a mark is held', async () => {
    const { page } = await openApp({ configured: true, viewport: POPOVER, settings: { undoSeconds: 30 } });
    await openOrder(page, firstWaitingOrderId());
    await page.getByRole('button', { name: 'Start provisioning' }).click();
    await page.locator('.undo-bar').getByRole('button', { name: /^Undo/ }).waitFor();
    await page.waitForTimeout(700); // a press right after a mark is taken for the same press
    await page.getByRole('button', { name: 'Mark failed…' }).click();
    await page.getByRole('button', { name: 'Mark as failed' }).waitFor();
    // The bar takes its own room below the page: no part of what scrolls lies under it.
    const [content, bar] = await Promise.all([
      page.locator('main.content').boundingBox(),
      page.locator('.undo-bar').boundingBox(),
    ]);
    if (!content || !bar) throw new Error('not laid out');
    expect(content.y + content.height).toBeLessThanOrEqual(bar.y);
  }, 60_000);

  it.each(
    SIZES.flatMap((size) => (['light', 'dark'] as const).map((colorScheme) => ({ ...size, colorScheme }))),
  )(
    'puts what to provision within the first screen at $width×$height ($colorScheme), and fits the width',
    async ({ width, height, colorScheme }) => {
      const { page } = await openApp({ configured: true, colorScheme, viewport: { width, height } });
      const orderId = orderWithMostLines();
      await openOrder(page, orderId);
      const firstLine = page.getByRole('list', { name: 'Order lines' }).getByRole('listitem').first();
      await firstLine.waitFor();
      const box = await firstLine.boundingBox();
      expect(box && box.y + 24).toBeLessThan(height);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
      const content = page.locator('main.content');
      expect(await content.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await page.screenshot({ path: join(SCREENSHOTS, `order-page-${width}x${height}-${colorScheme}.png`) });
      // The whole page: the content scrolls, so it is shot as tall as it is.
      const full = await content.evaluate((el) => el.scrollHeight);
      await page.setViewportSize({ width, height: Math.min(full + 200, 6000) });
      await page.screenshot({
        path: join(SCREENSHOTS, `order-page-${width}x${height}-${colorScheme}-full.png`),
      });
    },
    60_000,
  );
});

describe('acting where you are', () => {
  /** New purchases in the marketplace, read by the app: they are "Just arrived", on top. */
  async function arrive(page: Page, service: SellerTrayService, buyers: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const partyName of buyers) {
      const created = await admin(sim.url, 'POST', 'purchases', {
        order: { buyerCustomerParty: { party: { partyName } } },
      });
      ids.push(created.json.orderId);
    }
    await service.handle('checkNow', undefined);
    const orders = page.getByRole('listbox', { name: 'Orders' }).getByRole('option');
    for (const buyer of buyers) await orders.filter({ hasText: buyer }).waitFor();
    return ids;
  }

  it.each(SIZES)(
    'at $width×$height: a new order on top, then Completed with four keys and no click, or three clicks',
    async (viewport) => {
      const { page, service } = await openApp({ configured: true, viewport, settings: { undoSeconds: 1 } });
      await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
      const [byClicks, byKeys] = await arrive(page, service, ['Mouse AB', 'Keyboard Oy']);
      // Both just arrived: on top under "Longest waiting first", above 30 older orders.
      const orders = page.getByRole('listbox', { name: 'Orders' }).getByRole('option');
      const first = orders.first();
      expect(await first.innerText()).toContain('Keyboard Oy');
      expect(await page.locator('.inbox-group').first().innerText()).toBe('Just arrived · 2');

      // By keyboard: "/" to the search, ↓ into the list (on its first order), s, then c.
      await page.keyboard.press('/');
      await page.keyboard.press('ArrowDown');
      const row = orders.filter({ hasText: 'Keyboard Oy' });
      await expect.poll(() => row.getAttribute('aria-selected')).toBe('true');
      await page.keyboard.press('s');
      await row.locator('.chip', { hasText: 'In progress' }).waitFor();
      await page.waitForTimeout(700); // a second decision, not a double press
      await page.keyboard.press('c');
      await row.locator('.chip', { hasText: 'Completed' }).waitFor();
      await page.screenshot({
        path: join(SCREENSHOTS, `keys-to-completed-${viewport.width}x${viewport.height}.png`),
      });
      await expect
        .poll(() => statusesPosted(byKeys as string), { timeout: 15_000 })
        .toEqual(['ProvisioningInProgress', 'ProvisioningCompleted']);

      // By mouse: the row, Start provisioning, Mark completed.
      await orders.filter({ hasText: 'Mouse AB' }).click();
      await page.getByRole('button', { name: 'Start provisioning' }).click();
      await page.waitForTimeout(700); // a second decision, not a double click
      await page.getByRole('button', { name: 'Mark completed' }).click();
      await expect
        .poll(() => statusesPosted(byClicks as string), { timeout: 15_000 })
        .toEqual(['ProvisioningInProgress', 'ProvisioningCompleted']);
    },
    60_000,
  );

  it('bulk: two arrivals started together after the question; Ctrl+Z takes both back, nothing posted', async () => {
    const { page, service } = await openApp({
      configured: true,
      viewport: POPOVER,
      settings: { undoSeconds: 3 },
    });
    await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
    const ids = await arrive(page, service, ['Bulk One Oy', 'Bulk Two AB']);
    const list = page.getByRole('listbox', { name: 'Orders' });
    await list.focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Shift+ArrowDown');
    await page.getByRole('button', { name: 'Start provisioning (2)' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Start provisioning: 2 orders?' });
    // Enter takes the safe choice: nothing is marked.
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Start provisioning (2)' }).click();
    await dialog.getByRole('button', { name: 'Start provisioning (2)' }).click();
    const bar = page.locator('.undo-bar');
    await bar.getByText('Marked In progress: 2 orders.').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'bulk-undo-420x640.png') });
    await page.keyboard.press('Control+z');
    await bar.getByText('2 of 2 undone: the marketplace was not told of them.').waitFor();
    await page.waitForTimeout(3_500); // past the hold
    for (const id of ids) expect(statusesPosted(id)).toEqual([]);

    // Left alone, each is posted once.
    await list.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('Space');
    await page.keyboard.press('Shift+ArrowDown');
    await page.getByRole('button', { name: 'Start provisioning (2)' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Start provisioning (2)' }).click();
    for (const id of ids) {
      await expect.poll(() => statusesPosted(id), { timeout: 15_000 }).toEqual(['ProvisioningInProgress']);
    }
  }, 60_000);
});

describe('a stored order whose refresh failed', () => {
  it('says when Seller Tray reads it again, the failure behind Details, with no axe-core violation', async () => {
    const { page, service } = await openApp({ configured: true, viewport: DESKTOP });
    await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
    const created = await admin(sim.url, 'POST', 'purchases', {
      order: { buyerCustomerParty: { party: { partyName: 'Harrow Analytics Ltd' } } },
    });
    const orderId: string = created.json.orderId;
    await service.handle('checkNow', undefined);
    await openOrder(page, orderId);
    await page.getByRole('region', { name: 'To provision' }).waitFor();
    // Another laptop starts it, and the marketplace then refuses this client the order (its own failure).
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'getOrder', action: 'status', status: 403, times: 10_000 }],
    });
    const token = await tokenFor(sim.url, SECOND_CLIENT.clientId, SECOND_CLIENT.clientSecret);
    const started = await rawCall(sim.url, 'sendEvent', {
      token,
      body: {
        eventTypeCode: 'ServicePurchased',
        statusCode: 'ProvisioningInProgress',
        description: 'Started on another laptop',
        additionalProperties: [{ name: 'orderId', value: orderId }],
      },
    });
    expect(started.status).toBeLessThan(300);
    await service.handle('checkNow', undefined);

    const note = page
      .getByRole('status')
      .filter({ hasText: 'Could not read this order from the marketplace' });
    await note.waitFor();
    expect(await note.innerText()).toMatch(/as read at .+\. Seller Tray tries again at .+\./);
    expect(await note.innerText()).not.toMatch(/HTTP|getOrder|request id/i);
    await note.getByRole('button', { name: 'Details', exact: true }).click();
    await note.getByText(/^HTTP status: 403/).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'order-refresh-failed.png') });
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe('an error on the order page', () => {
  it('says what happened in plain words, its request id behind Details, with no axe-core violation', async () => {
    const { page, service } = await openApp({ configured: true });
    await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
    // Every read of an order's document fails, soon (a Retry-After of 0 waits only the short backoff).
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'getOrder', action: 'status', status: 503, retryAfterSeconds: 0, times: 10_000 }],
    });
    const created = await admin(sim.url, 'POST', 'purchases', {
      order: { buyerCustomerParty: { party: { partyName: 'Fjordvik Data AS' } } },
    });
    await service.handle('checkNow', undefined);
    await openOrder(page, created.json.orderId);

    const alert = page.getByRole('alert').filter({ hasText: 'The marketplace is having problems' });
    await alert.waitFor();
    expect(await alert.innerText()).not.toMatch(/HTTP|request id|getOrder/i);
    // Its fetch failed: it says when Seller Tray reads it again by itself.
    expect(await alert.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await alert.innerText()).toMatch(/Seller Tray tries again at .+\./);
    const details = alert.getByRole('button', { name: 'Details', exact: true });
    await details.click();
    expect(await details.getAttribute('aria-expanded')).toBe('true');
    await alert.getByText('Operation: getOrder').waitFor();
    await alert.getByText('HTTP status: 503 ServiceUnavailable').waitFor();
    expect(await alert.getByText(/^Request id: /).innerText()).toMatch(/^Request id: [0-9a-f-]{36}$/);
    await alert.getByRole('button', { name: 'Copy the details' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'order-error-details.png') });
    expect(await axeViolations(page)).toEqual([]);

    await admin(sim.url, 'PATCH', 'faults', { script: [] });
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('region', { name: 'To provision' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  }, 60_000);
});

describe("the marketplace's text in the window", () => {
  it('is isolated and plain, and however long, the actions stay on screen', async () => {
    const { page, service } = await openApp({ configured: true });
    // An arrival (an order of the first sync's backlog would be folded away with it).
    await page.getByRole('listbox', { name: 'Orders' }).waitFor();
    const created = await admin(sim.url, 'POST', 'purchases', {
      order: {
        ...hostileOrder,
        sellerSupplierParty: { party: { partyName: 'Acme \u202egoogle.com\u202c Ltd' } },
      },
    });
    await service.handle('checkNow', undefined);
    const row = page.getByRole('option').filter({ hasText: 'URGENT' });
    await row.waitFor();
    // The row keeps its total in view beside a name of 200,000 characters.
    const total = row.locator('.row-amount');
    expect(await total.innerText()).toBe('€9,999.99');
    await expectWithin(total, await row.boundingBox());
    // On one line, cut with an ellipsis: no break point in the name makes it a second line.
    const height = async (part: string) => (await row.locator(part).boundingBox())?.height ?? Number.NaN;
    expect(await height('.row-title')).toBeLessThanOrEqual((await height('.row-amount')) + 1);

    await openOrder(page, created.json.orderId);
    const heading = page.locator('#order-heading bdi');
    await heading.waitFor();
    const viewport = { x: 0, y: 0, ...page.viewportSize() } as Box;
    for (const name of [/^Start provisioning/, /^More…/]) {
      await expectWithin(page.getByRole('button', { name }), viewport);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);

    await afterRendering(page);
    const main = await page.locator('main').innerText();
    // innerText puts line breaks between blocks, and only there.
    expect(main.replaceAll('\n', '')).not.toMatch(CONTROL_OR_BIDI);
    expect(main).toContain('Acme google.com Ltd');
    // In a name, the buyer's line break and tab forge no line of their own.
    for (const name of [heading, page.locator('dl[aria-label="Buyer"] dd').first()]) {
      expect(await name.innerText()).toMatch(/^<b>URGENT<\/b> <a href=[^\n]*\[2J forged-order-id Bcc: /);
    }
    // The product's right-to-left override is gone: it reads as the characters it holds.
    expect(await page.locator('.line-product').first().innerText()).toBe('00.1$ :latoT');
    expect(await heading.evaluate((e) => getComputedStyle(e).unicodeBidi)).toBe('isolate');
    await page.screenshot({ path: join(SCREENSHOTS, 'order-detail-hostile.png') });
  }, 60_000);
});

describe('connection', () => {
  it('tells a marketplace with problems from one out of reach, and clears the banner when it works again', async () => {
    const { page, service } = await openApp({ configured: true });
    await page.getByRole('listbox', { name: 'Orders' }).waitFor();
    const status = page.getByRole('list', { name: 'Status' });

    await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
    await service.handle('checkNow', undefined);
    await status.getByText('Marketplace having problems').waitFor();
    const banner = page.getByRole('alert').filter({ hasText: 'The marketplace is having problems' });
    await banner.waitFor();
    expect(await banner.innerText()).not.toMatch(/HTTP|request id|listNewEvents/);
    await banner.getByText('Details').click();
    await banner
      .getByText(/^Request id: [0-9a-f-]{36}$/)
      .first()
      .waitFor();

    await admin(sim.url, 'PATCH', 'faults', { errorRate: 0, dropRate: 1 });
    await service.handle('checkNow', undefined);
    await status.getByText('Offline').waitFor();
    await page.getByRole('alert').filter({ hasText: 'could not be reached' }).waitFor();

    await admin(sim.url, 'PATCH', 'faults', { dropRate: 0 });
    await page.getByRole('button', { name: 'Check now' }).click();
    await status.getByText('Connected').waitFor();
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);
  }, 90_000);
});

describe('the log', () => {
  it('holds the request id of a failed poll; Settings says where the file is', async () => {
    const { page, service } = await openApp({ configured: true, logs: true });
    await page.getByRole('listbox', { name: 'Orders' }).waitFor();
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
    await service.handle('checkNow', undefined);
    const requestId = service.state().lastError?.match(/request id (\S+)\)/)?.[1];
    expect(requestId).toBeDefined();
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 0 });

    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Open log folder' }).click();
    const folder = logsDir(running[0]?.dir ?? '');
    await page
      .getByRole('status')
      .filter({ hasText: 'The log file is in this folder:' })
      .getByText(folder)
      .waitFor();
    const text = await readFile(join(folder, LOG_FILE_NAME), 'utf8');
    expect(text).toMatch(new RegExp(`poll failed operation=\\w+ status=50[03] requestId=${requestId} `));
    expect(text).not.toContain(CLIENT.clientSecret);
  }, 60_000);
});

type Box = { x: number; y: number; width: number; height: number };

/** The element is laid out entirely inside `box` (a row, the viewport). */
async function expectWithin(element: Locator, box: Box | null): Promise<void> {
  const inner = await element.boundingBox();
  expect(inner, 'laid out').not.toBeNull();
  expect(box).not.toBeNull();
  if (!inner || !box) return;
  expect(inner.x).toBeGreaterThanOrEqual(box.x);
  expect(inner.y).toBeGreaterThanOrEqual(box.y);
  expect(inner.x + inner.width).toBeLessThanOrEqual(box.x + box.width + 0.5);
  expect(inner.y + inner.height).toBeLessThanOrEqual(box.y + box.height + 0.5);
}

function firstWaitingOrderId(): string {
  const waiting = sim.store
    .listEvents(1001, 0, 100_000)
    .items.filter((e) => e.statusCode === 'ProvisioningStarted')
    .map((e) => e.additionalProperties?.[0]?.value ?? '');
  const progressed = new Set(
    sim.store
      .listEvents(1001, 0, 100_000)
      .items.filter((e) => e.statusCode !== 'ProvisioningStarted')
      .map((e) => e.additionalProperties?.[0]?.value),
  );
  const id = waiting.find((orderId) => !progressed.has(orderId));
  if (!id) throw new Error('the simulator has no waiting order');
  return id;
}

/** The simulator's order with the most lines (and so, most often, delivery contacts). */
function orderWithMostLines(): string {
  const orders = sim.store
    .listOrderJson(1001, 0, 100)
    .items.map((json) => JSON.parse(json) as { orderId: string; documentLines: unknown[] });
  orders.sort((a, b) => b.documentLines.length - a.documentLines.length);
  const id = orders[0]?.orderId;
  if (!id) throw new Error('the simulator has no order');
  return id;
}

function statusesPosted(orderId: string): string[] {
  return sim.store
    .listEvents(1001, 0, 100_000)
    .items.filter(
      (e) =>
        e.additionalProperties?.some((p) => p.value === orderId) && e.statusCode !== 'ProvisioningStarted',
    )
    .map((e) => e.statusCode);
}

describe('automations', () => {
  it('the order page tells a run waiting for a command slot from one running, in visible words; axe-core finds nothing', async () => {
    // Two orders' commands of one automation fill the process's command slots (2 on a 2-core
    // laptop; one an order more elsewhere): its third waits, while another automation's first runs.
    const hold = (name: string, orderTypes: string[]) => ({
      name,
      enabled: true,
      products: [],
      orderTypes,
      accounts: 'all' as const,
      action: {
        type: 'command' as const,
        command: [process.execPath, '-e', 'setTimeout(()=>{},60000)'],
        timeoutSeconds: 120,
      },
      reportStatus: null,
    });
    const { page, service } = await openApp({
      configured: true,
      viewport: DESKTOP,
      settings: {
        automationsEnabled: true,
        automations: [hold('provision', []), hold('notify', ['E2E-LATE'])],
      },
    });
    await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
    const before: string[] = [];
    for (let i = 0; i < COMMANDS_AT_ONCE; i++)
      before.push((await admin(sim.url, 'POST', 'purchases', {})).json.orderId as string);
    await service.handle('checkNow', undefined);
    const provisionRunning = async () => {
      let count = 0;
      for (const orderId of before) {
        const answer = await service.handle('getOrder', { orderId });
        if (
          answer.ok &&
          answer.value.automationRuns.some((r) => r.automation === 'provision' && r.state === 'running')
        )
          count += 1;
      }
      return count;
    };
    await expect.poll(provisionRunning, { timeout: 15_000 }).toBe(COMMANDS_AT_ONCE);
    const { orderId } = (await admin(sim.url, 'POST', 'purchases', { order: { orderTypeCode: 'E2E-LATE' } }))
      .json;
    const runs = await orderRuns(page, service, orderId);
    await expect
      .poll(() => runs.allInnerTexts(), { timeout: 15_000 })
      .toEqual([
        expect.stringMatching(/^provision …\s*waiting to run\s/),
        expect.stringMatching(/^notify …\s*running\s/),
      ]);
    await page.screenshot({ path: join(SCREENSHOTS, 'order-automations-waiting-light-1280x800.png') });
    expect(await axeViolations(page)).toEqual([]);
  });

  it.each(['light', 'dark'] as const)(
    'the order page shows their runs, output on demand and Run again; settings has their switch; axe-core finds nothing (%s)',
    async (colorScheme) => {
      const provision = `console.log('creating tenant for', JSON.parse(require('fs').readFileSync(0,'utf8')).orderId);console.error('quota exceeded in eu-central');process.exit(2)`;
      const { page, service } = await openApp({
        configured: true,
        colorScheme,
        viewport: DESKTOP,
        settings: {
          automationsEnabled: true,
          automations: [
            {
              name: 'notify',
              enabled: true,
              products: [],
              orderTypes: [],
              accounts: 'all',
              action: {
                type: 'command',
                command: [process.execPath, '-e', `console.log('posted')`],
                timeoutSeconds: 30,
              },
              reportStatus: null,
            },
            {
              name: 'provision',
              enabled: true,
              products: [],
              orderTypes: [],
              accounts: 'all',
              action: { type: 'command', command: [process.execPath, '-e', provision], timeoutSeconds: 30 },
              reportStatus: null,
            },
          ],
        },
      });
      await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
      const { orderId } = (
        await admin(sim.url, 'POST', 'purchases', {
          order: { buyerCustomerParty: { party: { partyName: 'Nordlicht Analytics GmbH & Co. KG' } } },
        })
      ).json;
      const runs = await orderRuns(page, service, orderId);
      await expect
        .poll(() => runs.allInnerTexts(), { timeout: 15_000 })
        .toEqual([
          expect.stringMatching(/^notify ✓\s*succeeded\s.* · exit 0\sShow output/s),
          expect.stringMatching(/^provision ✗\s*failed\s.* · exit 2\sShow output/s),
        ]);
      await runs.nth(1).getByText('Show output').click();
      await runs
        .nth(1)
        .getByText(/quota exceeded in eu-central/)
        .waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, `order-automations-${colorScheme}-1280x800.png`) });
      expect(await axeViolations(page)).toEqual([]);

      await runs.nth(1).getByRole('button', { name: 'Run again provision' }).click();
      // A new run under a new delivery id, failing again: its time is later.
      const runCount = async () => {
        const answer = await service.handle('getOrder', { orderId });
        return answer.ok ? answer.value.automationRuns.length : -1;
      };
      await expect.poll(runCount, { timeout: 15_000 }).toBe(3);

      await page.getByRole('button', { name: 'Settings' }).first().click();
      const toggle = page.getByLabel('Run the automations on this computer');
      await toggle.waitFor();
      expect(await toggle.isChecked()).toBe(true);
      await toggle.scrollIntoViewIfNeeded();
      expect(await toggle.getAttribute('aria-describedby')).toBeTruthy();
      await page.getByText(/switch it on in one place only/).waitFor();
      const listed = page.getByRole('list', { name: 'Automations' }).locator('.automation-summary');
      expect(await listed.allInnerTexts()).toEqual([
        expect.stringMatching(/^notify: command .* \(30 s\), for every new order$/),
        expect.stringMatching(/^provision: command .* \(30 s\), for every new order$/),
      ]);
      await page.screenshot({ path: join(SCREENSHOTS, `settings-automations-${colorScheme}-1280x800.png`) });
      expect(await axeViolations(page)).toEqual([]);

      // The editor: a webhook refused for plain http at its field, then saved, its secret set (never shown).
      await page.getByRole('button', { name: 'Add an automation' }).click();
      const editor = page.getByRole('form', { name: 'Add an automation' });
      await editor.getByLabel('Name').fill('billing hook');
      await editor.getByLabel('When a new order arrives').selectOption('webhook');
      await editor.getByLabel('Webhook address').fill('http://billing.example.com/seller-tray');
      await editor.getByLabel(/^Only for these products/).fill('BV-1TB');
      await editor.getByRole('button', { name: 'Save automation' }).click();
      await editor.getByText(/^the address must use https:\/\//).waitFor();
      await editor.getByLabel('Webhook address').scrollIntoViewIfNeeded();
      await page.screenshot({
        path: join(SCREENSHOTS, `settings-automation-editor-${colorScheme}-1280x800.png`),
      });
      expect(await axeViolations(page)).toEqual([]);
      await page.setViewportSize(POPOVER);
      await editor.getByLabel('Webhook address').scrollIntoViewIfNeeded();
      await page.screenshot({
        path: join(SCREENSHOTS, `settings-automation-editor-${colorScheme}-420x640.png`),
      });
      expect(await axeViolations(page)).toEqual([]);
      await page.setViewportSize(DESKTOP);
      await editor.getByLabel('Webhook address').fill('https://billing.example.com/seller-tray');
      await editor.getByRole('button', { name: 'Save automation' }).click();
      await page.getByText('billing hook is saved.').waitFor();
      await page.getByRole('button', { name: 'Set signing secret of billing hook' }).click();
      await page.getByLabel('New signing secret of billing hook').fill('whsec_e2e_never_shown');
      await page.getByRole('button', { name: 'Store in the keychain' }).click();
      // Stored (the field gone with it): then nowhere on the page, and "set" is all it says.
      await page.getByText('The signing secret of billing hook is in the keychain.').waitFor();
      await page.getByText('Signing secret: set').waitFor();
      expect(await page.content()).not.toContain('whsec_e2e_never_shown');
      await page.getByRole('button', { name: 'Test provision' }).click();
      await page.getByRole('button', { name: 'Run the test' }).click();
      await page.getByText('provision: failed (exit 2)').waitFor({ timeout: 15_000 });
      await page.getByRole('list', { name: 'Automations' }).scrollIntoViewIfNeeded();
      await page.screenshot({
        path: join(SCREENSHOTS, `settings-automations-edited-${colorScheme}-1280x800.png`),
      });
      expect(await axeViolations(page)).toEqual([]);
      await page.setViewportSize(POPOVER);
      await page.screenshot({
        path: join(SCREENSHOTS, `settings-automations-edited-${colorScheme}-420x640.png`),
      });
      expect(await axeViolations(page)).toEqual([]);
    },
    120_000,
  );
});
