// Text the marketplace sent (a buyer's name, a note, an id), shown so that it cannot pass for
// the app's own words or rearrange them: isolated from the text around it (<bdi>, so a
// right-to-left name cannot reorder the total beside it), without control or bidirectional
// characters, names on one line, and wrapped so no value pushes the page wider: a long word
// (an e-mail address, an id, a URL) at its sensible points first (after @ and /, before a dot,
// after - and _), and only where none is left, anywhere. At most SHOWN_MAX characters of it.
import { Fragment, type ReactNode } from 'react';
import { paragraphText, plainText } from '../../preload/marketplace-text';

/**
 * The most of one text shown, the rest said in the app's words: a browser lays a long unbroken
 * word out character by character (Chromium 156 took 21 s for 100,000 with overflow-wrap:
 * anywhere), so a hostile buyer name of 200,000 froze the order page for over a minute. No name,
 * note or id a person reads runs this long; 2,000 of them take a fraction of a second.
 */
export const SHOWN_MAX = 2_000;

/** Words at least this long get break points; shorter ones wrap as words do. */
const LONG_WORD = 16;
const HAS_LONG_WORD = new RegExp(`\\S{${LONG_WORD}}`);
/** Where a long word may break: after @ - _ and a slash (not inside "//"), and before a dot. */
const BREAK_POINTS = /(?<=[@\-_])|(?<=\/)(?!\/)|(?=\.)/;

export function ServerText({
  text,
  lines = false,
  className,
}: {
  text: string;
  lines?: boolean;
  /** The place's own classes, beside the server text's. */
  className?: string;
}) {
  const clean = lines ? paragraphText(text) : plainText(text);
  const characters = clean.length > SHOWN_MAX ? Array.from(clean) : undefined;
  const more = characters ? characters.length - SHOWN_MAX : 0;
  return (
    <>
      <bdi className={['server-text', lines && 'server-lines', className].filter(Boolean).join(' ')}>
        {withBreakPoints(characters && more > 0 ? characters.slice(0, SHOWN_MAX).join('') : clean)}
      </bdi>
      {more > 0 && (
        <span className="server-text-more">… ({more.toLocaleString('en')} more characters not shown)</span>
      )}
    </>
  );
}

/** The text with a <wbr> at the sensible break points of each long word; the text itself unchanged. */
function withBreakPoints(text: string): ReactNode {
  if (!HAS_LONG_WORD.test(text)) return text;
  return text.split(/(\s+)/).map((word, i) => {
    if (word.length < LONG_WORD) return word;
    const parts = word.split(BREAK_POINTS);
    return (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of a fixed text, never reordered
      <Fragment key={i}>
        {parts.map((part, j) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <Fragment key={j}>
            {j > 0 && <wbr />}
            {part}
          </Fragment>
        ))}
      </Fragment>
    );
  });
}
