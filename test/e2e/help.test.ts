// Help in real Chromium, through the browser preview: opened by "?" and by the header's button,
// at the keys from the inbox's keys button, closed by Escape and Close; axe-core finds nothing
// at the tray popover's size and the desktop's, light and dark; screenshots for a person to look at.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KeytarSecretStore, secretOwner } from '../../main/core/secrets';
import { SellerTrayService } from '../../main/core/service';
import { ConfSettingsStore } from '../../main/core/settings';
import { type Preview, startPreview } from '../../main/preview/server';
import { type Simulator, startSimulator } from '../../simulator/server';
import { axeViolations } from '../support/axe';
import { buildRenderer, launchChromium } from '../support/browser';
import { makeDataDir } from '../support/core';
import { REPO_ROOT } from '../support/processes';

const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
const CLIENT = { clientId: 'e2e-help-client', clientSecret: 'e2e-help-secret-7d1e' };

let renderer: Awaited<ReturnType<typeof buildRenderer>>;
let browser: Browser;
let sim: Simulator;
const secrets = new KeytarSecretStore();
const opened: { page: Page; service: SellerTrayService; preview: Preview; dir: string }[] = [];

beforeAll(async () => {
  [renderer, browser, sim] = await Promise.all([
    buildRenderer(),
    launchChromium(),
    startSimulator({ port: 0, sellers: [{ sellerId: 1001, orders: 12, clients: [CLIENT] }] }),
  ]);
  await mkdir(SCREENSHOTS, { recursive: true });
}, 120_000);
afterEach(async () => {
  for (const { page, service, preview, dir } of opened.splice(0)) {
    await page.close();
    service.close();
    await preview.close();
    await rm(dir, { recursive: true, force: true });
  }
  await secrets.delete(secretOwner(sim.url, CLIENT.clientId));
});
afterAll(async () => {
  await browser?.close();
  await sim?.close();
  await renderer?.remove();
});

/** The app in the preview, its account on the simulator, its inbox loaded. */
async function openApp(viewport: { width: number; height: number }, colorScheme: 'light' | 'dark') {
  const dir = await makeDataDir();
  const settings = new ConfSettingsStore({ cwd: dir });
  settings.save({ ...settings.load().settings, baseUrl: sim.url, clientId: CLIENT.clientId });
  await secrets.set(secretOwner(sim.url, CLIENT.clientId), CLIENT.clientSecret);
  const service = await SellerTrayService.open({ settings, secrets, dataRoot: dir });
  const preview = await startPreview({ service, rendererDir: renderer.dir });
  const page = await browser.newPage({ viewport, colorScheme, locale: 'en-US' });
  opened.push({ page, service, preview, dir });
  await page.goto(preview.url);
  await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
  return page;
}

/** Whether the page scrolls sideways anywhere (Help must wrap, also in the popover). */
const overflowsSideways = (page: Page) =>
  page.evaluate(() =>
    [document.documentElement, ...document.querySelectorAll('.content, .help')].some(
      (element) => element.scrollWidth > element.clientWidth + 1,
    ),
  );

describe.each([
  { size: 'popover', viewport: { width: 420, height: 640 } },
  { size: 'desktop', viewport: { width: 1280, height: 800 } },
])('Help at $size size', ({ size, viewport }) => {
  it.each(['light', 'dark'] as const)(
    'opens by "?" and by click, passes axe-core (%s)',
    async (scheme) => {
      const page = await openApp(viewport, scheme);
      const help = page.getByRole('region', { name: 'Help' });
      const shot = (name: string) =>
        page.screenshot({ path: join(SCREENSHOTS, `help-${name}-${scheme}-${size}.png`) });

      // "?" with the focus in the list: Help, its heading focused; Escape back to the inbox.
      await page.getByRole('listbox', { name: 'Orders' }).focus();
      await page.keyboard.press('?');
      await help.waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Help');
      await shot('top');
      expect(await axeViolations(page)).toEqual([]);
      expect(await overflowsSideways(page)).toBe(false);
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'detached' });
      await page.getByRole('listbox', { name: 'Orders' }).waitFor();

      // "?" typed into the search box is the search's own.
      await page.getByLabel('Search orders').fill('?');
      await page.waitForTimeout(100);
      expect(await help.count()).toBe(0);
      await page.getByLabel('Search orders').fill('');

      // The header's Help, and its Close.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Help' }).click();
      await help.waitFor();
      await help.getByRole('button', { name: /^Close/ }).click();
      await help.waitFor({ state: 'detached' });

      // The inbox's keys button: Help at the keys.
      await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
      await help.getByRole('heading', { name: 'Keys' }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keys');
      await shot('keys');
      // The end of Help: what to do when something is wrong, and the way to Settings.
      await help.getByRole('button', { name: 'Open Settings' }).scrollIntoViewIfNeeded();
      await shot('trouble');
      expect(await axeViolations(page)).toEqual([]);
      await help.getByRole('button', { name: 'Open Settings' }).click();
      await page.getByRole('heading', { level: 2, name: 'Settings' }).waitFor();
    },
    60_000,
  );
});
