// Who marked a status, carried in the words posted to the marketplace: the spec allows no
// additional property but `orderId`, so the name goes into the description ("Provisioning
// started by Anna Virtanen."), and is read back from there in the history, whichever laptop
// posted it. One pair, so what is written is exactly what is read. Imports only marketplace-text.
import { capped, plainText } from './marketplace-text';

/** The statuses a person marks, and how the description opens for each. */
const OPENINGS = {
  ProvisioningInProgress: 'Provisioning started',
  ProvisioningCompleted: 'Provisioning completed',
  ProvisioningFailed: 'Provisioning failed, reported',
} as const;

export type MarkedStatus = keyof typeof OPENINGS;

/** The longest name written into a description; the settings refuse longer ones. */
export const ACTOR_NAME_MAX = 100;

/** Why a name cannot be carried: it must read back whole (no colon or line break ends it early). */
export function actorNameProblem(name: string): string | undefined {
  if (name.length > ACTOR_NAME_MAX) return `must be at most ${ACTOR_NAME_MAX} characters`;
  if (/[:\p{Cc}]/u.test(name)) return 'must not contain a colon (":") or control characters';
  return undefined;
}

/**
 * The description posted with a status: "Provisioning started by Anna Virtanen." or, with the
 * user's own words, "Provisioning failed, reported by Anna Virtanen: Tenant quota exceeded".
 * Without a name (none could be found) the opening stands alone.
 */
export function describeMark(statusCode: MarkedStatus, actor: string, text = ''): string {
  const opening = actor === '' ? OPENINGS[statusCode] : `${OPENINGS[statusCode]} by ${actor}`;
  return text === '' ? `${opening}.` : `${opening}: ${text}`;
}

const PARSED = new RegExp(`^(?:${Object.values(OPENINGS).join('|')}) by ([^:\\n]+?)(?:\\.|: ([\\s\\S]*))$`);

/**
 * Who marked a status, read from a description `describeMark` wrote; undefined for any other.
 * Any client of the marketplace may have written it: the name is made a plain one of at most
 * ACTOR_NAME_MAX characters, as it goes into the app's own sentences ("marked by …").
 */
export function parseMark(description: string | undefined): { actor: string; text: string } | undefined {
  const match = description === undefined ? null : PARSED.exec(description.trim());
  const actor = capped(plainText(match?.[1] ?? ''), ACTOR_NAME_MAX);
  if (actor === '') return undefined;
  return { actor, text: match?.[2]?.trim() ?? '' };
}
