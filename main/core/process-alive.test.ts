import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootIdOn } from './process-alive';

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

describe('the boot id a store notes, to let go of claims made before a restart', () => {
  it("is macOS's boot session uuid there (sysctl kern.bootsessionuuid)", () => {
    const bin = mkdtempSync(join(tmpdir(), 'sysctl-'));
    try {
      // macOS's sysctl as it answers that one key.
      writeFileSync(
        join(bin, 'sysctl'),
        '#!/bin/sh\n[ "$1 $2" = "-n kern.bootsessionuuid" ] && echo 6F1C2A0E-3B5D-4E7F-9A1B-2C3D4E5F6A7B\n',
      );
      chmodSync(join(bin, 'sysctl'), 0o755);
      process.env.PATH = `${bin}:${PATH}`;
      expect(bootIdOn('darwin')).toBe('6F1C2A0E-3B5D-4E7F-9A1B-2C3D4E5F6A7B');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('is none where the system does not say', () => {
    process.env.PATH = '/nonexistent';
    expect(bootIdOn('darwin')).toBeUndefined();
  });
});
