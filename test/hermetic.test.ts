// The tests' own folders: what the user keeps in their home never reaches a test, and no test
// writes there.
import { execFileSync } from 'node:child_process';
import { homedir, tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { userDataDir } from '../main/core/paths';
import { HERMETIC_VARIABLES } from './support/hermetic-home';

describe('every test file', () => {
  it('runs with a HOME and XDG folders of its own, under the temporary directory', () => {
    for (const name of HERMETIC_VARIABLES) {
      expect(process.env[name], name).toMatch(new RegExp(`^${tmpdir()}/seller-tray-test-home-`));
    }
    expect(homedir()).toBe(process.env.HOME);
    expect(userDataDir().startsWith(`${process.env.XDG_CONFIG_HOME}/`)).toBe(true);
  });

  it('passes those folders to the processes it starts', () => {
    const seen = execFileSync(process.execPath, ['-e', 'process.stdout.write(require("os").homedir())']);
    expect(seen.toString()).toBe(process.env.HOME);
  });

  it('has no marketplace credentials from the developer environment', () => {
    expect(process.env.SELLER_CLIENT_SECRET).toBeUndefined();
  });
});
