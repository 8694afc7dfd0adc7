// The packaged app's application menu: what a user needs and nothing for developers. Electron's
// default menu carries Reload, Force Reload and Toggle Developer Tools (with their shortcuts).
import type { MenuItemSpec } from './electron-ports';

/** The menu, or null for none: only macOS needs one (for Cmd+C, Cmd+V, Cmd+Q, Cmd+W). */
export function applicationMenu(platform: NodeJS.Platform): MenuItemSpec[] | null {
  return platform === 'darwin' ? [{ role: 'appMenu' }, { role: 'editMenu' }, { role: 'windowMenu' }] : null;
}
