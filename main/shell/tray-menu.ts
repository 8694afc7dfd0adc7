// The tray: its icon, tooltip, title and context menu follow the service's state. It says when
// the marketplace was last read ("checked 1 min ago"; failing, "offline, last read 3 min ago,
// trying again"; renewed by the caller's clock, no call to the marketplace), and its icon takes a warning form when that is too long ago (liveness.ts).
// The count is what waits and what needs attention. Serving several accounts, it gives each its
// own line (tooltip and menu), and the warning icon when any is read too long ago. The menu
// carries every action (Linux tray clicks are unreliable): Open, Needs attention, Insights, Check
// now, Pause notifications (one click:
// 1 hour, 4 hours, until tomorrow 08:00, until I resume), Settings, Help, Open log
// folder (for a support ticket), Quit.
import type { AppState } from '../../preload/contract';
import { trayCount } from '../../preload/model';
import { PAUSE_CHOICES, pausedUntil, pauseEndText } from '../../preload/pause';
import { servedAccounts } from '../../preload/served-account';
import {
  accountStateText,
  checkFoundText,
  lastReadText,
  servedAccountText,
  TRAY_PROBLEMS,
} from '../../preload/status-words';
import { PRODUCT_NAME } from '../core/app-identity';
import type { SellerTrayService } from '../core/service';
import type { MenuItemSpec, TrayIcon, TrayPort } from './electron-ports';

export interface TrayActions {
  open(): void;
  /** Opens the window on the Needs attention view. */
  attention(): void;
  /** Opens the window on Insights (the header shows it as a small chart at tray size). */
  insights(): void;
  checkNow(): void;
  /** Pauses notifications until the given time, or resumes them (null). */
  pause(until: Date | null): void;
  settings(): void;
  help(): void;
  openLogFolder(): void;
  quit(): void;
}

export interface TrayView {
  icon: TrayIcon;
  toolTip: string;
  title: string;
  template: MenuItemSpec[];
}

function waitingText(count: number): string {
  if (count === 0) return 'no orders waiting';
  return count === 1 ? '1 order waiting' : `${count} orders waiting`;
}

function clock(date: Date, now: Date): string {
  const time = date.toLocaleTimeString('en', { hour: '2-digit', minute: '2-digit' });
  return date.toDateString() === now.toDateString() ? time : `${date.toLocaleDateString('en')} ${time}`;
}

/** "until 14:30", or "until you resume them": the app's pause and an account's own alike. */
function pauseEnd(until: Date, now: Date): string {
  return pauseEndText(until, (time) => clock(time, now));
}

/**
 * The tray as the state says: pure, so every label is tested without Electron. `more`: items other
 * parts of the shell add above Quit (the updater's).
 */
export function trayView(
  state: AppState,
  now: Date,
  actions: TrayActions,
  more: MenuItemSpec[] = [],
): TrayView {
  const paused = pausedUntil(state.notificationsPausedUntil, now.getTime());
  const configured = state.setup !== 'unconfigured';
  // Several accounts: each says its own state on a line of its own, none in the summary.
  const accounts = servedAccounts(state.accounts);
  const single = configured && accounts.length === 0;
  const problem = configured ? TRAY_PROBLEMS[state.connection] : 'not set up';
  const count = trayCount(state);
  const beside = count - state.waitingCount;
  const staleAccount = (a: { health: AppState['health'] }) => a.health !== 'healthy';
  const stale = configured && (single ? staleAccount(state) : accounts.some(staleAccount));
  const read = lastReadText(state, now.getTime());
  const stateLines = single
    ? [{ text: accountStateText(state, now.getTime()), stale }]
    : accounts.map((a) => ({
        text: `${a.label}: ${servedAccountText(a, now.getTime(), (until) => pauseEnd(until, now))}`,
        stale: staleAccount(a),
      }));
  const parts = [waitingText(state.waitingCount)];
  if (beside > 0) parts.push(`${beside} more need${beside === 1 ? 's' : ''} attention`);
  if (problem && (single || !configured)) parts.push(problem);
  if (single) parts.push(read.toLowerCase());
  if (paused) parts.push(`notifications paused ${pauseEnd(paused, now)}`);
  const toolTip = [
    `${PRODUCT_NAME} — ${parts.join(', ')}`,
    ...(single ? [] : stateLines.map((l) => l.text)),
  ].join('\n');

  const pauseMenu: MenuItemSpec[] = [
    ...PAUSE_CHOICES.map((choice) => ({
      label: choice.label,
      click: () => actions.pause(choice.until(now)),
    })),
    { type: 'separator' },
    { label: 'Resume notifications', enabled: paused !== null, click: () => actions.pause(null) },
  ];
  const template: MenuItemSpec[] = [
    { label: `${PRODUCT_NAME}: ${waitingText(state.waitingCount)}`, enabled: false },
    ...(configured
      ? stateLines.map(
          (line) => ({ label: line.stale ? `⚠ ${line.text}` : line.text, enabled: false }) as const,
        )
      : []),
    { type: 'separator' },
    { label: 'Open', click: actions.open },
    {
      label: beside > 0 ? `Needs attention (${beside})` : 'Needs attention',
      enabled: configured,
      click: actions.attention,
    },
    { label: 'Insights', enabled: configured, click: actions.insights },
    { label: 'Check now', enabled: state.setup !== 'unconfigured', click: actions.checkNow },
    {
      label: paused ? `Notifications paused ${pauseEnd(paused, now)}` : 'Pause notifications',
      type: 'submenu',
      submenu: pauseMenu,
    },
    { label: 'Settings', click: actions.settings },
    { label: 'Help', click: actions.help },
    { label: 'Open log folder', click: actions.openLogFolder },
    ...(more.length > 0 ? [{ type: 'separator' } as const, ...more] : []),
    { type: 'separator' },
    { label: 'Quit', click: actions.quit },
  ];
  return { icon: stale ? 'warning' : 'normal', toolTip, title: count > 0 ? String(count) : '', template };
}

export interface TrayControllerOptions {
  service: SellerTrayService;
  tray: TrayPort;
  /** Open, Settings, Help and Quit belong to the window and the app; the rest go to the service. */
  open(): void;
  /** The window on the Needs attention view. */
  attention(): void;
  /** The window on Insights. */
  insights(): void;
  settings(): void;
  help(): void;
  quit(): void;
  now?: () => Date;
  /** Told when an action the service answered failed (shown as a notification by the caller). */
  onFailure?(message: string): void;
  /** Told what Check now found ("No new orders", "2 new orders"), as a notification by the caller. */
  onChecked?(message: string): void;
  /** Items other parts of the shell add above Quit, as they are now (the updater's). */
  moreItems?(): MenuItemSpec[];
}

/** Keeps the tray current with the service, and its actions wired; returns the stop function. */
export function startTray(options: TrayControllerOptions): { refresh(): void; stop(): void } {
  const now = options.now ?? (() => new Date());
  const report = (answer: { ok: boolean; error?: { message: string } }) => {
    if (!answer.ok && answer.error) options.onFailure?.(answer.error.message);
  };
  const actions: TrayActions = {
    open: () => options.open(),
    attention: () => options.attention(),
    insights: () => options.insights(),
    settings: () => options.settings(),
    help: () => options.help(),
    quit: () => options.quit(),
    checkNow: () => {
      void options.service.handle('checkNow', undefined).then((answer) => {
        report(answer);
        if (answer.ok) options.onChecked?.(checkFoundText(answer.value));
      });
    },
    openLogFolder: () => {
      void options.service.handle('openLogFolder', undefined).then(report);
    },
    pause: (until) => {
      void options.service
        .handle('pauseNotifications', { until: until ? until.toISOString() : null })
        .then(report);
    },
  };
  const refresh = () => {
    const view = trayView(options.service.state(), now(), actions, options.moreItems?.());
    options.tray.setIcon?.(view.icon);
    options.tray.setToolTip(view.toolTip);
    options.tray.setTitle?.(view.title);
    options.tray.setMenu(view.template);
  };
  refresh();
  const unsubscribe = options.service.onEvent((event) => {
    if (event.type === 'app-state') refresh();
  });
  return { refresh, stop: unsubscribe };
}
