// electron-builder.yml held to electron-builder's own JSON schema, to the app's identity, and to the
// resources it names, for every platform's installers (none can be built here: electron-builder
// downloads Electron). test/packaged.test.ts packages the app with it for Linux's unpacked target.

import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inflateSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_DIR, ICO_SIZES, LINUX_ICON_SIZES, PNG_SIGNATURE, writeIcons } from '../build/make-icons';
import { APP_ID, PRODUCT_NAME } from '../main/core/app-identity';
import { ORDER_LINK_SCHEME } from '../preload/order-link';
import { BUILDER_CONFIG_TEXT, loadBuilderConfig } from './support/packaged-app';
import { runTs } from './support/processes';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const require = createRequire(import.meta.url);

type Config = Record<string, unknown> & {
  mac: Record<string, unknown>;
  win: Record<string, unknown>;
  nsis: Record<string, unknown>;
  linux: Record<string, unknown>;
  deb: Record<string, unknown>;
  electronFuses: Record<string, unknown>;
};

const loadConfig = () => loadBuilderConfig<Config>();

function validator() {
  const scheme = JSON.parse(readFileSync(join(root, 'node_modules/app-builder-lib/scheme.json'), 'utf8'));
  // The scheme is draft-07 and uses a non-standard "typeof" keyword (for function-valued hooks).
  const ajv = new Ajv({ strict: false, allowUnionTypes: true, allErrors: true });
  return ajv.compile(scheme);
}

// ---------------------------------------------------------------------------------------------
// Image parsing, independent of the generator.

function pngInfo(bytes: Buffer) {
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
  const chunks: Buffer[] = [];
  let offset = 8;
  let sawEnd = false;
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (type === 'IDAT') chunks.push(bytes.subarray(offset + 8, offset + 8 + length));
    if (type === 'IEND') sawEnd = true;
    offset += 12 + length;
  }
  expect(sawEnd).toBe(true);
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const colourType = bytes[25];
  const raw = inflateSync(Buffer.concat(chunks));
  return { width, height, bitDepth: bytes[24], colourType, raw };
}

/** Alpha and RGB of every pixel of an 8-bit RGBA PNG written with filter 0 (as make-icons writes). */
function pixels(bytes: Buffer) {
  const { width, height, raw } = pngInfo(bytes);
  const out: { r: number; g: number; b: number; a: number }[] = [];
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width * 4 + 1)]).toBe(0);
    for (let x = 0; x < width; x++) {
      const i = y * (width * 4 + 1) + 1 + x * 4;
      out.push({ r: raw[i] ?? -1, g: raw[i + 1] ?? -1, b: raw[i + 2] ?? -1, a: raw[i + 3] ?? -1 });
    }
  }
  return out;
}

function icoEntries(bytes: Buffer) {
  expect(bytes.readUInt16LE(0)).toBe(0);
  expect(bytes.readUInt16LE(2)).toBe(1);
  const count = bytes.readUInt16LE(4);
  return Array.from({ length: count }, (_, i) => {
    const e = 6 + i * 16;
    const size = bytes.readUInt32LE(e + 8);
    const offset = bytes.readUInt32LE(e + 12);
    return {
      width: bytes[e] || 256,
      height: bytes[e + 1] || 256,
      bitCount: bytes.readUInt16LE(e + 6),
      image: bytes.subarray(offset, offset + size),
      end: offset + size,
    };
  });
}

const readBuild = (relative: string) => readFileSync(join(root, relative));

// ---------------------------------------------------------------------------------------------

describe('electron-builder.yml', () => {
  it('is valid against electron-builder 26 scheme.json', () => {
    const validate = validator();
    const ok = validate(loadConfig());
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('a broken copy is rejected, so the validation can fail', () => {
    const validate = validator();
    const wrongType = loadConfig();
    wrongType.nsis.perMachine = 'yes';
    expect(validate(wrongType)).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('perMachine');

    const unknownFuse = loadConfig();
    unknownFuse.electronFuses.runAsNodeEnabled = false;
    expect(validate(unknownFuse)).toBe(false);
  });

  it('uses the app identity from main/core/app-identity.ts', () => {
    const config = loadConfig();
    expect(config.appId).toBe(APP_ID);
    expect(config.appId).toBe('com.sellertray.desktop');
    expect(config.productName).toBe(PRODUCT_NAME);
  });

  it('packs the built app into an asar with keytar unpacked, and leaves sources out', () => {
    const config = loadConfig();
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toContain('**/node_modules/keytar/**');
    expect(config.directories).toEqual({ output: 'dist/installers', buildResources: 'build' });
    const files = config.files as string[];
    for (const dir of ['dist/main/**', 'dist/preload/**', 'dist/renderer/**']) expect(files).toContain(dir);
    expect(files).toContain('package.json');
    for (const source of ['main', 'preload', 'renderer', 'simulator', 'test']) {
      expect(files.some((f) => f.startsWith(`${source}/`))).toBe(false);
    }
    // The output directory must not be swept into the app by the dist/ globs.
    expect(files.some((f) => f.startsWith('dist/installers'))).toBe(false);
  });

  it('sets the fuses', () => {
    expect(loadConfig().electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
      enableCookieEncryption: true,
    });
  });

  it('macOS: dmg + zip, hardened runtime with entitlements, notarization from the environment, no Dock icon', () => {
    const { mac } = loadConfig();
    expect(mac.target).toEqual(['dmg', 'zip']);
    expect(mac.category).toBe('public.app-category.business');
    expect(mac.hardenedRuntime).toBe(true);
    expect(mac.notarize).toBe(true);
    expect(mac.extendInfo).toEqual({ LSUIElement: true });
    // No credentials in the file: they come from APPLE_* environment variables.
    expect(BUILDER_CONFIG_TEXT).not.toMatch(/^\s*(appleId|appleIdPassword|teamId|password)\s*:/im);
    for (const key of ['entitlements', 'entitlementsInherit'] as const) {
      const plist = readFileSync(join(root, mac[key] as string), 'utf8');
      expect(plist).toContain('<key>com.apple.security.cs.allow-jit</key>');
      expect(plist).toMatch(/<plist version="1.0">[\s\S]*<\/plist>\s*$/);
    }
  });

  it('Windows: per-user one-click NSIS', () => {
    const { win, nsis } = loadConfig();
    expect(win.target).toEqual(['nsis']);
    expect(nsis.oneClick).toBe(true);
    expect(nsis.perMachine).toBe(false);
  });

  it('Linux: AppImage + deb depending on libsecret and libnotify', () => {
    const { linux, deb } = loadConfig();
    expect(linux.target).toEqual(['AppImage', 'deb']);
    expect(linux.category).toBe('Office');
    expect(deb.depends).toEqual(expect.arrayContaining(['libsecret-1-0', 'libnotify4']));
  });
});

describe('icons', () => {
  it('every icon the config references exists at the right size', () => {
    const config = loadConfig();
    const macIcon = pngInfo(readBuild(config.mac.icon as string));
    expect([macIcon.width, macIcon.height, macIcon.bitDepth, macIcon.colourType]).toEqual([512, 512, 8, 6]);

    for (const key of ['icon'] as const) expect(config.win[key]).toBe('build/icon.ico');
    for (const icoPath of [config.win.icon, config.nsis.installerIcon, config.nsis.uninstallerIcon]) {
      const ico = readBuild(icoPath as string);
      const entries = icoEntries(ico);
      expect(entries.map((e) => e.width)).toEqual([...ICO_SIZES]);
      expect(entries.at(-1)?.end).toBe(ico.length);
      for (const entry of entries) {
        const png = pngInfo(entry.image);
        expect([png.width, png.height]).toEqual([entry.width, entry.height]);
        expect(entry.height).toBe(entry.width);
        expect(entry.bitCount).toBe(32);
      }
    }

    const linuxDir = config.linux.icon as string;
    for (const size of LINUX_ICON_SIZES) {
      const png = pngInfo(readBuild(`${linuxDir}/${size}x${size}.png`));
      expect([png.width, png.height]).toEqual([size, size]);
    }
  });

  it('tray images: macOS templates are black + alpha at 16 and 32 px; Linux gets a colour PNG', () => {
    for (const [file, size] of [
      ['build/tray/trayTemplate.png', 16],
      ['build/tray/trayTemplate@2x.png', 32],
      ['build/tray/trayWarningTemplate.png', 16],
      ['build/tray/trayWarningTemplate@2x.png', 32],
    ] as const) {
      const bytes = readBuild(file);
      expect([pngInfo(bytes).width, pngInfo(bytes).height]).toEqual([size, size]);
      const px = pixels(bytes);
      expect(px.every((p) => p.r === 0 && p.g === 0 && p.b === 0)).toBe(true);
      expect(px.some((p) => p.a === 255)).toBe(true);
      expect(px.some((p) => p.a === 0)).toBe(true);
    }
    const tray = readBuild('build/tray/tray.png');
    expect([pngInfo(tray).width, pngInfo(tray).height]).toEqual([32, 32]);
    expect(pixels(tray).some((p) => p.r !== p.g || p.g !== p.b)).toBe(true);
    // The warning form (liveness) is another shape, not only another colour: its pixels differ.
    const warning = readBuild('build/tray/tray-warning.png');
    expect([pngInfo(warning).width, pngInfo(warning).height]).toEqual([32, 32]);
    expect(
      readBuild('build/tray/trayWarningTemplate.png').equals(readBuild('build/tray/trayTemplate.png')),
    ).toBe(false);
    const usual = pixels(tray);
    expect(pixels(warning).filter((p, i) => p.a !== usual[i]?.a).length).toBeGreaterThan(20);
    // The tray images and the Windows icon travel inside the app, where main loads them.
    const files = loadConfig().files as string[];
    expect(files).toEqual(expect.arrayContaining(['build/tray/**', 'build/icon.ico']));
  });

  it('make-icons reproduces the committed files byte for byte', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'seller-tray-icons-'));
    try {
      const written = await writeIcons(dir);
      expect(written).toContain('icon.ico');
      // icon.png, icon.ico, the three tray images and their three warning forms.
      expect(written.length).toBe(LINUX_ICON_SIZES.length + 8);
      for (const relative of written) {
        const committed = join(BUILD_DIR, relative);
        expect(existsSync(committed), relative).toBe(true);
        const fresh = await readFile(join(dir, relative));
        expect(fresh.equals(await readFile(committed)), relative).toBe(true);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('seller-tray:// links in the installers', () => {
  it('are declared once, for the scheme the app reads', () => {
    expect(loadConfig().protocols).toEqual([
      { name: 'Seller Tray order link', schemes: [ORDER_LINK_SCHEME] },
    ]);
  });

  it.runIf(process.platform === 'linux')(
    "the deb's desktop entry, as electron-builder writes it, is valid and the desktop resolves links to it",
    async () => {
      const config = loadConfig();
      const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
      // electron-builder's own writer, given what its Linux packager knows of this app.
      const { LinuxTargetHelper } = require('app-builder-lib/out/targets/LinuxTargetHelper');
      const helper = new LinuxTargetHelper({
        appInfo: {
          productName: PRODUCT_NAME,
          sanitizedProductName: PRODUCT_NAME,
          description: packageJson.description,
        },
        executableName: packageJson.name,
        info: { metadata: { desktopName: undefined } },
        config,
        platformSpecificBuildOptions: config.linux,
        fileAssociations: [],
      });
      const entry: string = await helper.computeDesktopEntry(config.linux);
      expect(entry).toContain('\nMimeType=x-scheme-handler/seller-tray;\n');
      expect(entry).toContain('\nExec="/opt/Seller Tray/seller-tray" %U\n');

      // Installed as the deb installs it, into a throwaway system data folder, and indexed as its
      // after-install script does (update-desktop-database); no per-user default is set.
      const dir = await mkdtemp(join(tmpdir(), 'seller-tray-deb-'));
      try {
        const applications = join(dir, 'share', 'applications');
        const file = join(applications, `${packageJson.name}.desktop`);
        await mkdir(applications, { recursive: true });
        await writeFile(file, entry);
        const env = {
          ...process.env,
          HOME: dir,
          XDG_DATA_HOME: join(dir, 'home-data'),
          XDG_CONFIG_HOME: join(dir, 'home-config'),
          XDG_DATA_DIRS: join(dir, 'share'),
          XDG_CONFIG_DIRS: join(dir, 'etc'),
        };
        const tool = (command: string, args: string[]) => run(command, args, { env });
        await tool('desktop-file-validate', [file]);
        await tool('update-desktop-database', [applications]);
        // (Not gio: GLib skips an entry whose program is not installed, and /opt/Seller Tray is not.)
        const byXdgMime = await tool('xdg-mime', ['query', 'default', 'x-scheme-handler/seller-tray']);
        expect(byXdgMime.stdout.trim()).toBe(`${packageJson.name}.desktop`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('the update feed in the installers', () => {
  it('publish is a generic feed whose URL comes from SELLER_TRAY_UPDATE_URL, valid against the scheme', () => {
    const config = loadConfig();
    // biome-ignore lint/suspicious/noTemplateCurlyInString: electron-builder's macro, written as in the file
    expect(config.publish).toEqual({ provider: 'generic', url: '${env.SELLER_TRAY_UPDATE_URL}' });
    const validate = validator();
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
    // electron-builder's own macro expansion: the variable's value when set, a refusal otherwise
    // (which is why `npm run dist` builds from electron-builder.no-updates.yml then).
    const { expandMacro } = require('app-builder-lib/out/util/macroExpander');
    const url = (config.publish as { url: string }).url;
    const saved = process.env.SELLER_TRAY_UPDATE_URL;
    try {
      process.env.SELLER_TRAY_UPDATE_URL = 'https://updates.example/seller-tray';
      expect(expandMacro(url, null, {})).toBe('https://updates.example/seller-tray');
      delete process.env.SELLER_TRAY_UPDATE_URL;
      expect(() => expandMacro(url, null, {})).toThrow(/SELLER_TRAY_UPDATE_URL is not defined/);
    } finally {
      if (saved === undefined) delete process.env.SELLER_TRAY_UPDATE_URL;
      else process.env.SELLER_TRAY_UPDATE_URL = saved;
    }
  });

  it('electron-builder.no-updates.yml is the same configuration without a feed, as electron-builder reads it', async () => {
    const { getConfig } = require('app-builder-lib/out/util/config/config');
    const withFeed = await getConfig(root, null, null);
    const without = await getConfig(root, 'electron-builder.no-updates.yml', null);
    expect(without.publish).toBeNull();
    expect(withFeed.publish).toEqual(loadConfig().publish);
    const { publish: _a, extends: _b, ...rest } = without;
    const { publish: _c, ...restWithFeed } = withFeed;
    expect(rest).toEqual(restWithFeed);
    const validate = validator();
    expect(validate(without), JSON.stringify(validate.errors)).toBe(true);
  });

  it('electron-builder.fleet.yml installs for every user (NSIS per machine, a macOS pkg) without a feed', async () => {
    const { getConfig } = require('app-builder-lib/out/util/config/config');
    const base = await getConfig(root, 'electron-builder.no-updates.yml', null);
    const fleet = await getConfig(root, 'electron-builder.fleet.yml', null);
    const validate = validator();
    expect(validate(fleet), JSON.stringify(validate.errors)).toBe(true);
    expect(fleet.publish).toBeNull();
    expect(fleet.nsis).toMatchObject({ oneClick: true, perMachine: true });
    expect(fleet.mac.target).toContain('pkg');
    expect(fleet.pkg).toMatchObject({ installLocation: '/Applications', isRelocatable: false });
    // Everything else is the same app: identity, files, fuses, links.
    for (const key of [
      'appId',
      'productName',
      'files',
      'asar',
      'asarUnpack',
      'electronFuses',
      'protocols',
      'linux',
      'deb',
    ])
      expect(fleet[key], key).toEqual(base[key]);
  });

  describe('npm run dist', () => {
    let fakeBin: string;
    beforeAll(async () => {
      // A stand-in electron-builder that writes down its arguments (the real one needs internet).
      fakeBin = await mkdtemp(join(tmpdir(), 'seller-tray-dist-'));
      await writeFile(
        join(fakeBin, 'electron-builder'),
        `#!/bin/sh\nprintf '%s\\n' "$@" > "${join(fakeBin, 'args')}"\n`,
        { mode: 0o755 },
      );
    });
    afterAll(() => rm(fakeBin, { recursive: true, force: true }));
    /** `npm run dist -- --linux AppImage`'s second step, with the variable set to `url` (empty: unset). */
    const dist = async (url: string) => {
      await rm(join(fakeBin, 'args'), { force: true });
      const run = await runTs('build/dist.ts', ['--linux', 'AppImage'], {
        PATH: `${fakeBin}:${process.env.PATH}`,
        SELLER_TRAY_UPDATE_URL: url,
      });
      const written = existsSync(join(fakeBin, 'args'))
        ? await readFile(join(fakeBin, 'args'), 'utf8')
        : null;
      return { ...run, args: written?.trim().split('\n') ?? null };
    };

    it.runIf(process.platform !== 'win32')(
      'builds with the feed when SELLER_TRAY_UPDATE_URL is set, without it otherwise',
      async () => {
        const withFeed = await dist('https://updates.example/seller-tray');
        expect(withFeed.code).toBe(0);
        expect(withFeed.args).toEqual(['--linux', 'AppImage']);
        const without = await dist('');
        expect(without.code).toBe(0);
        expect(without.args).toEqual(['--config', 'electron-builder.no-updates.yml', '--linux', 'AppImage']);
        expect(without.stdout).toContain('SELLER_TRAY_UPDATE_URL is not set');
      },
      30_000,
    );

    it.runIf(process.platform !== 'win32')(
      'builds the fleet installers with --fleet, never with a feed',
      async () => {
        await rm(join(fakeBin, 'args'), { force: true });
        const run = await runTs('build/dist.ts', ['--fleet', '--win', 'nsis'], {
          PATH: `${fakeBin}:${process.env.PATH}`,
          SELLER_TRAY_UPDATE_URL: 'https://updates.example/seller-tray',
        });
        expect(run.code).toBe(0);
        const args = (await readFile(join(fakeBin, 'args'), 'utf8')).trim().split('\n');
        expect(args).toEqual(['--config', 'electron-builder.fleet.yml', '--win', 'nsis']);
      },
      30_000,
    );

    it.runIf(process.platform !== 'win32')(
      'refuses a feed that is not https',
      async () => {
        const plain = await dist('http://updates.example/seller-tray');
        expect(plain.code).toBe(2);
        expect(plain.stderr).toContain('must be an https:// address');
        expect(plain.args).toBeNull();
      },
      30_000,
    );
  });
});
