// The preload: runs sandboxed, with context isolation, before the page. It exposes one object,
// `window.sellerTray`, with exactly the bridge contract; ipcRenderer itself never reaches the
// page. It must be bundled into a single CommonJS script (a sandboxed preload cannot load
// other files).
import { contextBridge, ipcRenderer } from 'electron';
import { createBridge } from './bridge';

contextBridge.exposeInMainWorld('sellerTray', createBridge(ipcRenderer));
