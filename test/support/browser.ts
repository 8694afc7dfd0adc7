// The renderer in real Chromium: Debian's build, driven by playwright-core (which never
// downloads a browser of its own), against the browser preview.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { buildPart } from './app-build';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  // Chromium keeps crash reports in its config folder: a throwaway one, so neither a test nor a
  // benchmark (which has no hermetic HOME of its own) writes to the user's.
  const home = await mkdtemp(join(tmpdir(), 'seller-tray-chromium-'));
  const browser = await chromium.launch({
    // No session bus either: the keychain tests' private one would start an accessibility bus for
    // it and log that (Chromium needs none of it headless).
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      DBUS_SESSION_BUS_ADDRESS: 'disabled:',
    },
    executablePath: CHROMIUM,
    // No sandbox as root in a container; no GPU; and none of Chromium's calls home, which
    // this closed network refuses.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  browser.on('disconnected', () => void rm(home, { recursive: true, force: true }));
  return browser;
}

/** Builds the renderer as `npm run build:renderer` does, into a directory of its own. */
export async function buildRenderer(): Promise<{ dir: string; remove(): Promise<void> }> {
  const appDir = await mkdtemp(join(tmpdir(), 'renderer-'));
  await buildPart(appDir, 'renderer');
  return {
    dir: join(appDir, 'dist', 'renderer'),
    remove: () => rm(appDir, { recursive: true, force: true }),
  };
}

/**
 * A fresh window on the inbox at `url` (the preview's): from navigation to its first order row on
 * screen, in ms; the page is left open.
 */
export async function openInbox(browser: Browser, url: string): Promise<{ ms: number; page: Page }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  const started = performance.now();
  await page.goto(url);
  await inboxRows(page).first().waitFor();
  return { ms: performance.now() - started, page };
}

/** The inbox's order rows. */
export const inboxRows = (page: Page) => page.getByRole('listbox', { name: 'Orders' }).getByRole('option');
