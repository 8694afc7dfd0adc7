import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensurePrivateDir, userDataDir } from './paths';

describe('user data directory (where Electron keeps userData for Seller Tray)', () => {
  it('on Linux is under $XDG_CONFIG_HOME when it is set', () => {
    expect(userDataDir({ XDG_CONFIG_HOME: '/home/ann/.cfg' }, 'linux', '/home/ann')).toBe(
      '/home/ann/.cfg/Seller Tray',
    );
  });

  it('on Linux falls back to ~/.config when $XDG_CONFIG_HOME is unset or empty', () => {
    expect(userDataDir({}, 'linux', '/home/ann')).toBe('/home/ann/.config/Seller Tray');
    expect(userDataDir({ XDG_CONFIG_HOME: '' }, 'linux', '/home/ann')).toBe('/home/ann/.config/Seller Tray');
  });

  it('on macOS is under ~/Library/Application Support, whatever XDG says', () => {
    expect(userDataDir({ XDG_CONFIG_HOME: '/elsewhere' }, 'darwin', '/Users/ann')).toBe(
      '/Users/ann/Library/Application Support/Seller Tray',
    );
  });

  it('on Windows is under %APPDATA%, else the roaming AppData of the home directory', () => {
    expect(userDataDir({ APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' }, 'win32', 'C:\\Users\\ann')).toBe(
      'C:\\Users\\ann\\AppData\\Roaming\\Seller Tray',
    );
    expect(userDataDir({}, 'win32', 'C:\\Users\\ann')).toBe('C:\\Users\\ann\\AppData\\Roaming\\Seller Tray');
  });

  it('two home directories are two different places (two laptops)', () => {
    expect(userDataDir({}, 'linux', '/home/ann')).not.toBe(userDataDir({}, 'linux', '/home/bob'));
  });

  it('defaults to the running process environment', () => {
    expect(userDataDir()).toMatch(/Seller Tray$/);
  });
});

describe.runIf(process.platform !== 'win32')('the user data directory on disk', () => {
  it('is made 0700, and narrowed to 0700 when an earlier version made it 0755', () => {
    const parent = mkdtempSync(join(tmpdir(), 'data-dir-'));
    try {
      const dir = join(parent, 'config', 'Seller Tray');
      const mode = () => statSync(dir).mode & 0o777;
      expect(ensurePrivateDir(dir)).toBe(dir);
      expect(mode()).toBe(0o700);
      chmodSync(dir, 0o755);
      ensurePrivateDir(dir);
      expect(mode()).toBe(0o700);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
