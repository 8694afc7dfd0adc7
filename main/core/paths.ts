// Where the app keeps its state on this computer. The desktop app asks Electron
// (`app.getPath('userData')`); the CLI and the browser preview cannot, so this reproduces Electron's
// answer for our product name. Both then read and write the same files, and a second home directory
// behaves like a second laptop.
import { chmodSync, mkdirSync, readFileSync, realpathSync, statfsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { PRODUCT_NAME } from './app-identity';

/**
 * The directory Electron's `app.getPath('userData')` names for productName 'Seller Tray':
 * Linux (and other Unix-likes) `$XDG_CONFIG_HOME/Seller Tray`, else `~/.config/Seller Tray`;
 * macOS `~/Library/Application Support/Seller Tray`; Windows `%APPDATA%\Seller Tray`, else
 * `~\AppData\Roaming\Seller Tray`.
 */
export function userDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (platform === 'win32') {
    return path.win32.join(
      nonEmpty(env.APPDATA) ?? path.win32.join(home, 'AppData', 'Roaming'),
      PRODUCT_NAME,
    );
  }
  if (platform === 'darwin') {
    // Electron ignores XDG variables on macOS.
    return path.posix.join(home, 'Library', 'Application Support', PRODUCT_NAME);
  }
  return path.posix.join(xdgConfigHome(env, home), PRODUCT_NAME);
}

/** Linux and other Unix-likes: where per-user configuration lives (`$XDG_CONFIG_HOME`, else ~/.config). */
export function xdgConfigHome(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return nonEmpty(env.XDG_CONFIG_HOME) ?? path.posix.join(home, '.config');
}

/** An empty variable counts as unset, as it does for Chromium's XDG lookup. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Makes `dir` a folder only its user can enter: each folder Seller Tray keeps its files in (the
 * user data directory with the settings, the accounts' folders, the log folder, the automations'
 * work folders) is made through here. An existing one, as earlier versions made it (0755), is
 * narrowed too; one on a read-only disk is used as it is (what only reads it still works, and each
 * write there fails with words of its own). One another user owns (made by `sudo seller-tray`,
 * another account's) is not used, root or not: that user could replace its files (the settings
 * name the commands automations run). Windows has no such modes nor owners: its profile folder is
 * already the user's.
 */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  ownFolder(dir);
  try {
    chmodSync(dir, 0o700);
  } catch {
    // A read-only disk (EROFS): see above.
  }
  return dir;
}

/** Throws FolderOfAnotherUserError when `dir` (that exists) is not this user's (see ensurePrivateDir). */
export function ownFolder(dir: string): void {
  const me = process.geteuid?.();
  const { uid } = statSync(dir);
  if (me !== undefined && uid !== me) throw new FolderOfAnotherUserError(dir, uid, me, ownersFromMount(dir));
}

/**
 * The file systems that keep no owner per file: the mount gives every file one (its `uid=` and
 * `gid=` options, else the user who mounted it), and chown fails there (EPERM, or unimplemented).
 * By statfs's type: FAT (vfat, msdos), exFAT, NTFS (ntfs, ntfs3). FUSE is one type for all its
 * file systems, most of which keep owners (bindfs, sshfs, gocryptfs, mergerfs, fuse-overlayfs):
 * there the mount table's own type tells (FUSE_WITHOUT_OWNERS).
 */
const OWNERS_FROM_MOUNT = new Set([0x4d44, 0x2011bab0, 0x5346544e, 0x7366746e]);
const FUSE = 0x65735546;
/** FUSE file systems of disks that keep no owners, as /proc/self/mountinfo names them (libfuse takes `uid=`, `gid=`). */
const FUSE_WITHOUT_OWNERS = /^(fuseblk|fuse\.(fusefat|exfat|exfat-fuse|ntfs-3g|ntfs|lowntfs-3g|vfat|msdos))$/;

function ownersFromMount(dir: string): boolean {
  try {
    const { type } = statfsSync(dir);
    if (OWNERS_FROM_MOUNT.has(type)) return true;
    return (
      type === FUSE &&
      FUSE_WITHOUT_OWNERS.test(
        mountType(readFileSync('/proc/self/mountinfo', 'utf8'), realpathSync(dir)) ?? '',
      )
    );
  } catch {
    return false; // not told: the advice for a disk that keeps owners
  }
}

/**
 * The file system type (`fuse.sshfs`, `ext4`…) of the mount holding `path` (a real path), from a
 * mountinfo table (proc(5)): the mount with the longest mount point over it, the last of equals (mounted on top).
 */
export function mountType(mountinfo: string, path: string): string | undefined {
  let best: { point: string; type: string } | undefined;
  for (const line of mountinfo.split('\n')) {
    const [mount, rest] = line.split(' - ');
    const point = mount
      ?.split(' ')[4]
      ?.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
    const type = rest?.split(' ')[0];
    if (point === undefined || type === undefined) continue;
    const holds = point === '/' || path === point || path.startsWith(`${point}/`);
    if (holds && (best === undefined || point.length >= best.point.length)) best = { point, type };
  }
  return best?.type;
}

/**
 * A folder of Seller Tray's that another user owns; its message says which, why and what to do, as
 * fits `runner` (the user id Seller Tray runs as): root, run with sudo, would hand the folder to
 * itself with `sudo chown -R $USER`, after which the user's own app refuses it.
 */
export class FolderOfAnotherUserError extends Error {
  constructor(
    readonly folder: string,
    readonly owner: number,
    runner: number | undefined,
    /** Its disk keeps no owners: the mount names one for every file (see OWNERS_FROM_MOUNT). */
    ownersFromMount = false,
  ) {
    const name = userName(owner);
    const who =
      owner === 0 ? 'root' : `another user${name === undefined ? '' : `, ${name}`} (user id ${owner})`;
    const advice =
      runner === 0
        ? `Seller Tray runs as root here: run it as ${owner === NOBODY ? 'your own user' : 'that user'} instead, without sudo.`
        : ownersFromMount
          ? "Its disk keeps no owners (FAT, exFAT and NTFS disks show every file as the user's who mounted them), so chown cannot change that there: have it mounted with your user's ids (sudo mount -o uid=$(id -u),gid=$(id -g) DEVICE FOLDER), or keep Seller Tray's folder on another disk."
          : owner === NOBODY
            ? "A network or shared disk shows as nobody's the files whose owner it cannot tell, and chown cannot change that there: have the disk mounted so that your files show as yours, or keep Seller Tray's folder on a disk of this computer."
            : `If it should be yours, make it yours with: sudo chown -R $USER ${shellWord(folder)} (or run Seller Tray as the user it belongs to).`;
    super(
      `Seller Tray's folder ${shellWord(folder)} belongs to ${who}, who could replace the files Seller Tray keeps there, so Seller Tray does not use it. ${advice}`,
    );
    this.name = 'FolderOfAnotherUserError';
  }
}

/**
 * The user id of nobody: a network or shared disk shows so the files whose owner it cannot tell
 * (NFSv4 without its id mapping; NFS shows root's so too), which chown cannot change.
 */
const NOBODY = 65534;

/** The name of user id `uid` in /etc/passwd, where there is one (os.userInfo tells only our own). */
function userName(uid: number): string | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (id === String(uid) && name) return name;
    }
  } catch {
    // No such file (Windows), or not readable: the user id alone names that user.
  }
  return undefined;
}

/** `text` as one word for a POSIX shell, to copy into a command as it is. */
const shellWord = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
