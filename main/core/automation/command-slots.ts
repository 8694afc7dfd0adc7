// How many automation commands run at once in this process, whatever their accounts and
// automations: commands are programs on this computer (a provisioning script each), and N
// automations of 4 slots each would start 4·N of them together. Webhooks and chat posts wait on
// the network, not on this computer: they keep only their automations' own slots.
// An automation with no command running always gets one started, over the bound: a slow one (a
// command hung up to its time limit) never holds another's commands, so at most the bound plus
// one a further automation run at once. The bound applies to its second command and later; a slot
// that comes free goes to the automation with the fewest commands running, among those the
// longest since their last turn: each automation gets its share in turn.
import { availableParallelism } from 'node:os';

/** Commands at once: one a core (at least 2), the most a laptop runs without its owner noticing. */
export const COMMANDS_AT_ONCE = Math.max(2, availableParallelism());

/** One automation's commands: those running, those waiting for a slot, when it last had one. */
interface Share {
  running: number;
  waiting: { grant: (release: () => void) => void; abandon: () => void }[];
  /** The turn it last got a slot on (0: never). */
  lastTurn: number;
}

export class CommandSlots {
  private readonly shares = new Map<string, Share>();
  private running = 0;
  private turns = 0;

  constructor(readonly size = COMMANDS_AT_ONCE) {}

  /**
   * Waits for a slot for a command of `automation` (a name unique in the process, the account's
   * id in it); answers how to give it back, or undefined when `signal` stopped the wait.
   */
  take(automation: string, signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    const share = this.share(automation);
    if (share.running === 0 || this.running < this.size)
      return Promise.resolve(this.grant(automation, share));
    return new Promise((resolve) => {
      const waiter = {
        grant: (release: () => void) => {
          signal.removeEventListener('abort', waiter.abandon);
          resolve(release);
        },
        abandon: () => {
          share.waiting.splice(share.waiting.indexOf(waiter), 1);
          this.forget(automation, share);
          resolve(undefined);
        },
      };
      share.waiting.push(waiter);
      signal.addEventListener('abort', waiter.abandon, { once: true });
    });
  }

  /** Commands running now, across all automations. */
  get busy(): number {
    return this.running;
  }

  private share(automation: string): Share {
    let share = this.shares.get(automation);
    if (!share) {
      share = { running: 0, waiting: [], lastTurn: 0 };
      this.shares.set(automation, share);
    }
    return share;
  }

  private grant(automation: string, share: Share): () => void {
    this.running += 1;
    share.running += 1;
    this.turns += 1;
    share.lastTurn = this.turns;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      share.running -= 1;
      this.forget(automation, share);
      this.next();
    };
  }

  /**
   * The free slots to the waiting automations with the fewest running, the longest since their
   * turn; one with none running gets its first even over the bound.
   */
  private next(): void {
    for (;;) {
      let chosen: [string, Share] | undefined;
      for (const entry of this.shares) {
        const [, share] = entry;
        if (share.waiting.length === 0) continue;
        const best = chosen?.[1];
        if (
          !best ||
          share.running < best.running ||
          (share.running === best.running && share.lastTurn < best.lastTurn)
        )
          chosen = entry;
      }
      if (!chosen) return;
      const [automation, share] = chosen;
      if (share.running > 0 && this.running >= this.size) return;
      share.waiting.shift()?.grant(this.grant(automation, share));
    }
  }

  /** An automation with nothing running or waiting is no longer kept (its turn forgotten with it). */
  private forget(automation: string, share: Share): void {
    if (share.running === 0 && share.waiting.length === 0) this.shares.delete(automation);
  }
}

/** The process's slots: every account's runner shares them. */
export const commandSlots = new CommandSlots();
