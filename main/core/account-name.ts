// The name a status is marked with when the user has not set "Your name": this computer's
// account. On Linux the full name from the account's GECOS field in /etc/passwd, where one is
// set; elsewhere (macOS, Windows, and Linux accounts without one) the user name, since Node
// offers no full name there without running a program. Settings → Your name overrides it.
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { ACTOR_NAME_MAX, actorNameProblem } from '../../preload/marked-by';

export interface AccountSource {
  platform: NodeJS.Platform;
  user: () => { username: string; uid: number };
  passwd: () => string;
}

const SYSTEM: AccountSource = {
  platform: process.platform,
  user: () => userInfo(),
  passwd: () => readFileSync('/etc/passwd', 'utf8'),
};

/** The account's full name, or its user name; '' when neither can be read or carried. */
export function osAccountName(source: AccountSource = SYSTEM): string {
  let user: { username: string; uid: number };
  try {
    user = source.user();
  } catch {
    return ''; // no entry for this uid (a container's arbitrary user)
  }
  const full = source.platform === 'linux' ? gecosName(source, user.uid) : undefined;
  for (const name of [full, user.username]) {
    const cleaned = name
      ?.replace(/[:\p{Cc}]/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, ACTOR_NAME_MAX);
    if (cleaned && actorNameProblem(cleaned) === undefined) return cleaned;
  }
  return '';
}

/** The first comma-separated part of the GECOS field (the full name), for the given uid. */
function gecosName(source: AccountSource, uid: number): string | undefined {
  try {
    for (const line of source.passwd().split('\n')) {
      const fields = line.split(':');
      if (fields.length >= 7 && Number(fields[2]) === uid) return fields[4]?.split(',')[0];
    }
  } catch {
    // No readable /etc/passwd (directory services only): the user name it is.
  }
  return undefined;
}
