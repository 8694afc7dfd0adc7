import { describe, expect, it } from 'vitest';
import {
  CONTROL_OR_BIDI,
  FORGED_ORDER_ID,
  HOSTILE_BUYER,
  LINK_SHAPED,
  MARKUP,
  SPOOFED_TOTAL,
} from '../test/support/hostile-order';
import {
  BODY_MAX,
  capped,
  escapedControls,
  escapedInJson,
  linkless,
  notificationBody,
  notificationTitle,
  paragraphText,
  plainText,
  sentenceEnded,
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
    for (const text of ['Fjord AB & Co. <sales>', 'شركة الخليج', 'Café 😀 Ltd', 'क्\u200dष']) {
      expect(plainText(text)).toBe(text);
    }
  });

  it('drops the zero-width characters that only hide, and a joiner that joins nothing', () => {
    expect(plainText('evil\u200b.exa\u2060mple\ufeff')).toBe('evil.example');
    expect(plainText('E\u00adU\u180e \u200d.\u200c:')).toBe('EU .:');
    // Latin letters join nothing: "E\u200dU" would pass for "EU".
    expect(plainText('E\u200dU a\u200czwj')).toBe('EU azwj');
    // Kept where it joins: Persian's non-joiner, an emoji family, a skin-toned one.
    for (const text of ['می\u200cخواهم', '👨\u200d👩\u200d👧', '👋🏽\u200d❤\ufe0f']) {
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

describe('the line and paragraph separators (U+2028, U+2029)', () => {
  /** Lines as Python's str.splitlines() sees them: it breaks at both separators too. */
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the line breaks splitlines knows
  const pythonLines = (text: string) => text.split(/\r\n|[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/);

  it('forge no line anywhere: a space in a name, a line break in a note, an escape for a terminal', () => {
    const forged = `Acme\u2028${FORGED_ORDER_ID}\u2029Ltd`;
    expect(plainText(forged)).toBe(`Acme ${FORGED_ORDER_ID} Ltd`);
    expect(paragraphText(forged)).toBe(`Acme\n${FORGED_ORDER_ID}\nLtd`);
    expect(escapedControls(forged)).toBe(`Acme\\u2028${FORGED_ORDER_ID}\\u2029Ltd`);
    expect(pythonLines(escapedControls(HOSTILE_BUYER))).toHaveLength(1);
    for (const text of [
      plainText(HOSTILE_BUYER),
      notificationTitle(HOSTILE_BUYER),
      notificationBody(HOSTILE_BUYER),
    ])
      expect(text).not.toMatch(/[\u2028\u2029]/);
  });

  it('are escaped in JSON, which JSON.stringify leaves raw, and parse back the same', () => {
    const value = { buyer: `a\u2028b\u2029c` };
    expect(JSON.stringify(value)).toMatch(/\u2028/);
    const json = escapedInJson(JSON.stringify(value));
    expect(json).toBe('{"buyer":"a\\u2028b\\u2029c"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('text without links, for a notification', () => {
  it('leaves nothing a notification server would offer as a link, and still reads the same', () => {
    for (const text of [
      MARKUP,
      HOSTILE_BUYER,
      'Pay at www.evil.example now',
      'evil.example/login',
      'write to attacker@evil.example',
      'mailto:attacker@evil.example',
      'ftp://10.0.0.1/x',
    ]) {
      expect(notificationBody(text)).not.toMatch(LINK_SHAPED);
      expect(notificationTitle(text)).not.toMatch(LINK_SHAPED);
    }
    expect(linkless('https://evil.example/login')).toBe('https\ua789//evil\u2024example/login');
  });

  it('keeps a total, a time and ordinary sentences as they are, character for character', () => {
    for (const text of ['Seat licence × 5 — €9,999.99', 'Paused until 16:50', 'Acme Ltd. Note: 1.5 seats'])
      expect(linkless(text)).toBe(text);
    expect(linkless('a.b:c')).toHaveLength(5);
  });
});

describe('a clause ended as a sentence', () => {
  it('gets one period, never a second', () => {
    expect(sentenceEnded('exit 2')).toBe('exit 2.');
    expect(sentenceEnded('the receiver said: try later.')).toBe('the receiver said: try later.');
    expect(sentenceEnded('really?')).toBe('really?');
    expect(`${sentenceEnded('Keychain locked.')} Try again.`).not.toContain('..');
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

describe('zero-width characters, beyond the ones listed', () => {
  it('drops every default-ignorable character that only hides, so none keeps a dot from linkless', () => {
    // Default_Ignorable_Code_Point, none needed where it stands: the deprecated format characters
    // (U+206A–U+206F), the combining grapheme joiner, a variation selector after a Latin letter,
    // a tag character outside a flag (the "ASCII smuggling" carrier), the interlinear annotation
    // marks, the musical formatting marks and the Khmer inherent vowels. Each, like the zero-width
    // space the change drops, shows nothing and keeps "evil.example" a domain.
    const hiders = ['\u206a', '\u206f', '\u034f', '\ufe00', '\u{e0041}', '\ufff9', '\u{1d173}', '\u17b4'];
    const kept = hiders.filter((c) => notificationBody(`evil${c}.example`) !== 'evil\u2024example');
    expect(kept.map((c) => `U+${c.codePointAt(0)?.toString(16).toUpperCase()}`)).toEqual([]);
  });

  it('cleans a long run of tag characters in linear time (a flag is only looked for nearby)', () => {
    const started = performance.now();
    expect(plainText(`x${'\u{e0041}'.repeat(100_000)}`)).toBe('x');
    // Unbounded, the flag's look-behind made this about 18 s; bounded it takes milliseconds.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('leaves legitimate joiners and separators in other scripts as they are', () => {
    const texts = {
      // Malayalam chillu in the pre-Unicode-5.1 encoding (virama + ZWJ at a word's end), still common.
      'Malayalam chillu': 'അവന്\u200d വന്നു',
      // Persian "Solar Hijri" abbreviation: ZWJ keeps heh in its joining form before the dot.
      'Persian date abbreviation': '۱۴۰۲ ه\u200d.ش',
      // Mongolian vowel separator: selects the final vowel's shape (khar-a, "black").
      'Mongolian vowel separator': 'ᠬᠠᠷ\u180eᠠ',
      'Mongolian free variation selector': 'ᠠ\u180bᠠ',
      'Devanagari half form': 'क्\u200dष',
      'subdivision flag (tag characters)': '🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}',
      'ideographic variation sequence': '葛\u{e0100}城',
      keycap: '1\ufe0f\u20e3',
    };
    const changed = Object.entries(texts).filter(([, text]) => plainText(text) !== text);
    expect(changed.map(([name]) => name)).toEqual([]);
  });
});

describe('the terminal, which does not use plainText', () => {
  it('shows the zero-width characters plainText now treats as hiding, as it shows controls', () => {
    // The CLI writes marketplace text through escapedControls (main/cli/format.ts): shown raw,
    // "Ac\u200bme" and "Acme" would print alike and "evil\u2060.example" as a domain.
    expect(escapedControls('Ac\u200bme evil\u2060.example\ufeff')).toBe(
      'Ac\\u200bme evil\\u2060.example\\ufeff',
    );
    expect(escapedControls('E\u200dU A\u{e0041}')).toBe('E\\u200dU A\\u{e0041}');
    // The same list as plainText's: what a real sequence needs prints as it is.
    expect(escapedControls('👨\u200d👩 🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}')).toBe(
      '👨\u200d👩 🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}',
    );
  });
});

describe('linkless on decomposed text and on a digit after www.', () => {
  it('breaks a domain whose dot follows a combining mark (NFD, as macOS writes names) or precedes a digit after www.', () => {
    // "Cafe\u0301.com" shows as "Café.com"; IDN-aware servers and GFM (which takes any
    // non-space, non-punctuation character as a host's) link it. "www.163.com" keeps "www.163".
    for (const name of ['Cafe\u0301.com', 'www.163.com']) expect(notificationBody(name)).not.toMatch(/\./);
  });
});
