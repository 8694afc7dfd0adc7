// A mark the marketplace could not be reached for, in real Chromium (the built renderer over the
// preview's bridge, the service with the real keychain, the simulator over loopback dropping every
// call): the inbox row says what the order page says, that it is not sent yet and tried again by
// Seller Tray, rather than "sending" as if it were on its way.
import { afterEach, describe, expect, it } from 'vitest';
import { KeytarSecretStore, secretOwner } from '../../main/core/secrets';
import { checkScreen, openConfiguredPreview, previewParts } from '../support/preview-app';
import { admin } from '../support/raw-api';

const CLIENT = { clientId: 'not-sent-client', clientSecret: 'not-sent-secret-3f7c' };

const parts = previewParts({ sellers: [{ sellerId: 1001, orders: 6, clients: [CLIENT] }] });
const secrets = new KeytarSecretStore();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
  await secrets.delete(secretOwner(parts.sim.url, CLIENT.clientId));
  await admin(parts.sim.url, 'POST', 'reset');
});

describe('a mark the marketplace could not be reached for', () => {
  it('shows on its inbox row as not sent yet, as on the order page', async () => {
    const { service, preview } = await openConfiguredPreview({
      sim: parts.sim,
      client: CLIENT,
      rendererDir: parts.renderer.dir,
      secrets,
      settings: { undoSeconds: 0 },
      cleanups,
    });
    await service.handle('checkNow', undefined);
    const page = await parts.browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    cleanups.push(() => page.close());
    await page.goto(preview.url);
    const list = page.getByRole('listbox', { name: 'Orders' });
    const waiting = list.getByRole('option').filter({ hasText: 'New' }).first();
    await waiting.click();

    parts.sim.faults.update({ dropRate: 1 });
    await page
      .getByRole('region', { name: 'Provisioning actions' })
      .getByRole('button', { name: 'Start provisioning' })
      .click();
    await page.getByText('Marked In progress. Not sent yet; Seller Tray tries again by itself').waitFor();

    const row = list.locator('[role="option"][aria-selected="true"]');
    await expect.poll(() => row.locator('.row-age').innerText()).toMatch(/not sent yet$/);
    expect(await row.innerText()).not.toContain('sending');
    await checkScreen(page, 'mark-not-sent-light-1280x800');
  }, 90_000);
});
