import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensurePrivateDir, FolderOfAnotherUserError, mountType, userDataDir } from './paths';

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

describe('a folder another user owns', () => {
  it('is named in words a shell takes as they are, with who owns it and the command that gives it back', () => {
    expect(new FolderOfAnotherUserError("/home/o'brien/.config/Seller Tray", 0, 1000).message).toBe(
      "Seller Tray's folder '/home/o'\\''brien/.config/Seller Tray' belongs to root, who could replace the files Seller Tray keeps there, so Seller Tray does not use it. If it should be yours, make it yours with: sudo chown -R $USER '/home/o'\\''brien/.config/Seller Tray' (or run Seller Tray as the user it belongs to).",
    );
  });

  it('run by root (sudo, the HOME kept), is given back by running Seller Tray as its user, not by handing it to root', () => {
    // `sudo chown -R $USER` run as root hands the folder to root, and the user's own app then refuses it.
    expect(new FolderOfAnotherUserError('/home/ann/.config/Seller Tray', 4242, 0).message).toBe(
      "Seller Tray's folder '/home/ann/.config/Seller Tray' belongs to another user (user id 4242), who could replace the files Seller Tray keeps there, so Seller Tray does not use it. Seller Tray runs as root here: run it as that user instead, without sudo.",
    );
  });

  it('owned by nobody, as a network or shared disk shows files it cannot tell the owner of, is not sent to chown', () => {
    // NFSv4 without its id mapping, SMB mounted without uid=: chown cannot give such files to anyone.
    const asUser = new FolderOfAnotherUserError('/mnt/share/Seller Tray', 65534, 1000).message;
    expect(asUser).toContain(
      "so Seller Tray does not use it. A network or shared disk shows as nobody's the files whose owner it cannot tell, and chown cannot change that there: have the disk mounted so that your files show as yours, or keep Seller Tray's folder on a disk of this computer.",
    );
    expect(asUser).not.toContain('sudo chown');
    // Run as root on NFS, whose server makes root nobody: run as the user, the folder is theirs.
    expect(new FolderOfAnotherUserError('/mnt/share/Seller Tray', 65534, 0).message).toContain(
      'so Seller Tray does not use it. Seller Tray runs as root here: run it as your own user instead, without sudo.',
    );
  });

  it.runIf(process.platform === 'linux')('names its owner when the system knows the name', () => {
    expect(new FolderOfAnotherUserError('/srv/Seller Tray', 65534, 1000).message).toContain(
      "Seller Tray's folder '/srv/Seller Tray' belongs to another user, nobody (user id 65534), who could",
    );
  });

  it.runIf(process.getuid?.() === 0)(
    'is refused as it is, also by root, who could make it private (needs root)',
    () => {
      const parent = mkdtempSync(join(tmpdir(), 'data-dir-'));
      try {
        const dir = join(parent, 'Seller Tray');
        mkdirSync(dir);
        chmodSync(dir, 0o755);
        chownSync(dir, 4242, 4242);
        expect(() => ensurePrivateDir(dir)).toThrow(new FolderOfAnotherUserError(dir, 4242, 0).message);
        expect(statSync(dir).mode & 0o777).toBe(0o755);
      } finally {
        rmSync(parent, { recursive: true, force: true });
      }
    },
  );
});

describe("a folder's mount type, from the mount table", () => {
  const table = [
    '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw',
    '40 22 0:45 / /media/usb rw,nosuid - fuseblk /dev/sdb1 rw,user_id=0,group_id=0',
    '41 22 0:46 / /home/ana/safe rw - fuse.gocryptfs /home/ana/.safe rw,user_id=1000',
    '42 41 0:47 / /home/ana/safe/stick rw - fuse.fusefat /dev/sdc1 rw',
    '43 22 0:48 / /mnt/my\\040disk rw - fuse.exfat /dev/sdd1 rw',
    '44 22 0:49 / /media/usb rw - fuse.bindfs /srv/usb rw',
  ].join('\n');

  it('is the longest mount point over the path, the last of equals (mounted on top)', () => {
    expect(mountType(table, '/home/ana/.config')).toBe('ext4');
    expect(mountType(table, '/home/ana/safe/Seller Tray')).toBe('fuse.gocryptfs');
    expect(mountType(table, '/home/ana/safe/stick/Seller Tray')).toBe('fuse.fusefat');
    expect(mountType(table, '/home/ana/safestick')).toBe('ext4');
    expect(mountType(table, '/media/usb/Seller Tray')).toBe('fuse.bindfs');
  });

  it('reads a mount point written with escapes (a space is \\040)', () => {
    expect(mountType(table, '/mnt/my disk/Seller Tray')).toBe('fuse.exfat');
  });

  it('is none in a table without a line for it', () => {
    expect(mountType('', '/home')).toBeUndefined();
  });
});
