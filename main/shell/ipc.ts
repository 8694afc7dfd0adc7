// The bridge's main side: one ipcMain handler per channel of the contract, each answering the
// service's `Answer` whole (an Error's `code` would be lost crossing contextBridge): the window's
// `call` unwraps it (renderer/bridge/call.ts). A message
// from any frame that is not the app's own page is refused. The service's events go to the
// window on the event channel.
import { type Answer, CHANNELS, failedAnswer, ipcChannel } from '../../preload/contract';
import type { SellerTrayService } from '../core/service';
import { isAppUrl } from './app-origin';
import type { IpcInvokeEvent, IpcMainPort } from './electron-ports';

export const FORBIDDEN: Answer<never> = failedAnswer(
  'forbidden',
  'This request did not come from Seller Tray’s own window.',
);

/** Whether an IPC message comes from the app's own page. */
export function fromAppFrame(event: IpcInvokeEvent): boolean {
  return isAppUrl(event.senderFrame?.url);
}

export function registerIpc(ipcMain: IpcMainPort, service: SellerTrayService): void {
  for (const channel of CHANNELS) {
    ipcMain.handle(ipcChannel(channel), async (event, payload) => {
      if (!fromAppFrame(event)) return FORBIDDEN;
      return service.handleMessage(channel, payload);
    });
  }
}

/** Forwards every service event to the renderer; returns the stop function. */
export function forwardEvents(service: SellerTrayService, send: (event: unknown) => void): () => void {
  return service.onEvent((event) => send(event));
}
