// The settings benches run the core with: the app's own defaults, checked at each read, so a
// bench measures what users run and stops, loudly, when its settings drift from DEFAULT_SETTINGS
// or when the defaults turn off a feature that costs per poll (issue 27).
import { DEFAULT_SETTINGS, type Settings } from '../../main/core/settings';

/** Features that cost per poll: a bench measures them on. */
const PER_POLL = ['reminderAfterMinutes', 'undoSeconds', 'staleInProgressDays'] as const;

/**
 * A reader of `settings` (DEFAULT_SETTINGS, plus `added` where a bench adds what the defaults
 * leave empty, such as an automation) that throws, naming `bench`, when any other setting differs
 * from the app's defaults or the defaults turn a per-poll feature off.
 */
export function appDefaults(
  bench: string,
  added: Partial<Settings> = {},
): { settings: Readonly<Settings>; read: () => Readonly<Settings> } {
  const settings: Readonly<Settings> = { ...DEFAULT_SETTINGS, ...added };
  const read = () => {
    const drifted = Object.keys({ ...settings, ...DEFAULT_SETTINGS }).filter(
      (key) =>
        !(key in added) &&
        JSON.stringify(settings[key as keyof Settings]) !==
          JSON.stringify(DEFAULT_SETTINGS[key as keyof Settings]),
    );
    if (drifted.length > 0) {
      throw new Error(
        `${bench}: its settings drifted from DEFAULT_SETTINGS (${drifted.join(', ')}): it must measure what users run`,
      );
    }
    const off = PER_POLL.filter((key) => !(settings[key] > 0));
    if (off.length > 0) {
      throw new Error(`${bench}: the app's defaults turn off ${off.join(', ')}; the bench measures them on`);
    }
    return settings;
  };
  return { settings, read };
}
