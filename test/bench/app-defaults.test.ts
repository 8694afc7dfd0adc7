// The guard that keeps the benches on the app's defaults (issue 27): it must be able to fail.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../main/core/settings';
import { appDefaults } from './app-defaults';

describe("the benches' settings", () => {
  it("are the app's defaults, with what a bench serves and runs added", () => {
    const accounts = [{ label: 'M1', baseUrl: 'http://127.0.0.1:1', clientId: 'c' }];
    const { read, differs } = appDefaults('a.bench', { accounts, automationsEnabled: true });
    expect(read()).toEqual({ ...DEFAULT_SETTINGS, accounts, automationsEnabled: true });
    expect(differs).toBe('');
  });

  it('refuse any other setting added without a reason, naming it', () => {
    expect(() => appDefaults('a.bench', { pollIntervalSeconds: 5, notificationsEnabled: false })).toThrow(
      'a.bench: it changes pollIntervalSeconds, notificationsEnabled without a reason',
    );
    expect(() => appDefaults('a.bench', { escalateAfterMinutes: 0 })).toThrow('escalateAfterMinutes');
  });

  it('take a departure with its reason, and say it', () => {
    const { read, differs } = appDefaults(
      'a.bench',
      {},
      { settings: { pollIntervalSeconds: 30 }, why: 'two polls a minute' },
    );
    expect(read().pollIntervalSeconds).toBe(30);
    expect(differs).toBe("a.bench runs pollIntervalSeconds 30 (the app's 60): two polls a minute");
  });

  it('refuse defaults that turn off a feature that costs per poll, unless a departure does', () => {
    for (const key of [
      'reminderAfterMinutes',
      'escalateAfterMinutes',
      'undoSeconds',
      'staleInProgressDays',
    ] as const) {
      const drifted = { ...DEFAULT_SETTINGS, [key]: 0 };
      expect(() => appDefaults('a.bench', {}, undefined, drifted)).toThrow(
        `a.bench: it runs with ${key} off`,
      );
      expect(() =>
        appDefaults('a.bench', {}, { settings: { [key]: 0 }, why: 'measured without it' }, drifted),
      ).not.toThrow();
    }
  });

  it('cannot be changed by the bench on the way', () => {
    const { read } = appDefaults('a.bench');
    expect(() => {
      (read() as { pollIntervalSeconds: number }).pollIntervalSeconds = 1;
    }).toThrow(TypeError);
    expect(read().pollIntervalSeconds).toBe(DEFAULT_SETTINGS.pollIntervalSeconds);
  });
});
