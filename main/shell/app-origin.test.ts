// The one origin check (pages and IPC senders) and the app scheme's file mapping.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_URL, appFilePath, isAppUrl } from './app-origin';
import { isAllowedExternalUrl } from './external-links';

describe('the app origin', () => {
  it('is the app scheme on the app host, nothing else', () => {
    expect(isAppUrl(APP_URL)).toBe(true);
    expect(isAppUrl('app://seller-tray/assets/x.js?v=1#a')).toBe(true);
    for (const url of [
      'app://seller-tray.evil/index.html',
      'app://user:pw@seller-tray/index.html',
      'https://seller-tray/index.html',
      'file:///index.html',
      'app:seller-tray',
      'not a url',
      '',
      null,
      undefined,
    ])
      expect(isAppUrl(url), String(url)).toBe(false);
  });

  it('maps app URLs to files under the renderer directory, never outside', () => {
    expect(appFilePath('app://seller-tray/', '/r', join)).toBe('/r/index.html');
    expect(appFilePath('app://seller-tray/assets/a.js', '/r', join)).toBe('/r/assets/a.js');
    // The URL parser resolves an encoded "..": it stays inside the directory.
    expect(appFilePath('app://seller-tray/%2e%2e/secret', '/r', join)).toBe('/r/secret');
    expect(appFilePath('app://seller-tray/a/..%2f..%2fsecret', '/r', join)).toBeNull();
    expect(appFilePath('app://seller-tray/%E0%A4%A', '/r', join)).toBeNull();
    expect(appFilePath('https://seller-tray/index.html', '/r', join)).toBeNull();
  });
});

describe('external links', () => {
  it('are allowed for https on an allowlisted host only', () => {
    const hosts = ['marketplace.example.com'];
    expect(isAllowedExternalUrl('https://marketplace.example.com/a', hosts)).toBe(true);
    expect(isAllowedExternalUrl('https://MARKETPLACE.example.com/a', hosts)).toBe(true);
    for (const url of [
      'http://marketplace.example.com/a',
      'https://evil.example/a',
      'https://marketplace.example.com.evil.example/',
      'https://user@marketplace.example.com/',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'nonsense',
    ])
      expect(isAllowedExternalUrl(url, hosts), url).toBe(false);
  });
});
