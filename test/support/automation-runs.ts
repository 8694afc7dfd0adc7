// An account's automation runs as its store on disk has them, for tests whose runs another
// process (a `seller-tray run`, a laptop killed with kill -9) carries out; and a runner alone (of
// the plain webhook automation the tests and the benchmark deliver to, or of any); a loopback
// receiver recording what each delivery was told.
import { existsSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { adviceFor } from '../../main/core/advice';
import { type AutomationPorts, AutomationRunner } from '../../main/core/automation/runner';
import { Claimant } from '../../main/core/claimant';
import { type Log, silentLog } from '../../main/core/log';
import type { Timers } from '../../main/core/poller';
import { DEFAULT_SETTINGS } from '../../main/core/settings';
import { AccountStore } from '../../main/core/store/account-store';
import type { AutomationRun, AutomationSetting, RunState } from '../../preload/automations';

/**
 * A runner of one webhook automation ("hook") to `url`, or of one to each url by its name, over
 * `store`, alone: no window told, no status marked, no other process alive.
 */
export function webhookRunner(
  store: AccountStore,
  url: string | Record<string, string>,
  workDir: string,
  clock: { now: () => number; timers: Timers; log?: Log },
  secret: AutomationPorts['secret'] = async () => 'whsec_alone',
): AutomationRunner {
  const urls = typeof url === 'string' ? { hook: url } : url;
  const automations = Object.entries(urls).map(([name, to]) => webhookAutomation(to, name));
  return runnerAlone(store, automations, { secret, workDir }, clock);
}

/** A runner of `automations` over `store`, alone as webhookRunner's. */
export function runnerAlone(
  store: AccountStore,
  automations: AutomationSetting[],
  ports: Pick<AutomationPorts, 'secret' | 'workDir' | 'commandSlots' | 'post'>,
  clock: { now: () => number; timers: Timers; log?: Log },
  /** Whether this laptop runs automations (off: only those asked for by hand run). */
  enabled = true,
): AutomationRunner {
  const settings = { ...DEFAULT_SETTINGS, automationsEnabled: enabled, automations };
  return new AutomationRunner({
    advice: adviceFor('app'),
    store,
    settings: () => settings,
    ports: {
      ...ports,
      account: { id: 'alone', label: 'the runner alone', baseUrl: 'http://127.0.0.1:1' },
      laptop: 'alone',
    },
    log: silentLog,
    ...clock,
    claimant: new Claimant(() => false),
    brief: (orderId) => ({ orderId, buyer: '', product: '', total: '' }),
    mark: async () => undefined,
    changed: () => undefined,
    failed: () => undefined,
  });
}

/** An automation calling the webhook at `url` on every new order, reporting no status. */
export function webhookAutomation(url: string, name = 'hook'): AutomationSetting {
  return {
    name,
    enabled: true,
    products: [],
    orderTypes: [],
    accounts: 'all',
    action: { type: 'webhook', url },
    reportStatus: null,
  };
}

export function runsOnDisk(dataDir: string, orderId: string): AutomationRun[] {
  const { store } = AccountStore.open(dataDir);
  try {
    return store.runsFor(orderId);
  } finally {
    store.close(false);
  }
}

/** The order's runs once its first is in `state`. */
export async function runsOnceFirst(
  dataDir: string,
  orderId: string,
  state: RunState,
  timeoutMs = 20_000,
): Promise<AutomationRun[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const runs = runsOnDisk(dataDir, orderId);
    if (runs[0]?.state === state) return runs;
    if (Date.now() > end) throw new Error(`no ${state} run within ${timeoutMs} ms: ${JSON.stringify(runs)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves once `file` exists (a command under test wrote it). */
export async function fileAppears(file: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > end) throw new Error(`${file} did not appear within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A loopback receiver's deliveries: ids in the order they came, and the attempts each was told. */
export interface RecordingReceiver {
  server: Server;
  received: string[];
  told: Map<string, number[]>;
}

/** A receiver on loopback recording each delivery, `answer` answering it (or holding it). */
export async function recordingReceiver(
  answer: (response: ServerResponse) => void,
): Promise<RecordingReceiver> {
  const received: string[] = [];
  const told = new Map<string, number[]>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const id = String(request.headers['seller-tray-delivery']);
      received.push(id);
      told.set(id, [...(told.get(id) ?? []), (JSON.parse(body) as { attempt: number }).attempt]);
      answer(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, received, told };
}
