// The computer account's name, as a status is marked by when "Your name" is not set.
import { describe, expect, it } from 'vitest';
import { type AccountSource, osAccountName } from './account-name';

const PASSWD = [
  'root:x:0:0:root:/root:/bin/bash',
  'anna:x:1000:1000:Anna Virtanen,,,:/home/anna:/bin/bash',
  'bo:x:1001:1001::/home/bo:/bin/sh',
  'eve:x:1002:1002:Eve\u0007\u001b[2J Admin,Room 1:/home/eve:/bin/sh',
].join('\n');

function source(platform: NodeJS.Platform, username: string, uid: number, passwd = PASSWD): AccountSource {
  return {
    platform,
    user: () => ({ username, uid }),
    passwd: () => passwd,
  };
}

describe("the computer account's name", () => {
  it('is the full name from the GECOS field on Linux', () => {
    expect(osAccountName(source('linux', 'anna', 1000))).toBe('Anna Virtanen');
  });

  it('is the user name where the GECOS field is empty, or on macOS and Windows', () => {
    expect(osAccountName(source('linux', 'bo', 1001))).toBe('bo');
    expect(osAccountName(source('darwin', 'anna', 1000))).toBe('anna');
    expect(osAccountName(source('win32', 'anna', -1))).toBe('anna');
  });

  it('is the user name when /etc/passwd cannot be read', () => {
    const unreadable: AccountSource = {
      ...source('linux', 'anna', 1000),
      passwd: () => {
        throw new Error('EACCES');
      },
    };
    expect(osAccountName(unreadable)).toBe('anna');
  });

  it('loses the control characters a full name may hold, which would not read back', () => {
    expect(osAccountName(source('linux', 'eve', 1002))).toBe('Eve [2J Admin');
  });

  it('is empty for a user without an account entry', () => {
    const nobody: AccountSource = {
      ...source('linux', '', 4242),
      user: () => {
        throw new Error('ENOENT');
      },
    };
    expect(osAccountName(nobody)).toBe('');
  });
});
