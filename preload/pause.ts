// Pausing notifications, as the header and the tray menu offer it: for an hour, for four hours,
// until tomorrow 08:00, or until the user resumes; and snoozing a new order's urgent announcement
// (for an hour, or until tomorrow 08:00). "Until I resume" is kept as a moment no one
// reaches (the settings hold one time or none), so every part that reads a pause as a time
// keeps working; `isUntilResumed` tells it apart for the words. Pure, importable anywhere.

/** The end of a pause that lasts until the user resumes. */
export const UNTIL_RESUMED = '9999-12-31T23:59:59.000Z';

/** "Until tomorrow" ends at this hour, local time. */
const MORNING_HOUR = 8;

/** Tomorrow at 08:00, local time. */
export function tomorrowMorning(now: Date): Date {
  const next = new Date(now);
  next.setDate(next.getDate() + 1);
  next.setHours(MORNING_HOUR, 0, 0, 0);
  return next;
}

export interface PauseChoice {
  label: string;
  /** The choice on the command line (`accounts pause LABEL --for 1h`); none: the one without --for. */
  word?: string;
  until(now: Date): Date;
}

const FOR_AN_HOUR: PauseChoice = {
  label: 'For 1 hour',
  word: '1h',
  until: (now) => new Date(now.getTime() + 3_600_000),
};
const UNTIL_TOMORROW: PauseChoice = {
  label: `Until tomorrow ${String(MORNING_HOUR).padStart(2, '0')}:00`,
  word: 'tomorrow',
  until: tomorrowMorning,
};

export const PAUSE_CHOICES: readonly PauseChoice[] = [
  FOR_AN_HOUR,
  { label: 'For 4 hours', word: '4h', until: (now) => new Date(now.getTime() + 4 * 3_600_000) },
  UNTIL_TOMORROW,
  { label: 'Until I resume', until: () => new Date(UNTIL_RESUMED) },
];

/** The command line's words for the pause choices: `accounts pause LABEL --for 1h`. */
export const PAUSE_WORDS: readonly string[] = PAUSE_CHOICES.flatMap((choice) =>
  choice.word ? [choice.word] : [],
);

/** How long a new order's urgent announcement can be put off, on one laptop. */
export const SNOOZE_CHOICES: readonly PauseChoice[] = [FOR_AN_HOUR, UNTIL_TOMORROW];

/** When a pause set now ends, if it is still ahead; null when not paused. */
export function pausedUntil(until: string | null, now: number): Date | null {
  if (!until) return null;
  const ms = Date.parse(until);
  return Number.isFinite(ms) && ms > now ? new Date(ms) : null;
}

/**
 * Of the app's pause and an account's own, the one that ends later (either may have ended): an
 * account's notifications are held while either holds.
 */
export function laterPause(app: string | null, own: string | null | undefined): string | null {
  if (!own) return app;
  if (!app) return own;
  return Date.parse(own) > Date.parse(app) ? own : app;
}

export function isUntilResumed(until: Date): boolean {
  return until.getTime() >= Date.parse(UNTIL_RESUMED);
}

/**
 * When a pause ends, in words: "until 14:30", or "until you resume them"; `clock` writes the time
 * as the surface writes its times (the window in its locale, the tray its own way).
 */
export function pauseEndText(until: Date, clock: (time: Date) => string): string {
  return isUntilResumed(until) ? 'until you resume them' : `until ${clock(until)}`;
}
