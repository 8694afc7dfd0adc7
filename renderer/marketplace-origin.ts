// The client secret is kept for one marketplace, by the base URL's origin (main/core/secrets.ts):
// whether an address typed into a form is still that marketplace, so the window can say when the
// secret will be asked for again.

/** Whether two base URLs are the same origin; an address that does not parse is another one. */
export function sameMarketplace(a: string, b: string): boolean {
  try {
    return new URL(a.trim()).origin === new URL(b.trim()).origin;
  } catch {
    return false;
  }
}

export const SECRET_BINDING =
  'Seller Tray keeps the client secret for the marketplace and client id it was entered for, and sends it nowhere else.';
