// The settings benches run the core with: the app's own defaults, checked at each read, so a
// bench measures what users run and stops, loudly, when its settings drift from DEFAULT_SETTINGS
// or when the defaults turn off a feature that costs per poll (issue 27). A bench that must run
// a setting otherwise names it with its reason, and prints `differs` in its output.
import { DEFAULT_SETTINGS, type Settings } from '../../main/core/settings';

/** Features that cost per poll: a bench measures them on. */
const PER_POLL = ['reminderAfterMinutes', 'undoSeconds', 'staleInProgressDays'] as const;

/** Settings a bench runs otherwise than the app, and why. */
export interface Departure {
  settings: Partial<Settings>;
  why: string;
}

/**
 * A reader of `settings` (DEFAULT_SETTINGS, plus `added` where a bench adds what the defaults
 * leave empty, such as an automation or an account, plus `departure`'s settings) that throws,
 * naming `bench`, when any other setting differs from the app's defaults or a per-poll feature is
 * off but by the departure; `differs` says in a line what the departure is and why ('' without one).
 */
export function appDefaults(
  bench: string,
  added: Partial<Settings> = {},
  departure?: Departure,
): { settings: Readonly<Settings>; read: () => Readonly<Settings>; differs: string } {
  const own = { ...added, ...departure?.settings };
  const settings: Readonly<Settings> = { ...DEFAULT_SETTINGS, ...own };
  const read = () => {
    const drifted = Object.keys({ ...settings, ...DEFAULT_SETTINGS }).filter(
      (key) =>
        !(key in own) &&
        JSON.stringify(settings[key as keyof Settings]) !==
          JSON.stringify(DEFAULT_SETTINGS[key as keyof Settings]),
    );
    if (drifted.length > 0) {
      throw new Error(
        `${bench}: its settings drifted from DEFAULT_SETTINGS (${drifted.join(', ')}): it must measure what users run`,
      );
    }
    const off = PER_POLL.filter((key) => !(key in (departure?.settings ?? {})) && !(settings[key] > 0));
    if (off.length > 0) {
      throw new Error(`${bench}: it runs with ${off.join(', ')} off; the bench measures them on`);
    }
    return settings;
  };
  const differs = departure
    ? `${bench} runs ${Object.entries(departure.settings)
        .map(
          ([key, value]) =>
            `${key} ${JSON.stringify(value)} (the app's ${JSON.stringify(DEFAULT_SETTINGS[key as keyof Settings])})`,
        )
        .join(', ')}: ${departure.why}`
    : '';
  return { settings, read, differs };
}
