// The app's identity, in one place: the OS keychain service name, the electron-builder appId and the
// names users see all come from here, so they can never drift apart.
import packageJson from '../../package.json' with { type: 'json' };

/**
 * Reverse-DNS application id. It is the keychain service under which client secrets are stored, so
 * changing it orphans every secret users already saved: treat it as permanent.
 */
export const APP_ID = 'com.sellertray.desktop';

/** The name users see (tray tooltip, notifications, installer, keychain prompts). */
export const PRODUCT_NAME = 'Seller Tray';

/** The version users see (About, diagnosis reports), as package.json and the installers have it. */
export const APP_VERSION: string = packageJson.version;

/**
 * The update channel of a version, as electron-builder names it: a pre-release's first word
 * (0.3.0-beta.1 is `beta`), else `latest`. A build reads the feed of its own channel.
 */
export function updateChannel(version: string): string {
  return /^\d+\.\d+\.\d+-([a-z]+)/i.exec(version)?.[1]?.toLowerCase() ?? 'latest';
}
