// Runs the automations' queued runs of one account, at most RUNS_AT_ONCE of each automation at a
// time: each run is taken from the store, carried out (a command, a signed webhook, a chat
// message; its attempt counted as it starts), and its end written back (state, time, exit code
// or HTTP status, output excerpt). A delivery that may work later waits and is tried again
// (delivery.ts); a run cut short by a stop is queued again; one cut short by a kill -9 is taken
// again by the next process, under the same delivery id (once a command it left running is
// stopped: left-running.ts). Where an automation reports the status, its result is marked through the
// outbox like a person's mark, "by automation <name> on <laptop>".
// Writes are batched: the runs started, ended and the orders read within WRITE_BEHIND_MS are
// written and claimed in one transaction, each automation's runs claimed a few ahead of its free
// slots (RUNS_AHEAD), each end on disk before anyone is told of it. A run claimed ahead stays
// queued on disk, its attempts as they were; it shows as running, with its start and its attempt
// counted, once it really started (written behind).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type AutomationRun, type AutomationSetting, automationNamed } from '../../../preload/automations';
import { describeMark } from '../../../preload/marked-by';
import { capped, paragraphText, plainText } from '../../../preload/marketplace-text';
import { type MarkableStatus, unusualReportText } from '../../../preload/order-status';
import type { Advice } from '../advice';
import type { Order } from '../api/wire';
import type { Claimant } from '../claimant';
import { explainFailure } from '../failure-words';
import { failureFields, type Log } from '../log';
import { TransitionError } from '../mark';
import type { OrderBrief } from '../notification-policy';
import { ensurePrivateDir } from '../paths';
import type { Timers } from '../poller';
import type { CoreSettings, MarkRequest } from '../seller-core';
import type { AccountStore, RunStart } from '../store/account-store';
import { runsFor, webhookUrlProblem } from './automation-settings';
import { slackMessage, teamsMessage } from './chat';
import { type CommandResult, lastLine, runCommand } from './command';
import { type CommandSlots, commandSlots } from './command-slots';
import {
  type DeliveryResult,
  deliver,
  httpPost,
  type Post,
  RETRY_FIRST_WAIT_MS,
  RETRY_MAX_WAIT_MS,
  retryAt,
} from './delivery';
import { LeftRunning } from './left-running';
import {
  type AutomationAccount,
  commandEnvironment,
  DELIVERY_HEADER,
  payloadBody,
  payloadHead,
  SIGNATURE_HEADER,
  signature,
} from './payload';

/**
 * Runs of one automation carried out at once: a slow run never holds up the rest, and a slow
 * automation (a receiver taking seconds) never holds up another's runs, each having its own.
 * A command also waits for one of the process's command slots (command-slots.ts).
 */
export const RUNS_AT_ONCE = 4;
/**
 * Runs of one automation claimed ahead of its free slots, so that an ending starts the next
 * without a write of its own: claims are made in batches, topped up once fewer than RUNS_AT_ONCE wait
 * (after a kick, such as a poll's end, filled whatever waits).
 */
export const RUNS_AHEAD = 6 * RUNS_AT_ONCE;
/**
 * How long the starts, ends and claims asked for wait to be written together: a few runs' worth
 * at the rate of loopback deliveries. A run's slot is free meanwhile; it is told of once on disk.
 */
const WRITE_BEHIND_MS = 25;
/**
 * The longest a poll holds the starts of runs (holdForPoll): one reading a thousand new orders
 * takes a few seconds; one slowed by the marketplace must not hold deliveries for its whole length.
 */
export const POLL_HOLD_MAX_MS = 10_000;
/** After a write turn failed, the next look: this, doubling while turns keep failing, up to the maximum. */
const FAILED_TURN_RETRY_MS = 1_000;
const FAILED_TURN_RETRY_MAX_MS = 60_000;
/**
 * How long a secret read from the keychain serves the attempts after it: a read costs about as
 * much CPU as a whole delivery (0.3 ms through the Secret Service), and a burst of new orders
 * would read it for each. A secret changed meanwhile is used from this long after.
 */
const SECRET_KEPT_MS = 1_000;
/** How long a run waits for its order's document before it is tried again. */
const DOCUMENT_WAIT_MS = 60_000;
/** The longest reason an automation writes into a status it reports. */
const REASON_MAX = 300;

/** What the platform gives the automations of one account. */
export interface AutomationPorts {
  /** The keychain's secret of one of the account's automations: a webhook's signing secret, a chat's address. */
  secret: (automation: string) => Promise<string | undefined>;
  account: AutomationAccount;
  /** This computer's name, in the statuses automations report. */
  laptop: string;
  /** Where commands run when they name no folder (made when missing). */
  workDir: string;
  /** How deliveries are sent; node:http(s) over kept-alive connections by default. */
  post?: Post | undefined;
  /** The environment commands take their few variables from (PATH, HOME…); this process's by default. */
  env?: NodeJS.ProcessEnv | undefined;
  /** How long a receiver has to answer; DELIVERY_TIMEOUT_MS by default. */
  deliveryTimeoutMs?: number | undefined;
  /** The commands that may run at once; the process's (shared by every account's runner) by default. */
  commandSlots?: CommandSlots | undefined;
  /** Whether an order's link names the account, as the app's own links do (several served). */
  named?: (() => boolean) | undefined;
  /** Why no automation may run here now (an organization's policy, layers.ts `automationsForbidden`), or undefined. */
  forbidden?: (() => string | undefined) | undefined;
}

export interface RunnerDeps {
  store: AccountStore;
  settings: () => CoreSettings;
  ports: AutomationPorts;
  now: () => number;
  timers: Timers;
  log: Log;
  /** Whose the runs it claims are: its core's (claimant.ts), which says whether another's claim holds. */
  claimant: Claimant;
  brief: (orderId: string) => OrderBrief;
  /** Marks the status as a person would (the outbox); throws when the order's history makes it unusual. */
  mark: (mark: MarkRequest) => Promise<unknown>;
  /** A run of these orders changed (the order page shows runs). */
  changed: (orderIds: string[]) => void;
  /** A run failed for good (what happened, its output's last line): told once, banner and notification. */
  failed: (run: AutomationRun, detail: string, lastOutput: string) => void;
  /** Where a person sets a missing secret, worded for the surface the session serves. */
  advice: Advice;
}

/** A run's end waiting to be written, with the one who waits for it on disk. */
interface PendingEnd {
  run: AutomationRun;
  ending: Ending;
  at: string;
  written: () => void;
  failed: (error: unknown) => void;
}

/** How a run ended, as the store keeps it. */
interface Ending {
  state: 'succeeded' | 'failed' | 'skipped' | 'queued';
  dueAt?: string | undefined;
  exitCode?: number | null | undefined;
  httpStatus?: number | null | undefined;
  detail: string;
  output?: string | null | undefined;
  /** A command's own status line. */
  reported?: { status: string; detail: string } | undefined;
  /** Why it failed, for the marketplace, where the detail is advice for this computer. */
  toldMarketplace?: string | undefined;
  /**
   * A command that ended by itself: its output's last line says why it failed. Not so for one cut
   * short (its time limit, a signal) or never started, nor for a receiver's answer (an error page).
   */
  saysWhy?: boolean;
  /** Queued again after a failed attempt (a receiver that may answer later). */
  retry?: true;
}

export class AutomationRunner {
  /** Runs carried out or ending, by delivery id, with their automation. */
  private readonly inFlight = new Map<string, { automation: string; done: Promise<void> }>();
  /** Runs in flight whose attempt is over, their end waiting to be written: their slot is free. */
  private readonly ending = new Set<string>();
  /** Runs claimed, waiting for a slot (no attempt counted yet): in memory, taken again only if this process is gone. */
  private readonly ahead = new Map<string, AutomationRun>();
  /** Runs claimed by the transaction under way: theirs only once it is committed. */
  private readonly claiming = new Set<string>();
  /** Ends to write in the next turn's one transaction, with the claims that top the runs ahead up. */
  private ends: PendingEnd[] = [];
  /** Runs really started, by delivery id, to write in the next turn (with their end if it came). */
  private starts = new Map<string, RunStart & { orderId: string }>();
  private turnPlanned = false;
  private readonly waiters = new Map<string, ((run: AutomationRun | undefined) => void)[]>();
  private readonly stopping = new AbortController();
  private timer: unknown;
  /**
   * Where runs may be ready that no slot took (all were busy), for an ending to start: orders just
   * read (their runs found by the order), or, after a kick, any (every queued run looked through).
   * Otherwise an ending looks no further: the runs left wait for their orders (whose reading starts
   * them, or the end of the poll that read them: holdForPoll) or their time (a timer). In memory
   * only: a start looks through every run anyway.
   */
  private readonly readyOrders = new Set<string>();
  /** Whether any queued run may be ready (after a kick), not only those of readyOrders. */
  private lookEverywhere = false;
  /** Write turns failed in a row (their retries back off). */
  private failedTurns = 0;
  /** Automations that had more runs ready than room for them: claimed again once fewer wait. */
  private readonly more = new Set<string>();
  /** Secrets read lately, by automation, until when they serve (performance.now()): in memory only. */
  private readonly secrets = new Map<string, { secret: string; until: number }>();
  /**
   * The account's commands running, recorded in its work folder: those a dead runner left are
   * stopped before their runs are taken again (the first kick looks for any).
   */
  private readonly leftRunning: LeftRunning;
  /** The first look for commands left running (once a process): any found are stopped. */
  private firstSweep: Promise<void> | undefined;
  /** The hold of the account's poll (holdForPoll): whether its limit passed, and the timer of that limit. */
  private pollHold: { over: boolean; timer: unknown } | undefined;

  constructor(private readonly deps: RunnerDeps) {
    this.leftRunning = new LeftRunning(join(deps.ports.workDir, '.running'), deps.log, () => {
      // The runs it held may be taken now.
      if (this.running()) {
        this.lookEverywhere = true;
        this.planTurn();
      }
    });
  }

  /** Starts the runs that are due, as many as may run at once; plans the next due one. */
  kick(): void {
    if (!this.running()) return;
    void this.sweptFirst();
    this.lookEverywhere = true;
    // At once (one a poll, at its end): the runs due are under way when the start or poll that kicked ends.
    this.turn();
  }

  /** Resolves once the first look for commands a dead runner left is done (it starts it). */
  private sweptFirst(): Promise<void> {
    this.firstSweep ??= this.leftRunning.sweep();
    return this.firstSweep;
  }

  /** Starts the due runs of an order just read (they waited for it), as many as may run at once; once its poll ended when that poll holds them. */
  kickOrder(orderId: string): void {
    if (!this.running()) return;
    this.readyOrders.add(orderId);
    if (!this.heldByPoll()) this.planTurn();
  }

  /**
   * Holds the claims and starts of runs from now until the account's poll ends (pollEnded), at
   * most POLL_HOLD_MAX_MS: called when the poll learned new orders, so their reads, records and
   * announcements (what a person waits for) have the process to themselves, and the runs they
   * queued start right after (the core kicks at the poll's end). 1,000 new orders with a webhook
   * cost the poll 1.2-1.34× the CPU without when each order's runs started as it was read. A poll
   * that learns nothing (an idle one, the one before a mark) holds nothing; a run under way goes
   * on; one a person asked for (runNow) is not held. Once a poll, however often it learns.
   */
  holdForPoll(): void {
    if (this.pollHold) return;
    const hold = { over: false, timer: undefined as unknown };
    // The limit is the timer's: a clock set back while the poll goes on does not make it longer.
    hold.timer = this.deps.timers.setTimeout(() => {
      hold.over = true;
      this.kick();
    }, POLL_HOLD_MAX_MS);
    this.pollHold = hold;
  }

  /** The account's poll ended: what it held may start (at the next kick). */
  pollEnded(): void {
    if (!this.pollHold) return;
    this.deps.timers.clearTimeout(this.pollHold.timer);
    this.pollHold = undefined;
  }

  private heldByPoll(): boolean {
    return this.pollHold !== undefined && !this.pollHold.over;
  }

  /**
   * What was asked for in the next WRITE_BEHIND_MS (orders read, runs ended) is done then, in one
   * transaction: a write transaction each cost more than the delivery's own work. The real clock,
   * not deps.timers (tests fire those by hand): this wait is no schedule of the app's.
   */
  private planTurn(): void {
    if (this.turnPlanned) return;
    this.turnPlanned = true;
    setTimeout(() => this.turn(), WRITE_BEHIND_MS);
  }

  /** Each automation's runs carried out now (their end not ready to write) and claimed ahead. */
  private tally(): Map<string, { busy: number; ahead: number }> {
    const tally = new Map<string, { busy: number; ahead: number }>();
    const of = (automation: string) => {
      const counts = tally.get(automation) ?? { busy: 0, ahead: 0 };
      tally.set(automation, counts);
      return counts;
    };
    for (const [id, { automation }] of this.inFlight) if (!this.ending.has(id)) of(automation).busy += 1;
    for (const run of this.ahead.values()) of(run.automation).ahead += 1;
    return tally;
  }

  /** Writes the starts and ends waiting, tops the claimed runs up, starts as many as slots are free. */
  private turn(): void {
    this.turnPlanned = false;
    const ends = this.ends;
    const starts = this.starts;
    this.ends = [];
    this.starts = new Map();
    // A start goes with its run's end when that came; `starts` stays whole for a failed turn.
    const ended = new Set(ends.map((end) => end.run.deliveryId));
    // Whether this turn looks at every automation's due runs (claiming forgets it).
    const looksEverywhere = this.lookEverywhere && this.running() && !this.heldByPoll();
    try {
      let claimed: AutomationRun[] = [];
      if (ends.length > 0 || starts.size > 0 || this.wantsClaims()) {
        claimed = this.deps.store.atomically(() => {
          for (const end of ends)
            this.deps.store.finishRun(end.run.deliveryId, end.ending, end.at, starts.get(end.run.deliveryId));
          for (const [id, start] of starts)
            if (!ended.has(id)) this.deps.store.startRun(this.deps.claimant, id, start);
          return this.topUp();
        });
      }
      // Committed: the runs claimed are this process's to start.
      for (const run of claimed) this.ahead.set(run.deliveryId, run);
      // On disk: now the window and the log may be told (of an end by its run, of starts here).
      for (const end of ends) end.written();
      const started = new Set([...starts].filter(([id]) => !ended.has(id)).map(([, start]) => start.orderId));
      if (started.size > 0) this.deps.changed([...started]);
      this.startAhead();
      this.planNext(looksEverywhere);
      this.failedTurns = 0;
    } catch (error) {
      // Nothing of the transaction is on disk: what it claimed is not this process's to start, and
      // the runs it wrote are left claimed by this process, taken again by the next look or the
      // next start, same delivery ids. A start not written shows the run as waiting. The next look
      // is planned here (nothing else may come before the next poll), backing off while the store
      // keeps failing (a full or locked disk): a second, doubling up to a minute.
      this.lookEverywhere = true;
      for (const end of ends) end.failed(error);
      // Every start is written again: with its run's end, or alone (a lost end's run is taken
      // again, its attempt counted).
      for (const [id, start] of starts) if (!this.starts.has(id)) this.starts.set(id, start);
      this.deps.log.warn('automation runs could not be written', failureFields(error));
      const wait = Math.min(FAILED_TURN_RETRY_MS * 2 ** this.failedTurns, FAILED_TURN_RETRY_MAX_MS);
      this.failedTurns += 1;
      setTimeout(() => {
        if (this.wantsClaims()) this.planTurn();
      }, wait).unref?.();
    } finally {
      this.claiming.clear();
    }
  }

  /**
   * Whether runs may be ready to claim ahead: orders just read, a kick, or an automation that had
   * more ready than room, once fewer than a slot's worth of its runs wait.
   */
  private wantsClaims(): boolean {
    if (!this.running() || this.heldByPoll()) return false;
    if (this.readyOrders.size > 0 || this.lookEverywhere) return true;
    if (this.more.size === 0) return false;
    const tally = this.tally();
    return [...this.more].some((a) => (tally.get(a)?.ahead ?? 0) < RUNS_AT_ONCE);
  }

  /**
   * Claims runs ahead, each automation within its own room: the orders just read first, then the
   * automations that may have more. Answers the runs claimed (the transaction's, until committed).
   */
  private topUp(): AutomationRun[] {
    if (!this.wantsClaims()) return [];
    const tally = this.tally();
    const claimed: AutomationRun[] = [];
    const counts = (automation: string) => {
      const { busy = 0, ahead = 0 } = tally.get(automation) ?? {};
      const waiting = ahead + claimed.filter((r) => r.automation === automation).length;
      return { waiting, room: RUNS_AT_ONCE + RUNS_AHEAD - busy - waiting };
    };
    const claim = (
      limit: number,
      only: { order: string } | { automation: string },
      take?: (a: string) => boolean,
    ) => {
      const runs = this.deps.store.claimRuns(
        this.deps.claimant,
        this.stillRunning,
        this.isoNow(),
        limit,
        only,
        take,
      );
      for (const run of runs) this.claiming.add(run.deliveryId);
      claimed.push(...runs);
      return runs.length;
    };
    for (const order of this.readyOrders) {
      // An automation without room for the order's run is looked at again once it has.
      claim(RUNS_AT_ONCE + RUNS_AHEAD, { order }, (automation) => {
        const room = counts(automation).room > 0;
        if (!room) this.more.add(automation);
        return room;
      });
    }
    this.readyOrders.clear();
    for (const automation of this.lookEverywhere ? this.deps.store.runAutomations() : [...this.more]) {
      const { waiting, room } = counts(automation);
      // Fewer than asked for: all of its runs ready are claimed. After a kick (a poll's end, when
      // its orders' runs were held) the room is filled, however many of them were claimed by order.
      if ((this.lookEverywhere || waiting < RUNS_AT_ONCE) && room > 0 && claim(room, { automation }) < room)
        this.more.delete(automation);
      else this.more.add(automation);
    }
    this.lookEverywhere = false;
    return claimed;
  }

  /** Starts runs claimed ahead in their automations' free slots; gives them back when automations stopped. */
  private startAhead(): void {
    if (!this.running()) {
      this.release();
      return;
    }
    if (this.heldByPoll()) return;
    const tally = this.tally();
    for (const run of this.ahead.values()) {
      const counts = tally.get(run.automation);
      if (!counts || counts.busy >= RUNS_AT_ONCE) continue;
      counts.busy += 1;
      this.ahead.delete(run.deliveryId);
      this.start([run]);
    }
  }

  private release(): void {
    const ids = [...this.ahead.keys()];
    this.ahead.clear();
    this.giveBack(ids);
  }

  /** Gives claimed runs back unstarted, their attempts as they were. */
  private giveBack(ids: string[]): void {
    if (ids.length === 0) return;
    try {
      this.deps.store.releaseRuns(this.deps.claimant, ids);
    } catch (error) {
      // Left claimed by this core: the next start takes them again, same delivery ids.
      this.deps.log.warn('automation runs could not be given back', failureFields(error));
    }
  }

  private running(): boolean {
    return (
      !this.stopping.signal.aborted &&
      this.deps.settings().automationsEnabled === true &&
      this.deps.ports.forbidden?.() === undefined
    );
  }

  /**
   * Runs one queued run now, whether this laptop runs automations or not (a person asked for it:
   * "Run again", `automations test`), and resolves once it ended or waits to be tried again.
   */
  async runNow(deliveryId: string): Promise<AutomationRun | undefined> {
    // Automations off here, nothing kicked: a command a dead runner left for the order may run on.
    await this.sweptFirst();
    if (!this.stopping.signal.aborted) {
      this.start(
        this.deps.store.claimRuns(this.deps.claimant, this.stillRunning, this.isoNow(), 1, {
          run: deliveryId,
        }),
        true,
      );
    }
    return this.ended(deliveryId);
  }

  /**
   * Whether a run claimed by `pid`'s core `token` is still being carried out: by this runner only
   * while it is in flight here (a process killed before may have had this pid), by another core
   * while it lives (another runner of this process on the store included: its claims are not this
   * one's to take).
   */
  private readonly stillRunning = (pid: number, token: string | null, deliveryId: string): boolean =>
    (pid === this.deps.claimant.pid && token === this.deps.claimant.token
      ? this.inFlight.has(deliveryId) || this.ahead.has(deliveryId) || this.claiming.has(deliveryId)
      : this.deps.claimant.heldElsewhere(pid, token)) ||
    // Its runner gone, the command it started may run on: it waits until that is stopped.
    this.leftRunning.holds(deliveryId);

  /** Carries the runs out; `asked`: a person asked for them, they run whether automations are on or not. */
  private start(claimed: readonly AutomationRun[], asked = false): void {
    for (const run of claimed) {
      const running = this.carryOut(run, asked)
        .catch((error: unknown) => this.deps.log.warn('automation run failed', failureFields(error)))
        .finally(() => {
          this.inFlight.delete(run.deliveryId);
          this.ending.delete(run.deliveryId);
          this.tellWaiters(run.deliveryId);
          // The turn that wrote its end planned the next retry already.
          this.startAhead();
          if (this.wantsClaims()) this.planTurn();
        });
      this.inFlight.set(run.deliveryId, { automation: run.automation, done: running });
    }
  }

  /** Resolves when the run has ended (or been queued again to wait); undefined when it is not known. */
  private ended(deliveryId: string): Promise<AutomationRun | undefined> {
    const run = this.deps.store.run(deliveryId);
    if (!run || (run.state !== 'queued' && run.state !== 'running') || this.stopping.signal.aborted) {
      return Promise.resolve(run);
    }
    return new Promise((resolve) => {
      this.waiters.set(deliveryId, [...(this.waiters.get(deliveryId) ?? []), resolve]);
    });
  }

  /** Resolves when no run is under way. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.turnPlanned) {
      if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()].map((r) => r.done));
      else await new Promise((resolve) => setTimeout(resolve, WRITE_BEHIND_MS));
    }
  }

  /**
   * Stops for good: commands under way are ended and their runs queued again for the next start.
   * Answers how many runs were under way (started, not ending).
   */
  stop(): number {
    const underWay = [...this.inFlight.keys()].filter((id) => !this.ending.has(id)).length;
    this.stopping.abort();
    this.secrets.clear();
    this.release();
    this.deps.timers.clearTimeout(this.timer);
    this.pollEnded();
    for (const id of [...this.waiters.keys()]) this.tellWaiters(id);
    return underWay;
  }

  private tellWaiters(deliveryId: string): void {
    const waiting = this.waiters.get(deliveryId);
    if (!waiting) return;
    this.waiters.delete(deliveryId);
    const run = this.deps.store.run(deliveryId);
    for (const resolve of waiting) resolve(run);
  }

  /** A timer for the next run waiting to be tried again. */
  private planNext(lookedEverywhere: boolean): void {
    this.deps.timers.clearTimeout(this.timer);
    this.timer = undefined;
    // Runs due already and not taken wait for something else: a slot (an ending kicks again),
    // their order's reading (it kicks), another process (the next poll looks again).
    const next = this.deps.store.nextRunDue(this.isoNow());
    if (next === undefined || this.stopping.signal.aborted) return;
    const wait = Date.parse(next) - this.deps.now();
    // Further ahead than any wait: set by a clock since set back, so due now (claimRuns). A look at
    // every run left it, so it waits like those due already; a turn that did not look gets a look
    // after the first wait.
    if (wait <= RETRY_MAX_WAIT_MS) this.timer = this.deps.timers.setTimeout(() => this.kick(), wait);
    else if (!lookedEverywhere)
      this.timer = this.deps.timers.setTimeout(() => this.kick(), RETRY_FIRST_WAIT_MS);
  }

  private async carryOut(claimed: AutomationRun, asked: boolean): Promise<void> {
    // This attempt: told to the command or receiver, counted on disk only once it starts (began).
    const run = { ...claimed, attempts: claimed.attempts + 1 };
    let automation: AutomationSetting | undefined;
    let ending: Ending | typeof EDITED | undefined;
    do {
      automation = this.automation(run.automation);
      ending = automation
        ? await this.attempt(run, automation, asked)
        : { state: 'skipped', detail: `no automation is named ${run.automation} in the settings any more` };
    } while (ending === EDITED);
    if (!ending) {
      this.giveBack([run.deliveryId]);
      return;
    }
    // Its earlier command, left running by a runner killed, was stopped first: said with its output.
    const note = this.leftRunning.takeNote(run.deliveryId);
    if (note) ending = { ...ending, output: ending.output ? `${note}\n${ending.output}` : note };
    // Stopped in the middle: it runs again at the next start, under the same delivery id.
    const stopped = this.stopping.signal.aborted && ending.state !== 'succeeded';
    const final: Ending = stopped
      ? {
          ...ending,
          state: 'queued',
          dueAt: this.isoNow(),
          detail: `stopped before it ended (${ending.detail}): it runs again at the next start`,
        }
      : ending;
    if (automation && !stopped && (final.state === 'succeeded' || final.state === 'failed')) {
      final.detail += await this.report(run, automation, final);
    }
    await this.written(run, final);
    // A failure is a warning with its reason in words, and when it is tried next if it is.
    const retrying = final.state === 'queued' && !stopped && final.retry === true;
    const fields = {
      automation: run.automation,
      orderId: run.orderId,
      deliveryId: run.deliveryId,
      attempt: run.attempts,
      state: final.state,
      exitCode: final.exitCode,
      httpStatus: final.httpStatus,
    };
    if (final.state === 'failed')
      this.deps.log.warn('automation run failed', { ...fields, reason: final.detail });
    else if (retrying)
      this.deps.log.warn('automation run failed, tried again later', {
        ...fields,
        reason: final.detail,
        nextTry: final.dueAt,
      });
    else this.deps.log.info('automation run', { ...fields, detail: final.detail });
    this.deps.changed([run.orderId]);
    if (final.state === 'failed')
      this.deps.failed(run, final.detail, final.output ? lastLine(final.output) : '');
  }

  /** Frees the run's slot for the next; resolves once its end is on disk (written with others). */
  private written(run: AutomationRun, ending: Ending): Promise<void> {
    return new Promise((written, failed) => {
      this.ends.push({ run, ending, at: this.isoNow(), written, failed });
      this.ending.add(run.deliveryId);
      this.startAhead();
      this.planTurn();
    });
  }

  /**
   * One attempt of a run: its order, its filters, then its action. Undefined when it never started
   * (a stop; automations switched off while a command waited for a slot, unless `asked`); EDITED
   * when the automation changed or went while a command waited: attempted again as it is now.
   */
  private async attempt(
    run: AutomationRun,
    automation: AutomationSetting,
    asked: boolean,
  ): Promise<Ending | typeof EDITED | undefined> {
    // A new order's run waits (a retry, a slot, its order) while the automation may change: it runs
    // only while the automation still takes it. One asked for by name runs whatever these say.
    const newOrder = run.trigger === 'new-order';
    if (newOrder && !automation.enabled)
      return { state: 'skipped', detail: 'the automation was turned off before this run' };
    if (newOrder && !runsFor(automation, this.deps.ports.account.id))
      return { state: 'skipped', detail: 'the automation no longer runs for this account' };
    const stored = this.deps.store.storedOrderJson(run.orderId);
    if (!stored?.document) {
      const at = retryAt(run.attempts, Date.parse(run.queuedAt), this.deps.now());
      return at === undefined
        ? { state: 'failed', detail: 'the order could not be read from the marketplace within 24 hours' }
        : {
            state: 'queued',
            dueAt: new Date(Math.min(at, this.deps.now() + DOCUMENT_WAIT_MS)).toISOString(),
            detail: 'waiting for the order to be read from the marketplace',
          };
    }
    // The document is parsed only for filters to look at.
    if (
      newOrder &&
      filtered(automation) &&
      !matches(automation, JSON.parse(stored.document) as Order, stored.purchaseType)
    ) {
      return { state: 'skipped', detail: "the order's products or type are not among this automation's" };
    }
    const payload = payloadHead({
      run,
      attempt: run.attempts,
      account: this.deps.ports.account,
      named: this.deps.ports.named?.() ?? false,
      status: stored.status,
    });
    const body = payloadBody(payload, stored.document, stored.licenses);
    const { action } = automation;
    if (action.type === 'command') {
      const cwd = action.cwd ?? this.deps.ports.workDir;
      try {
        // The account's work folder is Seller Tray's own: private, never another user's (paths.ts).
        // One the automation names is the user's choice, only made when absent.
        if (action.cwd) mkdirSync(cwd, { recursive: true, mode: 0o700 });
        else ensurePrivateDir(cwd);
      } catch (error) {
        return {
          state: 'failed',
          detail: `it did not run: ${explainFailure(error, this.deps.advice).message}`,
          toldMarketplace: 'could not run: its work folder on this computer could not be used',
        };
      }
      // Waiting for a slot, it shows as waiting; its time limit counts from its start.
      const slots = this.deps.ports.commandSlots ?? commandSlots;
      const release = await slots.take(
        `${this.deps.ports.account.id}\0${run.automation}`,
        this.stopping.signal,
      );
      if (!release) return undefined;
      try {
        // The wait may have taken minutes: it runs as the settings say now (deleted: skipped).
        if (!asked && !this.running()) return undefined;
        if (JSON.stringify(this.automation(run.automation)) !== JSON.stringify(automation)) return EDITED;
        this.began(run);
        const result = await runCommand(action.command, {
          input: body,
          env: commandEnvironment(payload, this.deps.ports.env),
          cwd,
          timeoutMs: action.timeoutSeconds * 1000,
          signal: this.stopping.signal,
          spawned: (pid) => this.leftRunning.record(pid, run, action.command),
        });
        return commandEnding(result, action.timeoutSeconds);
      } finally {
        release();
      }
    }
    const what =
      action.type === 'webhook'
        ? 'signing secret'
        : `${action.type === 'slack' ? 'Slack' : 'Teams'} incoming webhook address`;
    let secret: string | undefined;
    try {
      secret = await this.secret(automation.name);
    } catch (error) {
      // The keychain out of reach (locked, no Secret Service): nothing sent, tried again as a
      // receiver that did not answer, the run saying why. The try is counted, so that the waits
      // grow on the webhook schedule (uncounted, it was tried every 30 s for 24 hours).
      // The marketplace is told what failed, not the keychain's words or a credential's file here.
      const reason = error instanceof Error ? error.message : String(error);
      this.began(run);
      return this.retried(
        run,
        { toldMarketplace: `could not run: its ${what} could not be read on this computer` },
        // The reason names where it was read: the keychain, or a service's credential.
        `its ${what} could not be read: ${reason}`,
      );
    }
    // Stopped while the keychain answered: nothing is sent.
    if (this.stopping.signal.aborted) return undefined;
    if (!secret) {
      // Set per account: the advice names this one.
      const advice = this.deps.advice.automationSecret(automation.name);
      return {
        state: 'failed',
        detail: `its ${what} is not set on this computer: ${advice}`,
        toldMarketplace: `could not run: its ${what} is not set on this computer`,
      };
    }
    let result: DeliveryResult;
    if (action.type === 'webhook') {
      const seconds = Math.floor(this.deps.now() / 1000);
      this.began(run);
      result = await deliver(
        this.post,
        action.url,
        body,
        {
          [SIGNATURE_HEADER]: signature(secret, body, seconds),
          [DELIVERY_HEADER]: run.deliveryId,
          'Idempotency-Key': run.deliveryId,
          'User-Agent': 'Seller-Tray-Automations/1',
        },
        this.stopping.signal,
        this.deps.ports.deliveryTimeoutMs,
      );
    } else {
      const problem = webhookUrlProblem(secret);
      if (problem)
        return { state: 'failed', detail: `the incoming webhook address in the keychain ${problem}` };
      const chat = {
        brief: this.deps.brief(run.orderId),
        link: payload.link,
        account: payload.account.label,
      };
      const message = action.type === 'slack' ? slackMessage(chat) : teamsMessage(chat);
      this.began(run);
      result = await deliver(
        this.post,
        secret,
        JSON.stringify(message),
        {},
        this.stopping.signal,
        this.deps.ports.deliveryTimeoutMs,
      );
    }
    return this.deliveryEnding(run, result);
  }

  /**
   * The run really starts now (its command spawned, its request sent): it shows as running from
   * this time, its attempt counted, once the next turn wrote it. Until then it shows as waiting
   * with its earlier attempts; a kill -9 meanwhile loses only that: still claimed, it is run again,
   * told the same attempt number.
   */
  private began(run: AutomationRun): void {
    this.starts.set(run.deliveryId, { at: this.isoNow(), attempt: run.attempts, orderId: run.orderId });
    this.planTurn();
  }

  /** An automation's secret from the keychain, read at most once a SECRET_KEPT_MS; none found is asked again. */
  private async secret(automation: string): Promise<string | undefined> {
    const kept = this.secrets.get(automation);
    if (kept && kept.until > performance.now()) return kept.secret;
    const secret = await this.deps.ports.secret(automation);
    if (secret) this.secrets.set(automation, { secret, until: performance.now() + SECRET_KEPT_MS });
    else this.secrets.delete(automation);
    return secret;
  }

  private get post(): Post {
    return this.deps.ports.post ?? httpPost;
  }

  private deliveryEnding(run: AutomationRun, result: DeliveryResult): Ending {
    const common = { httpStatus: result.status, output: result.answer || null };
    if (result.outcome === 'delivered') return { ...common, state: 'succeeded', detail: result.detail };
    if (result.outcome === 'refused') return { ...common, state: 'failed', detail: result.detail };
    return this.retried(run, common, result.detail, result.retryAfterSeconds);
  }

  /** A delivery to try again on the backoff schedule (or when the receiver asked), failed once 24 hours have passed. */
  private retried(
    run: AutomationRun,
    common: Partial<Ending>,
    detail: string,
    retryAfterSeconds?: number | undefined,
  ): Ending {
    const at = retryAt(run.attempts, Date.parse(run.queuedAt), this.deps.now(), retryAfterSeconds);
    if (at === undefined)
      return { ...common, state: 'failed', detail: `not delivered within 24 hours: ${detail}` };
    const dueAt = new Date(at).toISOString();
    const clause = detail.replace(/\.$/, '');
    return { ...common, state: 'queued', dueAt, retry: true, detail: `${clause}; tried again at ${dueAt}` };
  }

  /**
   * Marks the order's status from the run's result when the automation reports it: the command's
   * own status line first, else success as declared and failure as Failed with the output's last
   * line. Answers what to add to the run's detail.
   */
  private async report(run: AutomationRun, automation: AutomationSetting, ending: Ending): Promise<string> {
    if (automation.reportStatus === null || run.trigger === 'test') return '';
    const own = ending.reported && statusOf(ending.reported.status);
    const statusCode: MarkableStatus =
      own ?? (ending.state === 'succeeded' ? SUCCESS[automation.reportStatus] : 'ProvisioningFailed');
    const reason = capped(
      paragraphText(
        (own ? ending.reported?.detail : undefined) ||
          (ending.state === 'failed'
            ? (ending.saysWhy && lastLine(ending.output ?? '')) || ending.toldMarketplace || ending.detail
            : ''),
      ).replace(/\s+/g, ' '),
      REASON_MAX,
    );
    const actor = `automation ${automation.name} on ${this.deps.ports.laptop}`;
    // A new order goes to In progress first, as a person takes it: the marketplace then sees
    // the steps it expects, and a status a colleague set meanwhile is not overwritten.
    const steps: MarkableStatus[] =
      statusCode !== 'ProvisioningInProgress' &&
      this.deps.store.storedOrder(run.orderId)?.status === 'ProvisioningStarted'
        ? ['ProvisioningInProgress', statusCode]
        : [statusCode];
    try {
      for (const step of steps) {
        const last = step === statusCode;
        await this.deps.mark({
          orderId: run.orderId,
          statusCode: step,
          description: describeMark(step, actor, last ? reason : ''),
          detailedDescription: step === 'ProvisioningFailed' ? reason || ending.detail : undefined,
        });
      }
      return `; marked ${statusCode}`;
    } catch (error) {
      // The person's question ("confirm to do it anyway") is not the automation's to answer.
      if (error instanceof TransitionError)
        return `; ${unusualReportText(automation.name, error.unusual)}; it was not marked: a status out of the usual order is marked only by a person, ${this.deps.advice.markAnyway(run.orderId, error.unusual.to)}`;
      return `; the status was not marked: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  private automation(name: string): AutomationSetting | undefined {
    return automationNamed(this.deps.settings().automations, name);
  }

  private isoNow(): string {
    return new Date(this.deps.now()).toISOString();
  }
}

/** An automation edited or deleted while its command waited for a slot: attempted again as it is now. */
const EDITED = Symbol('edited');

const SUCCESS = { 'in-progress': 'ProvisioningInProgress', completed: 'ProvisioningCompleted' } as const;

/** A command's status word ("completed", "InProgress", "ProvisioningFailed"…) as a status to mark. */
function statusOf(word: string): MarkableStatus | undefined {
  const key = word
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/^provisioning/, '');
  return key === 'inprogress'
    ? 'ProvisioningInProgress'
    : key === 'completed'
      ? 'ProvisioningCompleted'
      : key === 'failed'
        ? 'ProvisioningFailed'
        : undefined;
}

/** Whether the automation is for some orders only (some products or order types). */
function filtered(automation: AutomationSetting): boolean {
  return automation.products.length > 0 || automation.orderTypes.length > 0;
}

/** Whether the order is one the automation is for: any of its products, and its type (any case). */
export function matches(
  automation: AutomationSetting,
  order: Order,
  purchaseType: string | undefined,
): boolean {
  const same = (wanted: readonly string[], values: (string | undefined)[]) => {
    const have = new Set(values.filter((v) => v !== undefined).map((v) => v.trim().toLowerCase()));
    return wanted.length === 0 || wanted.some((w) => have.has(w.toLowerCase()));
  };
  const products = order.documentLines.flatMap((l) => [l.lineItem?.sellersItemId, l.lineItem?.name]);
  return (
    same(automation.products, products) && same(automation.orderTypes, [order.orderTypeCode, purchaseType])
  );
}

function commandEnding(result: CommandResult, timeoutSeconds: number): Ending {
  const output =
    result.dropped > 0
      ? `[${result.dropped} bytes of output before this left out]\n${result.output}`
      : result.output;
  const base = { exitCode: result.exitCode, output: output || null };
  if (result.startError)
    return { ...base, state: 'failed', detail: `could not be started: ${result.startError}` };
  if (result.timedOut)
    return { ...base, state: 'failed', detail: `stopped after its time limit of ${timeoutSeconds} s` };
  if (result.signal) return { ...base, state: 'failed', detail: `ended by signal ${result.signal}` };
  // Only a command that ended by itself reports its status line: one cut short failed above,
  // whatever a line before said (an "in-progress" line must not hide that from the marketplace).
  const ended = { ...base, reported: result.statusLine };
  // A status line saying it failed is a failure, whatever the exit code; one whose status is
  // not understood is ignored, saying so (a script that writes "done" learns why nothing changed).
  const said = result.statusLine && statusOf(result.statusLine.status);
  if (said === 'ProvisioningFailed')
    return { ...ended, state: 'failed', detail: 'its status line said failed' };
  const ignored =
    result.statusLine && !said
      ? `; its status line's status "${capped(plainText(result.statusLine.status), 40)}" is not in-progress, completed or failed: ignored`
      : '';
  if (result.exitCode === 0) return { ...ended, state: 'succeeded', detail: `exit 0${ignored}` };
  return { ...ended, state: 'failed', saysWhy: true, detail: `exit ${result.exitCode}${ignored}` };
}
