// The advice for setting an automation's secret (ports.ts): a command that works as printed, or
// Settings for the demo, whose marketplace runs only inside the app (the CLI refuses `--id demo`).
import { expect, it } from 'vitest';
import { type AccountId, DEMO_ACCOUNT_ID } from '../account/account-ref';
import { secretAdvice, secretCommand } from './ports';

it('advises the command by id, the name quoted; for the demo, Settings alone', () => {
  const id = '9c41e07a2b3d5f68' as AccountId;
  expect(secretAdvice(id, 'billing hook')).toBe(
    'set it in Settings → Automations, or run seller-tray automations secret "billing hook" --id 9c41e07a2b3d5f68',
  );
  expect(secretCommand(DEMO_ACCOUNT_ID, 'hook')).toBeUndefined();
  expect(secretAdvice(DEMO_ACCOUNT_ID, 'hook')).toBe(
    'set it in Settings → Automations (the demo runs only in the app)',
  );
});
