// The core of a laptop process that a test kills (kill -9): as the app builds it, on a given data
// folder, logging to that folder's logs/main.log as the app logs to its own (so the log file is
// one of the files a damage test can cut, garble or delete).
import { join } from 'node:path';
import { adviceFor } from '../../main/core/advice';
import { SellerApiClient } from '../../main/core/api/client';
import type { AutomationPorts } from '../../main/core/automation/runner';
import { type CoreSettings, SellerCore } from '../../main/core/seller-core';
import { fileLog } from '../../main/file-log';
import { TEST_SETTINGS } from './core';

export function openChildCore(
  baseUrl: string,
  dataDir: string,
  settings: Partial<CoreSettings> = {},
  automations?: AutomationPorts,
) {
  const client = new SellerApiClient({
    baseUrl,
    credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    retry: { maxAttempts: 1 },
  });
  return SellerCore.open({
    advice: adviceFor('app'),
    client,
    dataDir,
    settings: () => ({ ...TEST_SETTINGS, ...settings }),
    log: fileLog(join(dataDir, 'logs')),
    ...(automations ? { automations } : {}),
  });
}
