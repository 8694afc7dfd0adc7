// Every kind of advice a surface words (main/core/advice.ts), for the tests that check each one:
// one list, so a kind added to Advice is checked by all of them.
import type { Advice } from '../../main/core/advice';

const ORDER = '3f2a9c4e-0000-4000-8000-000000000001';

/** Every kind of advice, worded for a made-up automation and order. */
export const everyKind = (advice: Advice): string[] => [
  advice.enterSecret,
  advice.diagnose,
  advice.checkBaseUrl,
  advice.anotherClient,
  advice.sendLog,
  ...(advice.checkNow ? [advice.checkNow] : []),
  advice.automationSecret('billing hook'),
  advice.orderRuns('billing hook', ORDER),
  advice.markAnyway(ORDER, 'ProvisioningFailed'),
];
