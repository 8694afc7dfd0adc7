// The preload's bridge, built from an ipcRenderer-like port so it is tested without Electron.
// The contract is plain (no zod, nothing from main/), so the sandboxed preload bundles it into
// its one script: the channel list and names are the contract's own.
import { type Answer, type Bridge, CHANNELS, EVENT_CHANNEL, failedAnswer, ipcChannel } from './contract';

/** The part of ipcRenderer the bridge uses. */
export interface IpcRendererPort {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/**
 * Exactly one method per channel, each resolving to the main process's `Answer` as received
 * (the renderer's `call` unwraps it), and `onEvent`. The main process answers every call with an
 * `Answer` (main/shell/ipc.ts); an invoke that fails on its way (no handler, a request that cannot
 * be cloned) becomes one here, so no channel rejects. No IPC object, event or sender is passed
 * to the page: listeners get the event's data only.
 */
export function createBridge(ipc: IpcRendererPort): Bridge {
  const bridge: Record<string, unknown> = {};
  for (const channel of CHANNELS) {
    bridge[channel] = (request: unknown): Promise<Answer<unknown>> =>
      ipc.invoke(ipcChannel(channel), request).then(
        (answer) => answer as Answer<unknown>,
        (error: unknown) =>
          failedAnswer(
            'ipc-failed',
            `Seller Tray's window could not reach its main process (${reason(error)}).`,
          ),
      );
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

/** An invoke's failure in words (Electron prefixes "Error invoking remote method …"). */
function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
