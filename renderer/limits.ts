// The settings' limits as the renderer states them in its hints. main/core/settings.ts is the
// authority (it validates every change) but reads files and cannot be bundled for the window;
// a test checks these copies match it.
export const POLL_INTERVAL_SECONDS = { min: 30, max: 3600 } as const;
export const REMINDER_AFTER_MINUTES = { off: 0, min: 15, max: 7 * 24 * 60 } as const;
export const STALE_IN_PROGRESS_DAYS = { off: 0, max: 365 } as const;
