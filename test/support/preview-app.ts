// What a browser end-to-end file needs around its tests: the built renderer, Chromium and a
// simulator for the whole file; the app on the browser preview with its account configured; and
// a screen checked as every view is (a screenshot to look at, axe-core, field borders).
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { SecretStore } from '../../main/core/secrets';
import { secretOwner } from '../../main/core/secrets';
import { SellerTrayService } from '../../main/core/service';
import { ConfSettingsStore } from '../../main/core/settings';
import { type Preview, startPreview } from '../../main/preview/server';
import type { Settings } from '../../preload/model';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../simulator/server';
import { axeViolations, cutTexts, faintFieldBorders } from './axe';
import { buildRenderer, launchChromium } from './browser';
import { makeDataDir } from './core';
import { REPO_ROOT } from './processes';

export const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');

export interface PreviewParts {
  renderer: Awaited<ReturnType<typeof buildRenderer>>;
  browser: Browser;
  sim: Simulator;
}

/** Builds the renderer, launches Chromium and starts a simulator before the file's tests; closes them after. */
export function previewParts(simulator: SimulatorOptions): PreviewParts {
  const parts = {} as PreviewParts;
  beforeAll(async () => {
    [parts.renderer, parts.browser, parts.sim] = await Promise.all([
      buildRenderer(),
      launchChromium(),
      startSimulator({ port: 0, ...simulator }),
    ]);
    await mkdir(SCREENSHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await parts.browser?.close();
    await parts.sim?.close();
    await parts.renderer?.remove();
  });
  return parts;
}

/**
 * The service and the preview on a data folder of their own, the account configured for `sim`
 * (with `settings` besides) and its secret in the keychain; `cleanups` closes them.
 */
export async function openConfiguredPreview(options: {
  sim: Simulator;
  client: { clientId: string; clientSecret: string };
  rendererDir: string;
  secrets: SecretStore;
  settings?: Partial<Settings>;
  cleanups: (() => unknown)[];
}): Promise<{ service: SellerTrayService; preview: Preview }> {
  const { sim, client, secrets } = options;
  const dir = await makeDataDir();
  const settings = new ConfSettingsStore({ cwd: dir });
  settings.save({
    ...settings.load().settings,
    baseUrl: sim.url,
    clientId: client.clientId,
    ...options.settings,
  });
  await secrets.set(secretOwner(sim.url, client.clientId), client.clientSecret);
  const service = await SellerTrayService.open({ settings, secrets, dataRoot: dir });
  const preview = await startPreview({ service, rendererDir: options.rendererDir });
  service.listening();
  options.cleanups.push(async () => {
    service.close();
    await preview.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { service, preview };
}

/** The screen as it is now: saved as `name`.png to look at, and held to axe-core, visible field borders and no text cut. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  expect(await axeViolations(page), name).toEqual([]);
  expect(await faintFieldBorders(page), name).toEqual([]);
  expect(await cutTexts(page), name).toEqual([]);
}
