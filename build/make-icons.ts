// Generates every image electron-builder and the tray need, from code, so the artwork is reviewable
// and reproducible: `npm run icons` (tsx build/make-icons.ts) rewrites the files beside this script.
//
// The mark is an inbox tray: a rounded outline whose lower band is filled, with a slot in the middle
// of the band's top edge. It is drawn by sampling shapes on a 4x4 grid per pixel (anti-aliasing),
// The tray also has a warning form (the marketplace has not been read for a while: liveness.ts),
// the mark with a badge, a disc with an exclamation mark, at its top right: a shape, not only a
// colour, so it tells on monochrome menu bars and to colour-blind eyes. It is
// encoded as 8-bit RGBA PNG by hand (node:zlib for the deflate stream), and the Windows .ico is a
// hand-written ICONDIR whose entries embed the PNGs. The output depends only on this file and Node's
// zlib (level 9), so running it twice gives the same bytes; a test holds the committed files to that.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';

/** RGB colour, 0..255 per channel. */
type Rgb = readonly [number, number, number];

/** The brand colour behind the white mark (app icons, Linux tray). */
const BRAND: Rgb = [14, 124, 102];
const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
/** The warning badge's colour on the colour tray images. */
const WARNING: Rgb = [196, 40, 28];

/** Sub-samples per pixel side: 4x4 = 16 samples, enough for smooth edges at every size here. */
const SAMPLES = 4;

/** Sizes of the Linux hicolor icon set (build/icons/<n>x<n>.png). */
export const LINUX_ICON_SIZES = [16, 32, 48, 128, 256, 512] as const;
/** Sizes embedded in build/icon.ico (Windows uses 16/32/48 in the shell and tray, 256 in Explorer). */
export const ICO_SIZES = [16, 32, 48, 256] as const;

// ---------------------------------------------------------------------------------------------
// Shapes, in unit coordinates: (u, v) in [0, 1], v pointing down.

function inRoundedRect(u: number, v: number, x0: number, y0: number, x1: number, y1: number, r: number) {
  if (u < x0 || u > x1 || v < y0 || v > y1) return false;
  const cu = Math.min(Math.max(u, x0 + r), x1 - r);
  const cv = Math.min(Math.max(v, y0 + r), y1 - r);
  const du = u - cu;
  const dv = v - cv;
  return du * du + dv * dv <= r * r;
}

/**
 * The tray mark filling the unit square. `stroke` is the outline width in unit terms: small images
 * pass a thicker one so the outline stays at least about 1.5 px wide.
 */
function inTray(u: number, v: number, stroke: number, snap: (t: number) => number = (t) => t): boolean {
  const x0 = snap(0.08);
  const y0 = snap(0.18);
  const x1 = snap(0.92);
  const y1 = snap(0.86);
  const r = 0.14;
  if (!inRoundedRect(u, v, x0, y0, x1, y1, r)) return false;
  // The outline.
  const ri = Math.max(r - stroke, 0.001);
  if (!inRoundedRect(u, v, x0 + stroke, y0 + stroke, x1 - stroke, y1 - stroke, ri)) return true;
  // The lower band, filled, except for the slot in the middle of its top edge.
  const bandTop = snap(0.54);
  if (v < bandTop) return false;
  const inSlot = u > snap(0.34) && u < snap(0.66) && v < snap(bandTop + Math.max(0.13, stroke * 1.1));
  return !inSlot;
}

function strokeFor(size: number): number {
  return Math.max(0.09, 1.5 / size);
}

/** Fraction (0..1) of a pixel's samples inside a shape. */
function coverage(size: number, x: number, y: number, inside: (u: number, v: number) => boolean): number {
  let hits = 0;
  for (let sy = 0; sy < SAMPLES; sy++) {
    for (let sx = 0; sx < SAMPLES; sx++) {
      const u = (x + (sx + 0.5) / SAMPLES) / size;
      const v = (y + (sy + 0.5) / SAMPLES) / size;
      if (inside(u, v)) hits++;
    }
  }
  return hits / (SAMPLES * SAMPLES);
}

/** An RGBA image: width x height x 4 bytes, rows top to bottom. */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * The bare mark in one colour on transparency: the macOS template image (black) is this. Its edges
 * are snapped to whole pixels and the outline is a whole number of pixels wide, so it stays crisp at
 * menu-bar sizes.
 */
export function drawMark(size: number, colour: Rgb): Rgba {
  const data = new Uint8Array(size * size * 4);
  const stroke = Math.ceil(size * 0.09) / size;
  const snap = (t: number) => Math.round(t * size) / size;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const a = coverage(size, x, y, (u, v) => inTray(u, v, stroke, snap));
      const i = (y * size + x) * 4;
      data[i] = colour[0];
      data[i + 1] = colour[1];
      data[i + 2] = colour[2];
      data[i + 3] = Math.round(a * 255);
    }
  }
  return { width: size, height: size, data };
}

/**
 * The app icon: a brand-coloured rounded square with the white mark inside. `margin` is the gap
 * around the square (app icons leave room as the platforms expect; the Linux tray image uses all of
 * its few pixels).
 */
export function drawAppIcon(size: number, margin: number): Rgba {
  const data = new Uint8Array(size * size * 4);
  const lo = margin;
  const hi = 1 - margin;
  const radius = (hi - lo) * 0.22;
  // The mark sits in the middle 64 % of the square.
  const inset = (hi - lo) * 0.18;
  const m0 = lo + inset;
  const span = hi - lo - 2 * inset;
  const stroke = strokeFor(size * span);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const bg = coverage(size, x, y, (u, v) => inRoundedRect(u, v, lo, lo, hi, hi, radius));
      const fg = coverage(size, x, y, (u, v) => inTray((u - m0) / span, (v - m0) / span, stroke));
      const i = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) {
        data[i + c] = Math.round((BRAND[c] ?? 0) * (1 - fg) + (WHITE[c] ?? 0) * fg);
      }
      data[i + 3] = Math.round(Math.max(bg, fg) * 255);
    }
  }
  return { width: size, height: size, data };
}

/** Where the warning badge is, in unit coordinates: the disc, the exclamation mark in it, the gap around it. */
function inBadge(u: number, v: number): 'disc' | 'mark' | 'gap' | null {
  const cx = 0.75;
  const cy = 0.27;
  const r = 0.26;
  const d = Math.hypot(u - cx, v - cy);
  if (d > r + 0.07) return null;
  if (d > r) return 'gap';
  const bar = Math.abs(u - cx) < 0.05 && v > cy - 0.17 && v < cy + 0.04;
  const dot = Math.hypot(u - cx, v - (cy + 0.12)) < 0.055;
  return bar || dot ? 'mark' : 'disc';
}

/**
 * An image with the warning badge on it: the gap around the disc is cleared, the disc drawn in
 * `disc`, the exclamation mark punched through (template images) or drawn in `mark`.
 */
export function withBadge(image: Rgba, disc: Rgb, mark: Rgb | null): Rgba {
  const size = image.width;
  const data = new Uint8Array(image.data);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const cover = (part: 'disc' | 'mark' | 'gap') => coverage(size, x, y, (u, v) => inBadge(u, v) === part);
      const [discA, markA, gapA] = [cover('disc'), cover('mark'), cover('gap')];
      if (discA + markA + gapA === 0) continue;
      const i = (y * size + x) * 4;
      const keep = 1 - discA - markA - gapA;
      const solid = discA + (mark ? markA : 0);
      for (let c = 0; c < 3; c++) {
        const drawn = (disc[c] ?? 0) * discA + (mark?.[c] ?? 0) * (mark ? markA : 0);
        const under = (data[i + c] ?? 0) * keep * ((data[i + 3] ?? 0) / 255);
        const alpha = solid + keep * ((data[i + 3] ?? 0) / 255);
        data[i + c] = alpha > 0 ? Math.round((drawn + under) / alpha) : 0;
      }
      data[i + 3] = Math.round((solid + keep * ((data[i + 3] ?? 0) / 255)) * 255);
    }
  }
  return { width: size, height: size, data };
}

// ---------------------------------------------------------------------------------------------
// Encoding.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, body: Uint8Array): Buffer {
  const typeAndBody = Buffer.concat([Buffer.from(type, 'latin1'), body]);
  const out = Buffer.alloc(8 + body.length + 4);
  out.writeUInt32BE(body.length, 0);
  typeAndBody.copy(out, 4);
  out.writeUInt32BE(crc32(typeAndBody), 8 + body.length);
  return out;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** 8-bit RGBA, non-interlaced PNG; every row uses filter 0 (None). */
export function encodePng(image: Rgba): Buffer {
  const { width, height, data } = image;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type: RGBA
  ihdr[10] = 0; // compression: deflate
  ihdr[11] = 0; // filter method 0
  ihdr[12] = 0; // no interlace
  const stride = width * 4;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0;
    raw.set(data.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  const idat = deflateSync(raw, { level: 9 });
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An ICO container whose entries are whole PNG files (supported by Windows Vista and later). */
export function encodeIco(pngs: readonly { size: number; png: Buffer }[]): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(pngs.length, 4);
  const entries = Buffer.alloc(16 * pngs.length);
  let offset = header.length + entries.length;
  pngs.forEach(({ size, png }, i) => {
    const e = i * 16;
    entries[e] = size >= 256 ? 0 : size; // width (0 means 256)
    entries[e + 1] = size >= 256 ? 0 : size; // height
    entries[e + 2] = 0; // palette colours
    entries[e + 3] = 0; // reserved
    entries.writeUInt16LE(1, e + 4); // colour planes
    entries.writeUInt16LE(32, e + 6); // bits per pixel
    entries.writeUInt32LE(png.length, e + 8);
    entries.writeUInt32LE(offset, e + 12);
    offset += png.length;
  });
  return Buffer.concat([header, entries, ...pngs.map((p) => p.png)]);
}

// ---------------------------------------------------------------------------------------------
// The file set.

/** Every generated file, keyed by its path relative to build/ (forward slashes). */
export function renderIcons(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const appIcon = new Map<number, Buffer>();
  const appIconPng = (size: number) => {
    let png = appIcon.get(size);
    if (!png) {
      png = encodePng(drawAppIcon(size, size <= 32 ? 0.02 : 0.06));
      appIcon.set(size, png);
    }
    return png;
  };

  // App icon: electron-builder makes the macOS .icns from this (it needs at least 512x512).
  files.set('icon.png', appIconPng(512));
  // Linux: electron-builder installs build/icons/<n>x<n>.png into the hicolor theme.
  for (const size of LINUX_ICON_SIZES) files.set(`icons/${size}x${size}.png`, appIconPng(size));
  // Windows: the executable, installer and tray icon.
  files.set('icon.ico', encodeIco(ICO_SIZES.map((size) => ({ size, png: appIconPng(size) }))));
  // macOS tray: template images (black + alpha; the "Template" suffix makes macOS tint them for
  // light and dark menu bars, and Electron picks @2x on Retina screens).
  files.set('tray/trayTemplate.png', encodePng(drawMark(16, BLACK)));
  files.set('tray/trayTemplate@2x.png', encodePng(drawMark(32, BLACK)));
  // Linux tray: colour, legible on light and dark panels alike.
  files.set('tray/tray.png', encodePng(drawAppIcon(32, 0)));
  // The warning forms: the same with the badge (Windows uses the colour PNG too).
  files.set('tray/trayWarningTemplate.png', encodePng(withBadge(drawMark(16, BLACK), BLACK, null)));
  files.set('tray/trayWarningTemplate@2x.png', encodePng(withBadge(drawMark(32, BLACK), BLACK, null)));
  files.set('tray/tray-warning.png', encodePng(withBadge(drawAppIcon(32, 0), WARNING, WHITE)));
  return files;
}

/** Writes every generated file under `outDir`; returns the paths written (relative, sorted). */
export async function writeIcons(outDir: string): Promise<string[]> {
  const files = renderIcons();
  for (const [relative, bytes] of files) {
    const target = join(outDir, ...relative.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
  }
  return [...files.keys()].sort();
}

/** The directory this script lives in (build/): where the committed images belong. */
export const BUILD_DIR = dirname(fileURLToPath(import.meta.url));

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const written = await writeIcons(BUILD_DIR);
  for (const path of written) console.log(`build/${path}`);
}
