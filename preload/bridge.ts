// The preload's bridge, built from an ipcRenderer-like port so it is tested without Electron.
// The contract is plain (no zod, nothing from main/), so the sandboxed preload bundles it into
// its one script: the channel list and names are the contract's own.
import { type Bridge, CHANNELS, EVENT_CHANNEL, ipcChannel } from './contract';

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
  for (const channel of CHANNELS) {
    bridge[channel] = (request: unknown) => ipc.invoke(ipcChannel(channel), request);
  }
  bridge.onEvent = (listener: (event: unknown) => void) => {
    if (typeof listener !== 'function') throw new TypeError('onEvent needs a listener function');
    const relay = (_event: unknown, data: unknown) => listener(data);
    ipc.on(EVENT_CHANNEL, relay);
    return () => {
      ipc.removeListener(EVENT_CHANNEL, relay);
    };
  };
  return Object.freeze(bridge) as unknown as Bridge;
}
