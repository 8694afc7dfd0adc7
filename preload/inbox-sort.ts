// The inbox's orders, as every process names them (the contract, the settings, the window):
// waiting orders first either way, then the longest waiting or the newest first.
export const INBOX_SORTS = ['longest-waiting', 'newest'] as const;
export type InboxSort = (typeof INBOX_SORTS)[number];
