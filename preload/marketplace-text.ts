// Text the marketplace sends (buyer and product names, notes, descriptions, error words) is a
// stranger's words, shown on surfaces that speak for Seller Tray: notifications, the tray, the
// terminal, the window. Before it gets there it is made plain here, in one place: no control
// characters (ESC sequences, forged line breaks), no bidirectional controls (a right-to-left
// override that turns "$1.00" and "€9,999.99" around), no whitespace runs that push words onto a
// line of their own, and no length beyond what the surface can show; in a notification, no text
// a server would offer as a link. Markup needs no step here: the window renders text as text,
// and the Linux notifier escapes it for its server.

/**
 * Control characters (C0, DEL, C1), the line and paragraph separators (U+2028, U+2029: a line
 * break to JavaScript, Python's splitlines and many editors) and the bidirectional controls:
 * embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069), the left-to-right and
 * right-to-left marks (U+200E, U+200F) and the Arabic letter mark (U+061C).
 */
const CONTROLS = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
/** Whether text holds any of CONTROLS (what a name the app shows as its own words may not hold). */
export const hasControls = (text: string): boolean => text.search(CONTROLS) !== -1;

/** Scripts whose letters join, or whose viramas and conjuncts take a zero-width (non-)joiner. */
const JOINING =
  '\\p{scx=Arabic}\\p{scx=Syriac}\\p{scx=Mongolian}\\p{scx=Nko}\\p{scx=Mandaic}\\p{scx=Devanagari}\\p{scx=Bengali}\\p{scx=Gurmukhi}\\p{scx=Gujarati}\\p{scx=Oriya}\\p{scx=Tamil}\\p{scx=Telugu}\\p{scx=Kannada}\\p{scx=Malayalam}\\p{scx=Sinhala}\\p{scx=Myanmar}\\p{scx=Khmer}';
/** Mongolian letters, which free variation selectors and the vowel separator follow. */
const MONGOLIAN = '[\\u1820-\\u18aa]';
const TAG = '[\\u{e0020}-\\u{e007e}]';
/**
 * The characters that only hide (one inside "evil\u200b.example" keeps a dot from looking like
 * one to linkless; two names that differ by one look the same): every default-ignorable code
 * point and the interlinear annotation marks (U+FFF9–U+FFFB), but for what real sequences need,
 * kept where they stand in one: a zero-width (non-)joiner beside a letter or mark of a joining
 * or Indic script, or a joiner inside an emoji sequence; a variation selector after an emoji, a
 * CJK ideograph or (free variation selectors) a Mongolian letter; the Mongolian vowel separator
 * between Mongolian letters; tag characters inside a 🏴 subdivision flag. One list: plainText
 * drops these, escapedControls shows them as escapes.
 */
const HIDING = [
  '(?![\\u180b-\\u180f\\u200c\\u200d\\ufe00-\\ufe0f\\u{e0020}-\\u{e007f}\\u{e0100}-\\u{e01ef}])[\\p{Default_Ignorable_Code_Point}\\ufff9-\\ufffb]',
  `(?<![${JOINING}])(?:\\u200c|(?<![\\p{Extended_Pictographic}\\p{Emoji_Modifier}\\ufe0f])\\u200d|\\u200d(?!\\p{Extended_Pictographic}))(?![${JOINING}])`,
  '(?<![\\p{Emoji}\\p{scx=Han}])[\\ufe00-\\ufe0f]',
  '(?<!\\p{scx=Han})[\\u{e0100}-\\u{e01ef}]',
  `(?<!${MONGOLIAN})[\\u180b-\\u180d\\u180f]`,
  `(?<!${MONGOLIAN})\\u180e|\\u180e(?!${MONGOLIAN})`,
  // Bounded (a flag's tag sequence is short), so a long run of tags costs linear time.
  `(?<!\\u{1f3f4}${TAG}{0,31})${TAG}|${TAG}(?!${TAG}{0,31}\\u{e007f})|(?<!\\u{1f3f4}${TAG}{1,32})\\u{e007f}`,
].join('|');
/** The same as CONTROLS, but for the whitespace controls (tab, line feed…), which become a space instead, and with the characters that only hide. */
const INVISIBLE = new RegExp(
  `(?![\\t\\n\\v\\f\\r])[\\p{Cc}\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]|${HIDING}`,
  'gu',
);
/** What a terminal shows as an escape: CONTROLS and the characters that only hide. */
const ESCAPED = new RegExp(`${CONTROLS.source}|${HIDING}`, 'gu');
/** What JSON.stringify leaves raw of CONTROLS: all but the whitespace controls it escapes itself. */
const RAW_IN_JSON = /(?![\t\n\v\f\r])[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** The longest notification title and body, in characters, the ellipsis included. */
export const TITLE_MAX = 64;
export const BODY_MAX = 200;
/** A name inside a longer text, so the words after it (a total, a count) are never cut off. */
export const NAME_MAX = 80;

/** Marketplace text as one plain line: whitespace runs (any kind) as one space, controls removed. */
export function plainText(text: string): string {
  return text.replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
}

/** Marketplace text of several lines (a note): its line breaks kept, controls removed. */
export function paragraphText(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(INVISIBLE, '')
    .replace(/[\t\v\f]/g, ' ')
    .trim();
}

/**
 * A clause of text from elsewhere (an error's message, a receiver's answer) ended as a sentence:
 * its own final period (or ! ? …) kept, one added only where it has none, so a join never makes "..".
 */
export const sentenceEnded = (text: string): string => (endsSentence(text) ? text : `${text}.`);

/** Whether text ends as a sentence does (. ! ? …): nothing is to be added after it. */
export const endsSentence = (text: string): boolean => /[.!?…]$/.test(text);

/** At most `max` characters (code points, so no emoji is cut in half), the last an ellipsis when cut. */
export function capped(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('')}…`;
}

export const notificationTitle = (text: string): string => capped(linkless(plainText(text)), TITLE_MAX);
export const notificationBody = (text: string): string => capped(linkless(plainText(text)), BODY_MAX);

/**
 * Text no notification server can offer as a link (some Linux servers turn "https://…", "www.…",
 * "mailto:…", "example.com/…" or an e-mail address in plain text into one), still readable: a
 * colon between a letter and what follows becomes U+A789 (꞉), a dot between a letter or digit
 * and a letter U+2024 (․), and so does the dot after "www" (GFM links "www.163.com"). Combining
 * marks and joiners beside a dot count with their letter ("Cafe\u0301.com" is "Café.com", which
 * IDN-aware servers link). Look-alikes rather than a zero-width joiner, which some servers drop
 * before they look for links; one character for one, so the lengths stay as capped.
 */
export function linkless(text: string): string {
  return text
    .replace(/(?<=\p{L}[\p{M}\u200c\u200d]*):(?=\S)/gu, '\ua789')
    .replace(/(?<=[\p{L}\p{N}][\p{M}\u200c\u200d]*)\.(?=[\p{M}\u200c\u200d]*\p{L})|(?<=www)\./giu, '\u2024');
}

const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * For a terminal: every control, bidirectional and hiding character written as a visible escape
 * (`\n`, `\x1b`, `\u202e`, `\u200b`), so the text keeps its information but can neither start a line nor drive
 * the terminal.
 */
export function escapedControls(text: string): string {
  return text.replace(ESCAPED, (character) => {
    const named = NAMED_ESCAPES[character];
    if (named) return named;
    const code = character.codePointAt(0) ?? 0;
    if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16)}`;
  });
}

/**
 * JSON text with the same characters (but the whitespace controls, which JSON.stringify never
 * leaves raw inside a string) written as \u escapes: it parses to exactly the same values.
 * JSON.stringify escapes the C0 controls itself, but leaves DEL, the C1 controls (U+009B starts
 * a control sequence in some terminals), the line and paragraph separators and the
 * bidirectional controls raw.
 */
export function escapedInJson(json: string): string {
  return json.replace(
    RAW_IN_JSON,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
