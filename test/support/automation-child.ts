// A laptop process running automations, killed by the test (kill -9) in the middle of a run: the
// automations come as JSON in its arguments, a webhook's signing secret in AUTOMATION_SECRET.
// Prints "polled" once its first poll (and the runs it started) is under way.
import { join } from 'node:path';
import type { AutomationSetting } from '../../preload/automations';
import { openChildCore } from './child-core';

const [baseUrl = '', dataDir = '', automations = '[]'] = process.argv.slice(2);
const core = await openChildCore(
  baseUrl,
  dataDir,
  { automationsEnabled: true, automations: JSON.parse(automations) as AutomationSetting[] },
  {
    secret: async () => process.env.AUTOMATION_SECRET,
    account: { id: 'child', label: 'demo-client at 127.0.0.1', baseUrl },
    laptop: 'child-laptop',
    workDir: join(dataDir, 'work'),
  },
);
await core.start();
console.log('polled');
setInterval(() => undefined, 60_000); // wait to be killed
