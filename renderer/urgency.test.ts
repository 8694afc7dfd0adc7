import { describe, expect, it } from 'vitest';
import { urgencyOf } from './urgency';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW - h * 3_600_000).toISOString();
const limits = { reminderAfterMinutes: 60, staleInProgressDays: 7 };
const waiting = (h: number) => ({
  waiting: true,
  status: 'ProvisioningStarted',
  // Bought by a marketplace clock hours behind: its wait counts from its arrival here.
  since: hoursAgo(h + 5),
  waitingSince: hoursAgo(h),
});

describe('how pressing an order is', () => {
  it('is late past the reminder delay and very late past twice it', () => {
    expect(urgencyOf(waiting(0.5), NOW, limits)).toBe('none');
    expect(urgencyOf(waiting(1.5), NOW, limits)).toBe('late');
    expect(urgencyOf(waiting(2.5), NOW, limits)).toBe('very-late');
  });

  it("is never late for the first sync's backlog: those orders were there before the app", () => {
    expect(urgencyOf({ ...waiting(24 * 84), backlog: true }, NOW, limits)).toBe('none');
    expect(urgencyOf({ ...waiting(24 * 84), backlog: false }, NOW, limits)).toBe('very-late');
  });

  it('is never late with reminders off, nor stalled with the limit off', () => {
    expect(urgencyOf(waiting(500), NOW, { reminderAfterMinutes: 0, staleInProgressDays: 0 })).toBe('none');
    const inProgress = { waiting: false, status: 'ProvisioningInProgress', statusSince: hoursAgo(24 * 30) };
    expect(urgencyOf(inProgress, NOW, { reminderAfterMinutes: 0, staleInProgressDays: 0 })).toBe('none');
    expect(urgencyOf(inProgress, NOW, limits)).toBe('stalled');
  });

  it('counts an order in progress from when it got that status, and flags no other status', () => {
    const started = { waiting: false, since: hoursAgo(24 * 30), statusSince: hoursAgo(24 * 2) };
    expect(urgencyOf({ ...started, status: 'ProvisioningInProgress' }, NOW, limits)).toBe('none');
    expect(
      urgencyOf({ ...started, status: 'ProvisioningCompleted', statusSince: hoursAgo(24 * 30) }, NOW, limits),
    ).toBe('none');
  });
});
