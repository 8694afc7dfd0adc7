import { describe, expect, it } from 'vitest';
import { CONTROL_OR_BIDI, HOSTILE_BUYER, SPOOFED_TOTAL } from '../test/support/hostile-order';
import {
  BODY_MAX,
  capped,
  escapedControls,
  escapedInJson,
  notificationBody,
  notificationTitle,
  paragraphText,
  plainText,
  TITLE_MAX,
} from './marketplace-text';

const BIDI_CONTROLS = [0x61c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2069];

describe('plain text', () => {
  it('removes every bidirectional control, so "Total: $1.00" is not shown for "€9,999.99"', () => {
    for (const code of BIDI_CONTROLS) {
      expect(plainText(`Acme ${String.fromCharCode(code)}google.com Ltd`)).toBe('Acme google.com Ltd');
    }
    expect(plainText(SPOOFED_TOTAL)).toBe('00.1$ :latoT');
  });

  it('removes control characters, so no escape sequence is left to act', () => {
    expect(plainText('Acme\u001b]0;pwned\u0007 Ltd\u001b[2J\u0000\u007f\u009b')).toBe('Acme]0;pwned Ltd[2J');
  });

  it('folds every kind of whitespace run into one space, so no word starts a line of its own', () => {
    expect(plainText(' Acme\r\n\tLtd\u00a0\u00a0\u00a0\u2028Bcc:\u3000x \u000b ')).toBe('Acme Ltd Bcc: x');
  });

  it('leaves ordinary text alone, right-to-left scripts and emoji included', () => {
    for (const text of ['Fjord AB & Co. <sales>', 'شركة الخليج', 'Café 😀 Ltd', 'a\u200dzwj']) {
      expect(plainText(text)).toBe(text);
    }
  });
});

describe('paragraph text (a note)', () => {
  it('keeps its line breaks, and removes controls and bidi controls as one line would', () => {
    expect(paragraphText('Deliver\r\nto dock 4\u202e\u001b[2J\n\tfragile\u0007')).toBe(
      'Deliver\nto dock 4[2J\n fragile',
    );
  });
});

describe('capped text', () => {
  it('cuts at the limit with an ellipsis, and leaves shorter text whole', () => {
    expect(capped('abcdef', 4)).toBe('abc…');
    expect(capped('abcd', 4)).toBe('abcd');
  });

  it('counts characters, never cutting one in half', () => {
    const cut = capped('😀'.repeat(70), TITLE_MAX);
    expect(Array.from(cut)).toHaveLength(TITLE_MAX);
    expect(cut).toBe(`${'😀'.repeat(TITLE_MAX - 1)}…`);
  });

  it('makes a 200,015-character hostile name a title of 64 and a body of 200, both plain', () => {
    const title = notificationTitle(HOSTILE_BUYER);
    const body = notificationBody(HOSTILE_BUYER);
    expect(HOSTILE_BUYER.length).toBeGreaterThan(200_000);
    expect([title.length, body.length]).toEqual([TITLE_MAX, BODY_MAX]);
    expect(title).not.toMatch(CONTROL_OR_BIDI);
    expect(body).not.toMatch(CONTROL_OR_BIDI);
    expect(title.endsWith('…')).toBe(true);
  });
});

describe('escaped text, for a terminal', () => {
  it('writes controls as visible escapes, keeping what they said', () => {
    expect(escapedControls('Acme\n\tEvil\r\u001b[2J\u0007\u009b\u202eX')).toBe(
      'Acme\\n\\tEvil\\r\\x1b[2J\\x07\\x9b\\u202eX',
    );
    expect(escapedControls('Fjord AB — Café')).toBe('Fjord AB — Café');
  });

  it('in JSON, escapes what JSON.stringify leaves raw, and parses to exactly the same value', () => {
    const value = { name: 'a\u202eb\u009bc\u007fd\u001be\n', 'k\u202e': ['\u2066x\u2069'] };
    const json = escapedInJson(JSON.stringify(value));
    expect(json).not.toMatch(CONTROL_OR_BIDI);
    expect(json).toContain('\\u202e');
    expect(JSON.parse(json)).toEqual(value);
  });
});
