// Which bridge the renderer talks through: the Electron preload's, when the app runs in
// Electron, otherwise the browser preview's (loopback HTTP). Nothing else in the renderer
// knows the difference.
import type { Bridge } from '../../preload/contract';
import { createHttpBridge } from './http-bridge';

declare global {
  interface Window {
    /** Exposed by the Electron preload (contextBridge.exposeInMainWorld('sellerTray', …)). */
    sellerTray?: Bridge;
  }
}

export function getBridge(): Bridge {
  return window.sellerTray ?? createHttpBridge();
}
