// A second account whose secret the marketplace rejects, put right from Settings → Accounts in real
// Chromium at the tray popover's size (the built renderer, the browser preview's bridge, the
// service over two simulators), by keyboard alone: the banner says to enter the current secret in
// Settings, and the account's own row takes it; a wrong one is said and not stored, the right one
// connects the account. The first account's secret is left as it was.
import { rm } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeytarSecretStore, secretOwner } from '../../main/core/secrets';
import { SellerTrayService } from '../../main/core/service';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../../main/core/settings';
import { startPreview } from '../../main/preview/server';
import type { Simulator } from '../../simulator/server';
import { buildRenderer, launchChromium } from '../support/browser';
import { makeDataDir } from '../support/core';
import { oneSellerMarketplace } from '../support/one-seller-marketplace';
import { checkScreen } from '../support/preview-app';

const EU_CLIENT = { clientId: 'eu-client', clientSecret: 'eu-secret-5b1e' };
const US_CLIENT = { clientId: 'us-client', clientSecret: 'us-secret-rotated-77a0' };

let renderer: Awaited<ReturnType<typeof buildRenderer>>;
let browser: Browser;
let eu: Simulator;
let us: Simulator;
const secrets = new KeytarSecretStore();

beforeAll(async () => {
  [renderer, browser, eu, us] = await Promise.all([
    buildRenderer(),
    launchChromium(),
    oneSellerMarketplace(31, 8001, 3, EU_CLIENT),
    oneSellerMarketplace(32, 8002, 3, US_CLIENT),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([eu?.close(), us?.close()]);
  await renderer?.remove();
  await secrets.delete(secretOwner(eu.url, EU_CLIENT.clientId));
  await secrets.delete(secretOwner(us.url, US_CLIENT.clientId));
});

describe('a second account whose secret was rotated', () => {
  it('takes the current secret in its own row of Settings → Accounts, by keyboard, and connects', async () => {
    const dir = await makeDataDir();
    const settings = new ConfSettingsStore({ cwd: dir });
    settings.save({
      ...DEFAULT_SETTINGS,
      accounts: [
        { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId },
        { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId },
      ],
    });
    await secrets.set(secretOwner(eu.url, EU_CLIENT.clientId), EU_CLIENT.clientSecret);
    await secrets.set(secretOwner(us.url, US_CLIENT.clientId), 'us-secret-before-rotation');
    const service = await SellerTrayService.open({ settings, secrets, dataRoot: dir });
    const preview = await startPreview({ service, rendererDir: renderer.dir });
    service.listening();
    const page = await browser.newPage({ viewport: { width: 420, height: 640 }, locale: 'en-US' });
    try {
      await service.handle('checkNow', undefined);
      await page.goto(preview.url);
      await page.getByRole('alert').filter({ hasText: 'US: The marketplace rejected' }).waitFor();
      await page.getByRole('button', { name: 'Settings' }).click();
      const row = page
        .getByRole('region', { name: 'Accounts' })
        .getByRole('listitem')
        .filter({ has: page.getByText('US', { exact: true }) });
      await row.getByText('Credentials rejected').waitFor();

      // By keyboard: the button opens the row's secret field with the focus in it.
      await row.getByRole('button', { name: 'Replace secret of US' }).focus();
      await page.keyboard.press('Enter');
      const field = page.getByLabel('New client secret of US');
      await expect.poll(() => field.evaluate((e) => e === document.activeElement)).toBe(true);

      await page.keyboard.type('not-the-secret');
      // Sent by its button (Tab, Enter), disabled while the marketplace checks it.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      // Said by the form, in Accounts (the banner above says the same of the stored secret), and not stored.
      await page
        .getByRole('region', { name: 'Accounts' })
        .getByRole('alert')
        .filter({ hasText: 'The marketplace rejected the client id or secret' })
        .waitFor();
      expect(await secrets.get(secretOwner(us.url, US_CLIENT.clientId))).toBe('us-secret-before-rotation');
      // The focus where the secret is typed again, not dropped to the page.
      await expect.poll(() => field.evaluate((e) => e === document.activeElement)).toBe(true);
      await checkScreen(page, 'account-reconnect-rejected-light-420x640');

      await field.fill(US_CLIENT.clientSecret);
      await page.keyboard.press('Enter');
      await row.getByText('Connected').waitFor();
      // Back on the button that opened it, the field gone.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent))
        .toBe('Replace secret of US');
      await expect
        .poll(() => page.getByRole('alert').filter({ hasText: 'US: The marketplace rejected' }).count())
        .toBe(0);
      expect(await secrets.get(secretOwner(us.url, US_CLIENT.clientId))).toBe(US_CLIENT.clientSecret);
      expect(await secrets.get(secretOwner(eu.url, EU_CLIENT.clientId))).toBe(EU_CLIENT.clientSecret);
      await checkScreen(page, 'account-reconnect-connected-light-420x640');
    } finally {
      await page.close();
      await preview.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
