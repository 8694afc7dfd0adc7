// The header serving two accounts, one of them down, in real Chromium (the built renderer, the
// browser preview's bridge, the service over two origins): each account's line, the banner naming
// the account that is down, nothing wider than a tray-sized window, axe-core finding nothing, in
// both themes at the popover's and a desktop's size (screenshots kept to look at).
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeytarSecretStore, secretOwner } from '../../main/core/secrets';
import { SellerTrayService } from '../../main/core/service';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../../main/core/settings';
import { startPreview } from '../../main/preview/server';
import type { Simulator } from '../../simulator/server';
import { axeViolations, cutTexts } from '../support/axe';
import { buildRenderer, launchChromium } from '../support/browser';
import { makeDataDir } from '../support/core';
import { oneSellerMarketplace } from '../support/one-seller-marketplace';
import { REPO_ROOT } from '../support/processes';

const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
const CLIENT = { clientId: 'header-client', clientSecret: 'header-secret-6c1d' };
/** Labels as long as people give them, so the lines are not measured on "EU" alone. */
const UP = 'Europe production';
const DOWN = 'United States sandbox';

let renderer: Awaited<ReturnType<typeof buildRenderer>>;
let browser: Browser;
let up: Simulator;
let down: Simulator;
const secrets = new KeytarSecretStore();

beforeAll(async () => {
  [renderer, browser, up, down] = await Promise.all([
    buildRenderer(),
    launchChromium(),
    oneSellerMarketplace(21, 8001, 3, CLIENT),
    oneSellerMarketplace(22, 8002, 3, CLIENT),
  ]);
  await down.close(); // its port refuses: the account is down
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await up?.close();
  await renderer?.remove();
  for (const marketplace of [up, down]) await secrets.delete(secretOwner(marketplace.url, CLIENT.clientId));
});

describe.each([
  ['light', { width: 420, height: 640 }],
  ['dark', { width: 420, height: 640 }],
  ['light', { width: 1280, height: 800 }],
  ['dark', { width: 1280, height: 800 }],
] as const)('the header with two accounts, one down, in the %s theme at %o', (colorScheme, viewport) => {
  it("says each account's state, fits the window and passes axe-core", async () => {
    const dir = await makeDataDir();
    const settings = new ConfSettingsStore({ cwd: dir });
    settings.save({
      ...DEFAULT_SETTINGS,
      accounts: [
        { label: UP, baseUrl: up.url, clientId: CLIENT.clientId },
        { label: DOWN, baseUrl: down.url, clientId: CLIENT.clientId },
      ],
    });
    for (const marketplace of [up, down])
      await secrets.set(secretOwner(marketplace.url, CLIENT.clientId), CLIENT.clientSecret);
    const service = await SellerTrayService.open({ settings, secrets, dataRoot: dir });
    const preview = await startPreview({ service, rendererDir: renderer.dir });
    service.listening();
    const page = await browser.newPage({ colorScheme, viewport, locale: 'en-US' });
    try {
      await service.handle('checkNow', undefined);
      await page.goto(preview.url);
      const status = page.getByRole('list', { name: 'Status' });
      await status.getByText(`${UP} Checked just now`).waitFor();
      await status.getByText(`${DOWN} Offline; not read yet, trying again`).waitFor();
      await page
        .getByRole('alert')
        .filter({ hasText: `${DOWN}: The marketplace could not be reached` })
        .waitFor();
      await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();

      const size = `${viewport.width}x${viewport.height}`;
      await page.screenshot({ path: join(SCREENSHOTS, `header-two-accounts-${colorScheme}-${size}.png`) });
      // Nothing in the header reaches past the window's edge, and the page is no wider than it.
      const widest = await page.evaluate(() =>
        Math.max(
          document.documentElement.scrollWidth,
          ...[...document.querySelectorAll('.app-header *')].map((e) => e.getBoundingClientRect().right),
        ),
      );
      expect(widest).toBeLessThanOrEqual(viewport.width);
      // Compact: at most a quarter of a tray-sized window.
      const height = await page.locator('.app-header').evaluate((e) => e.getBoundingClientRect().height);
      expect(height).toBeLessThanOrEqual(viewport.height / 4);
      expect(await axeViolations(page)).toEqual([]);
      expect(await cutTexts(page)).toEqual([]);
    } finally {
      await page.close();
      await preview.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
