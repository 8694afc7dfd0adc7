// The policies in force while the app runs: read at start, read again when a watched folder
// changes (Linux's policy folders, macOS's managed preferences) and on a timer where nothing can be
// watched (the Windows registry), and told to listeners only when what is in force changed. Each
// problem is logged once per change, never thrown.
import { existsSync, type FSWatcher, watch } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { Log } from '../log';
import { describeProblem, NO_POLICIES, type Policies, resolvePolicies } from './layers';
import type { PolicySource } from './sources';

/** What the service and the CLI need of the policies. */
export interface PolicyPort {
  current(): Policies;
  onChange(listener: (policies: Policies) => void): () => void;
}

/** Policies read once, for a process that ends before IT changes them (the CLI). */
export const fixedPolicies = (policies: Policies): PolicyPort => ({
  current: () => policies,
  onChange: () => () => {},
});

/** No organization's policies: a laptop nobody manages, and the tests that are not about policies. */
export const UNMANAGED: PolicyPort = fixedPolicies(NO_POLICIES);

export interface PolicyWatcherOptions {
  log: Log;
  /** How often to read again where nothing can be watched; default 15 minutes. */
  rereadMs?: number;
  /** How long to wait after a change for more: an editor's save is several events. */
  settleMs?: number;
}

/** Reads `source` once, and logs what is in force and what was ignored. */
export async function readPolicies(source: PolicySource, log: Log): Promise<Policies> {
  const policies = resolvePolicies(await source.read());
  logPolicies(policies, log);
  return policies;
}

function logPolicies(policies: Policies, log: Log): void {
  for (const problem of policies.problems)
    log.warn(problem.changed ? 'policy changed' : 'policy ignored', { problem: describeProblem(problem) });
  if (policies.inForce.length > 0)
    log.info('policies in force', { keys: policies.inForce.map((p) => `${p.key} (${p.level})`).join(', ') });
}

export class PolicyWatcher implements PolicyPort {
  private readonly listeners = new Set<(policies: Policies) => void>();
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private settle: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();

  private constructor(
    private readonly source: PolicySource,
    private readonly options: PolicyWatcherOptions,
    private policies: Policies,
  ) {}

  static async start(source: PolicySource, options: PolicyWatcherOptions): Promise<PolicyWatcher> {
    const watcher = new PolicyWatcher(source, options, await readPolicies(source, options.log));
    watcher.watch();
    return watcher;
  }

  current(): Policies {
    return this.policies;
  }

  onChange(listener: (policies: Policies) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads the policies again now; resolves once listeners have heard of a change. */
  refresh(): Promise<void> {
    this.reading = this.reading
      .then(async () => {
        const next = resolvePolicies(await this.source.read());
        this.watchFolders(); // one made since (the managed folder, once IT adds it), or made again
        if (isDeepStrictEqual(next, this.policies)) return;
        logPolicies(next, this.options.log); // logged when they change, not at every reading
        this.policies = next;
        for (const listener of this.listeners) listener(next);
      })
      // Never a crash: the policies in force stay, and the next change or timer reads again.
      .catch((error: unknown) => this.options.log.error('policies not read', { error: String(error) }));
    return this.reading;
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    clearInterval(this.timer);
    clearTimeout(this.settle);
  }

  private watch(): void {
    this.watchFolders();
    this.timer = setInterval(() => void this.refresh(), this.options.rereadMs ?? 15 * 60_000);
    this.timer.unref();
  }

  /** Watches each folder not yet watched that exists now; one made later is seen by its parent's watch or the timer. */
  private watchFolders(): void {
    const changed = (): void => {
      clearTimeout(this.settle);
      this.settle = setTimeout(() => void this.refresh(), this.options.settleMs ?? 300);
    };
    for (const folder of this.source.watched) {
      const watching = this.watchers.get(folder);
      // A folder removed leaves its watch on nothing: dropped, and watched again once it is back.
      if (watching && !existsSync(folder)) {
        watching.close();
        this.watchers.delete(folder);
      }
      if (this.watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, changed);
        watcher.on('error', () => {
          watcher.close(); // the folder went away: watched again once it is back
          this.watchers.delete(folder);
        });
        this.watchers.set(folder, watcher);
      } catch {
        // Not there (yet).
      }
    }
  }
}
