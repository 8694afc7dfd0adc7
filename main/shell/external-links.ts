// Links the app may open outside the window: in the browser, https only and only to hosts on
// an allowlist (the configured marketplace's); an order contact's mailto: or tel: link of the
// one plain shape the window makes (preload/contact-links.ts); and a runbook's link, http(s) at
// the origin of a template the settings hold (preload/runbooks.ts). Everything else is refused,
// never opened.
import { isContactHref } from '../../preload/contact-links';
import { isRunbookLink, type Runbook } from '../../preload/runbooks';
import type { OpenExternal } from './electron-ports';

/** Whether `url` is an https URL, without credentials, on one of `allowedHosts`. */
export function isAllowedExternalUrl(url: string, allowedHosts: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '') return false;
  const host = parsed.hostname.toLowerCase();
  return allowedHosts.some((allowed) => allowed.toLowerCase() === host);
}

/** The host of a configured base URL, when it is an https URL; the allowlist's one entry. */
export function hostOf(baseUrl: string): string[] {
  try {
    const parsed = new URL(baseUrl);
    return parsed.protocol === 'https:' ? [parsed.hostname] : [];
  } catch {
    return [];
  }
}

/** Opens `url` externally when allowed; answers whether it did. */
export async function openExternalIfAllowed(
  openExternal: OpenExternal,
  url: string,
  allowedHosts: readonly string[],
  runbooks: readonly Runbook[] = [],
): Promise<boolean> {
  if (!isAllowedExternalUrl(url, allowedHosts) && !isContactHref(url) && !isRunbookLink(url, runbooks)) {
    return false;
  }
  await openExternal(url);
  return true;
}
