// The settings benches run the core with: the app's own defaults, so a bench measures what users
// run and stops, loudly, when its settings leave them (issue 27): `added` may only fill in what a
// bench serves and runs (its accounts, automations), which the defaults leave empty; any other
// setting changed is a departure that names its reason and is printed in `differs`; a feature that
// costs per poll is measured on unless a departure turns it off; the settings are frozen, so a
// bench cannot change them on the way.
import { DEFAULT_SETTINGS, type Settings } from '../../main/core/settings';

/** Features that cost per poll: a bench measures them on. */
const PER_POLL = [
  'reminderAfterMinutes',
  'escalateAfterMinutes',
  'undoSeconds',
  'staleInProgressDays',
] as const;

/** What a bench may add without a reason: what it serves and runs, empty in the defaults. */
const ADDABLE: ReadonlySet<string> = new Set<keyof Settings>([
  'baseUrl',
  'clientId',
  'accounts',
  'api',
  'automationsEnabled',
  'automations',
  'runbooks',
  'actorName',
]);

/** Settings a bench runs otherwise than the app, and why. */
export interface Departure {
  settings: Partial<Settings>;
  why: string;
}

/**
 * The app's defaults (`defaults`: DEFAULT_SETTINGS but in this module's own test), plus `added`,
 * plus `departure`'s settings; throws, naming `bench`, when `added` changes a setting other than
 * what a bench serves and runs, or a per-poll feature is off but by the departure. `read` is the
 * settings port a core is given; `differs` says in a line what the departure is and why ('' without one).
 */
export function appDefaults(
  bench: string,
  added: Partial<Settings> = {},
  departure?: Departure,
  defaults: Readonly<Settings> = DEFAULT_SETTINGS,
): { settings: Readonly<Settings>; read: () => Readonly<Settings>; differs: string } {
  const unexplained = Object.keys(added).filter((key) => !ADDABLE.has(key));
  if (unexplained.length > 0) {
    throw new Error(
      `${bench}: it changes ${unexplained.join(', ')} without a reason: a bench measures what users run (name a departure and why)`,
    );
  }
  const settings: Readonly<Settings> = Object.freeze({ ...defaults, ...added, ...departure?.settings });
  const off = PER_POLL.filter((key) => !(key in (departure?.settings ?? {})) && !(settings[key] > 0));
  if (off.length > 0) {
    throw new Error(`${bench}: it runs with ${off.join(', ')} off; the bench measures them on`);
  }
  const differs = departure
    ? `${bench} runs ${Object.entries(departure.settings)
        .map(
          ([key, value]) =>
            `${key} ${JSON.stringify(value)} (the app's ${JSON.stringify(defaults[key as keyof Settings])})`,
        )
        .join(', ')}: ${departure.why}`
    : '';
  return { settings, read: () => settings, differs };
}
