// Where the renderer is loaded from: a custom, privileged scheme served by the main process
// from the built renderer (main/index.ts registers it). Every trust decision about a page or
// an IPC sender is this one check.
export const APP_SCHEME = 'app';
export const APP_HOST = 'seller-tray';
export const APP_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** Whether `url` is a page of the app itself (not a file URL, not another scheme or host). */
export function isAppUrl(url: string | null | undefined): boolean {
  if (!url) return false;
  try {
    const parsed = new URL(url);
    return (
      parsed.protocol === `${APP_SCHEME}:` &&
      parsed.host === APP_HOST &&
      parsed.username === '' &&
      parsed.password === ''
    );
  } catch {
    return false;
  }
}

/**
 * The file under `rootDir` an app URL asks for, or null when it is not an app URL or would
 * leave the directory. "/" is index.html.
 */
export function appFilePath(
  url: string,
  rootDir: string,
  join: (...parts: string[]) => string,
): string | null {
  if (!isAppUrl(url)) return null;
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
  const relative = pathname === '/' || pathname === '' ? 'index.html' : pathname.replace(/^\/+/, '');
  const parts = relative.split(/[\\/]/);
  if (parts.some((part) => part === '..' || part === '' || part.includes('\0'))) return null;
  return join(rootDir, ...parts);
}
