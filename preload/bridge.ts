// The preload's bridge, built from an ipcRenderer-like port so it is tested without Electron.
// It imports only types from the contract: the sandboxed preload is bundled into one script,
// and zod (the contract's schemas) has no place in it. The channel list below is checked
// against the contract at compile time (both ways) and by a test (names and prefix).
import type { Bridge, Channel } from './contract';

export const PRELOAD_CHANNELS = [
  'getState',
  'getSettings',
  'setSettings',
  'setSecret',
  'testConnection',
  'listOrders',
  'getOrder',
  'markStatus',
  'retryDelivery',
  'undoMark',
  'checkNow',
  'startDemo',
  'pauseNotifications',
  'diagnose',
] as const satisfies readonly Channel[];

// Fails to compile when the contract has a channel the list lacks.
type Missing = Exclude<Channel, (typeof PRELOAD_CHANNELS)[number]>;
const everyChannel: Missing extends never ? true : Missing = true;
void everyChannel;

/** Same as the contract's `ipcChannel` and `EVENT_CHANNEL` (a test keeps them equal). */
export const preloadIpcChannel = (channel: Channel): string => `seller-tray:${channel}`;
export const PRELOAD_EVENT_CHANNEL = 'seller-tray:event';

/** The part of ipcRenderer the bridge uses. */
export interface IpcRendererPort {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/**
 * Exactly one method per channel, each resolving to the main process's `Answer` as received
 * (the renderer's `call` unwraps it), and `onEvent`. No IPC object, event or sender is passed
 * to the page: listeners get the event's data only.
 */
export function createBridge(ipc: IpcRendererPort): Bridge {
  const bridge: Record<string, unknown> = {};
  for (const channel of PRELOAD_CHANNELS) {
    bridge[channel] = (request: unknown) => ipc.invoke(preloadIpcChannel(channel), request);
  }
  bridge.onEvent = (listener: (event: unknown) => void) => {
    if (typeof listener !== 'function') throw new TypeError('onEvent needs a listener function');
    const relay = (_event: unknown, data: unknown) => listener(data);
    ipc.on(PRELOAD_EVENT_CHANNEL, relay);
    return () => {
      ipc.removeListener(PRELOAD_EVENT_CHANNEL, relay);
    };
  };
  return Object.freeze(bridge) as unknown as Bridge;
}
