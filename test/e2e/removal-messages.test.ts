// What the app tells at its start of removals a kill or a failure interrupted (issue 23), in real
// Chromium (the built renderer, the browser preview's bridge, the service): one account put back
// and listed again (statuses still to deliver), one whose secret the keychain refused to delete.
// Both banners arrive after the start (the removals are finished in the background), fit a
// tray-sized and a desktop window, say what to do in the app's terms, and pass axe-core.
import { mkdir, rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRef, keychainEntry } from '../../main/core/account/account-ref';
import { writeRemovalNote } from '../../main/core/account/removal-notes';
import { AccountSession } from '../../main/core/account/session';
import type { SecretStore } from '../../main/core/secrets';
import { SellerTrayService } from '../../main/core/service';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../../main/core/settings';
import { startPreview } from '../../main/preview/server';
import type { Simulator } from '../../simulator/server';
import { buildRenderer, launchChromium } from '../support/browser';
import { makeDataDir } from '../support/core';
import { markHeld } from '../support/held-mark';
import { memorySecrets } from '../support/memory-secrets';
import { oneSellerMarketplace } from '../support/one-seller-marketplace';
import { checkScreen, SCREENSHOTS } from '../support/preview-app';

const EU_CLIENT = { clientId: 'eu-removal-client', clientSecret: 'eu-removal-secret-1f3a' };
const US_CLIENT = { clientId: 'us-removal-client', clientSecret: 'us-removal-secret-7b2c' };
/** Labels as long as people give them. */
const EU = { label: 'Europe production', clientId: EU_CLIENT.clientId };
const US = { label: 'United States sandbox', clientId: US_CLIENT.clientId };
const APAC = { label: 'Asia Pacific reseller', baseUrl: 'https://apac.example.com', clientId: 'apac-client' };

let renderer: Awaited<ReturnType<typeof buildRenderer>>;
let browser: Browser;
let eu: Simulator;
let us: Simulator;

beforeAll(async () => {
  [renderer, browser, eu, us] = await Promise.all([
    buildRenderer(),
    launchChromium(),
    oneSellerMarketplace(31, 9101, 3, EU_CLIENT),
    oneSellerMarketplace(32, 9102, 3, US_CLIENT),
  ]);
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await eu?.close();
  await us?.close();
  await renderer?.remove();
});

/** A keychain that refuses to delete APAC's secret (locked), the others' as usual. */
function refusingApac(): SecretStore {
  const inner = memorySecrets();
  const apac = keychainEntry(accountRef(APAC));
  return {
    ...inner,
    delete: async (owner) => {
      if (owner.clientId === apac.clientId && owner.origin === apac.origin)
        throw new Error('The keychain is locked');
      return inner.delete(owner);
    },
  };
}

/** The service over `dir` in the preview, a page of `viewport` on it, for `use`; then all closed and `dir` removed. */
async function inPreview(
  dir: string,
  ports: { settings: ConfSettingsStore; secrets: SecretStore },
  viewport: { width: number; height: number },
  use: (page: Page, url: string, service: SellerTrayService) => Promise<void>,
): Promise<void> {
  const service = await SellerTrayService.open({ ...ports, dataRoot: dir });
  const preview = await startPreview({ service, rendererDir: renderer.dir });
  service.listening();
  const page = await browser.newPage({ viewport, locale: 'en-US' });
  try {
    await use(page, preview.url, service);
  } finally {
    await page.close();
    await preview.close();
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe.each([
  { width: 420, height: 640 },
  { width: 1280, height: 800 },
] as const)('removals interrupted, told at the start at %o', (viewport) => {
  it('say which account is listed again and which is not removed yet, and what to do, in words that fit', async () => {
    const dir = await makeDataDir();
    const secrets = refusingApac();
    const entries = {
      eu: { label: EU.label, baseUrl: eu.url, clientId: EU.clientId },
      us: { label: US.label, baseUrl: us.url, clientId: US.clientId },
      apac: APAC,
    };
    await secrets.set(keychainEntry(accountRef(entries.eu)), EU_CLIENT.clientSecret);
    await secrets.set(keychainEntry(accountRef(entries.us)), US_CLIENT.clientSecret);
    await secrets.set(keychainEntry(accountRef(APAC)), 'apac-secret');
    // US marked a status not yet delivered; both removals were killed once the list was saved.
    await markHeld(accountRef(entries.us), dir, US_CLIENT.clientSecret);
    writeRemovalNote(dir, { entry: entries.us, at: 1, automations: [] });
    writeRemovalNote(dir, { entry: APAC, at: 2, automations: [] });
    const settings = new ConfSettingsStore({ cwd: dir });
    settings.save({ ...DEFAULT_SETTINGS, accounts: [entries.eu] });
    // Another process holds both stores, so the removals wait until the window is there to tell them.
    const held = await Promise.all(
      [entries.us, APAC].map((entry) =>
        AccountSession.open(accountRef(entry), {
          surface: 'app',
          dataRoot: dir,
          clientSecret: async () => 'unused',
          settings: () => DEFAULT_SETTINGS,
        }),
      ),
    );
    await inPreview(dir, { settings, secrets }, viewport, async (page, url, service) => {
      await service.handle('checkNow', undefined);
      await page.goto(url);
      await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
      for (const session of held) await session.close();

      const alerts = page.getByRole('alert');
      await alerts.filter({ hasText: US.label }).waitFor({ timeout: 20_000 });
      await alerts.filter({ hasText: APAC.label }).waitFor({ timeout: 20_000 });
      await checkScreen(page, `removal-messages-${viewport.width}x${viewport.height}`);
      const told = await alerts.allInnerTexts();
      expect(told.join('\n')).not.toMatch(/seller-tray /); // the app ships without the CLI
      expect(told).toEqual(
        expect.arrayContaining([
          expect.stringContaining('could not be finished now (The keychain is locked)'),
          expect.stringContaining('remove it again in Settings once they are, or to discard them.'),
        ]),
      );
      // Nothing reaches past the window's edge.
      const widest = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(widest).toBeLessThanOrEqual(viewport.width);
      console.info(told.join('\n---\n'));
    });
  }, 90_000);
});

describe.each([
  { width: 420, height: 640 },
  { width: 1280, height: 800 },
] as const)('removing an account with statuses not sent, in Settings at %o', (viewport) => {
  it('names each status the second question would discard, in a dialog that fits', async () => {
    const dir = await makeDataDir();
    const secrets = memorySecrets();
    const entries = [
      { label: EU.label, baseUrl: eu.url, clientId: EU.clientId },
      { label: US.label, baseUrl: us.url, clientId: US.clientId },
    ];
    const [euEntry, usEntry] = entries as [(typeof entries)[0], (typeof entries)[0]];
    await secrets.set(keychainEntry(accountRef(euEntry)), EU_CLIENT.clientSecret);
    await secrets.set(keychainEntry(accountRef(usEntry)), US_CLIENT.clientSecret);
    const held = await markHeld(accountRef(usEntry), dir, US_CLIENT.clientSecret);
    const settings = new ConfSettingsStore({ cwd: dir });
    settings.save({ ...DEFAULT_SETTINGS, accounts: entries });
    await inPreview(dir, { settings, secrets }, viewport, async (page, url) => {
      await page.goto(url);
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByRole('button', { name: `Remove ${US.label}` }).click();
      await page.getByRole('alertdialog', { name: `Remove ${US.label}?` }).waitFor();
      await page
        .getByRole('alertdialog')
        .getByRole('button', { name: `Remove ${US.label}` })
        .click();
      const second = page.getByRole('alertdialog', { name: `Discard what ${US.label} has not sent?` });
      await second.waitFor();
      await checkScreen(page, `removal-discard-${viewport.width}x${viewport.height}`);
      const listed = await second.getByRole('listitem').allInnerTexts();
      expect(listed).toHaveLength(1);
      expect(listed[0]).toContain(held);
      expect(listed[0]).toMatch(/In progress/);
      const widest = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(widest).toBeLessThanOrEqual(viewport.width);
      expect(await second.innerText()).toContain(
        'Removing the account now discards it: the marketplace never hears of it.',
      );
      await second.getByRole('button', { name: 'Discard it and remove' }).waitFor();
      await second.getByRole('button', { name: 'Keep it until the status is sent' }).click();
      await second.waitFor({ state: 'detached' });
      expect(settings.load().settings.accounts.map((a) => a.label)).toEqual([EU.label, US.label]);
    });
  }, 90_000);
});
