// A managed laptop in real Chromium (issue 25): the built renderer over the preview's bridge, the
// service under policies read from a real policy folder, the real keychain, the simulator over
// loopback. Settings shows each locked setting disabled under "Managed by your organization",
// onboarding asks only for the secret, both pass axe-core; screenshots kept to look at.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLog } from '../../main/core/log';
import { linuxPolicySource } from '../../main/core/policy/sources';
import { PolicyWatcher } from '../../main/core/policy/watcher';
import { KeytarSecretStore, secretOwner } from '../../main/core/secrets';
import { SellerTrayService } from '../../main/core/service';
import { ConfSettingsStore } from '../../main/core/settings';
import { type Preview, startPreview } from '../../main/preview/server';
import { makeDataDir } from '../support/core';
import { checkScreen, previewParts } from '../support/preview-app';

const CLIENT = { clientId: 'fleet-client', clientSecret: 'fleet-secret-7d21' };

const parts = previewParts({ sellers: [{ sellerId: 1001, orders: 12, clients: [CLIENT] }] });
const secrets = new KeytarSecretStore();
const cleanup: (() => unknown)[] = [];

afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
  await secrets.delete(secretOwner(parts.sim.url, CLIENT.clientId));
});

/** The app with IT's policies in a policy folder; `secret`: the user already gave the client secret. */
async function managedApp(options: {
  secret: boolean;
  colorScheme: 'light' | 'dark';
  viewport: { width: number; height: number };
}) {
  const dir = await makeDataDir();
  const root = join(dir, 'policies');
  await mkdir(join(root, 'managed'), { recursive: true });
  await writeFile(
    join(root, 'managed', 'fleet.json'),
    JSON.stringify({
      baseUrl: parts.sim.url,
      clientId: CLIENT.clientId,
      pollIntervalMinimumSeconds: 120,
      undoSeconds: 10,
      updatesEnabled: false,
      actorNameSource: 'computer-account',
    }),
  );
  if (options.secret) await secrets.set(secretOwner(parts.sim.url, CLIENT.clientId), CLIENT.clientSecret);
  const policies = await PolicyWatcher.start(linuxPolicySource(root), { log: silentLog });
  const service = await SellerTrayService.open({
    settings: new ConfSettingsStore({ cwd: dir }),
    secrets,
    dataRoot: dir,
    policies,
    accountName: () => 'anna.virtanen',
  });
  const preview: Preview = await startPreview({ service, rendererDir: parts.renderer.dir });
  service.listening();
  const page = await parts.browser.newPage({
    colorScheme: options.colorScheme,
    viewport: options.viewport,
    locale: 'en-US',
  });
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => preview.close(),
    () => service.close(),
    () => policies.close(),
    () => page.close(),
  );
  await page.goto(preview.url);
  return { page, service };
}

describe.each([
  ['light', { width: 1280, height: 800 }],
  ['dark', { width: 1280, height: 800 }],
  ['light', { width: 420, height: 640 }],
] as const)('a managed laptop in the %s theme at %o', (colorScheme, viewport) => {
  const size = `${viewport.width}x${viewport.height}`;

  it('Settings shows each locked setting disabled, managed by the organization, and passes axe-core', async () => {
    const { page } = await managedApp({ secret: true, colorScheme, viewport });
    await page.getByRole('listbox', { name: 'Orders' }).getByRole('option').first().waitFor();
    await page.getByRole('button', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Settings' });
    await form.waitFor();
    const notes = form.getByText('Managed by your organization');
    // Base URL, client id, time to undo, automatic update checks, "Your name".
    await expect.poll(() => notes.count()).toBe(5);
    for (const label of [
      'Base URL',
      'Client id',
      'Time to undo (seconds)',
      'Your name',
      'Check for updates automatically',
    ]) {
      const control = form.getByLabel(label, { exact: true });
      expect(await control.isDisabled(), label).toBe(true);
      expect(
        await control.evaluate((el) => el.closest('fieldset')?.getAttribute('aria-describedby')),
        label,
      ).toBeTruthy();
    }
    expect(await form.getByLabel('Check interval (seconds)').isDisabled()).toBe(false);
    expect(await form.getByLabel('Check interval (seconds)').getAttribute('min')).toBe('120');
    await form.getByText('Your organization allows no less than 120 seconds.').waitFor();
    await checkScreen(page, `settings-managed-${colorScheme}-${size}`);
    // Further down: the locks of "Time to undo" and "Your name".
    await form.getByLabel('Your name', { exact: true }).scrollIntoViewIfNeeded();
    await checkScreen(page, `settings-managed-lower-${colorScheme}-${size}`);
  }, 60_000);

  it('onboarding asks only for the secret, offers no demo, and passes axe-core', async () => {
    const { page } = await managedApp({ secret: false, colorScheme, viewport });
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByLabel('Base URL').inputValue()).toBe(parts.sim.url);
    expect(await page.getByLabel('Base URL').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByRole('button', { name: 'Try the demo' }).count()).toBe(0);
    await checkScreen(page, `onboarding-managed-${colorScheme}-${size}`);
    await page.getByLabel('Client secret').fill(CLIENT.clientSecret);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('listbox', { name: 'Orders' }).waitFor();
  }, 60_000);
});
