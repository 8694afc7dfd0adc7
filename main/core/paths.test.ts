import { describe, expect, it } from 'vitest';
import { userDataDir } from './paths';

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
