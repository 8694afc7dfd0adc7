// Who holds a claim on a row of an account's store (an announcement being raised, an automation
// run being carried out): a core, named by its process and a token of its own. Two cores of one process may share a store (an account closed
// while its core still ends, and opened again; the app's service and a test's), so a pid alone
// would let one take or let go what the other claimed.
import { randomUUID } from 'node:crypto';
import { isProcessAlive } from './process-alive';

/** The tokens of this process's claimants not retired: cores that may still act on their claims. */
const live = new Set<string>();

export class Claimant {
  readonly token = randomUUID();

  constructor(
    private readonly isAlive: (pid: number) => boolean = isProcessAlive,
    /** Another only in tests that play two processes in one. */
    readonly pid: number = process.pid,
  ) {
    live.add(this.token);
  }

  /**
   * Whether a claim (`token` null: made by a version that named no core) is another core's that may
   * still act on it: another process alive, or a claimant of this process not retired. A claim of
   * this pid without a live token was made by a core since closed, or by a process long gone.
   */
  heldElsewhere(pid: number, token: string | null): boolean {
    if (pid !== this.pid) return this.isAlive(pid);
    return token !== null && token !== this.token && live.has(token);
  }

  /** Its core is closed (nothing of it acts on its claims any more): what it still claims is another's to take. */
  retire(): void {
    live.delete(this.token);
  }
}
