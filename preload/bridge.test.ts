// The preload's bridge with a fake ipcRenderer: exactly one method per contract channel on its
// IPC channel, answers passed through as received, events relayed without the IPC event.
import { describe, expect, it } from 'vitest';
import { createBridge } from './bridge';
import { CHANNELS, EVENT_CHANNEL } from './contract';

function fakeIpc() {
  const invoked: { channel: string; args: unknown[] }[] = [];
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  return {
    invoked,
    listeners,
    async invoke(channel: string, ...args: unknown[]) {
      invoked.push({ channel, args });
      return { ok: false, error: { code: 'not-found', message: 'no' } };
    },
    on(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)?.add(listener);
    },
    removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
      listeners.get(channel)?.delete(listener);
    },
  };
}

describe('the preload bridge', () => {
  it('has the contract’s channels and names, nothing more', () => {
    const bridge = createBridge(fakeIpc());
    expect(Object.keys(bridge).sort()).toEqual([...CHANNELS, 'onEvent'].sort());
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it('invokes each channel and resolves to the Answer as received', async () => {
    const ipc = fakeIpc();
    const bridge = createBridge(ipc);
    const answer = await bridge.getOrder({ orderId: 'o-1' });
    expect(answer).toEqual({ ok: false, error: { code: 'not-found', message: 'no' } });
    expect(ipc.invoked).toEqual([{ channel: 'seller-tray:getOrder', args: [{ orderId: 'o-1' }] }]);
  });

  it('answers an invoke that failed on its way as a failed Answer, never a rejection', async () => {
    const ipc = fakeIpc();
    ipc.invoke = async () => {
      throw new Error("Error invoking remote method 'seller-tray:getState': no handler registered");
    };
    const answer = await createBridge(ipc).getState(undefined);
    expect(answer).toEqual({
      ok: false,
      error: {
        code: 'ipc-failed',
        message: expect.stringMatching(/could not reach its main process \(Error invoking .*no handler/),
      },
    });
  });

  it('relays events without the IPC event object, and unsubscribes', () => {
    const ipc = fakeIpc();
    const bridge = createBridge(ipc);
    const got: unknown[] = [];
    const stop = bridge.onEvent((event) => got.push(event));
    for (const listener of ipc.listeners.get(EVENT_CHANNEL) ?? [])
      listener({ sender: 'ipc internals' }, { type: 'open-inbox' });
    expect(got).toEqual([{ type: 'open-inbox' }]);
    stop();
    expect(ipc.listeners.get(EVENT_CHANNEL)?.size).toBe(0);
  });
});
