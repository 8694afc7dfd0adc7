// Text the marketplace sent (a buyer's name, a note, an id), shown so that it cannot pass for
// the app's own words or rearrange them: isolated from the text around it (<bdi>, so a
// right-to-left name cannot reorder the total beside it), without control or bidirectional
// characters, names on one line, and wrapped so no value pushes the page wider: a long word
// (an e-mail address, an id, a URL) at its sensible points first (after @ and /, before a dot,
// after - and _), and only where none is left, anywhere.
import { Fragment, type ReactNode } from 'react';
import { paragraphText, plainText } from '../../preload/marketplace-text';

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
  return (
    <bdi className={['server-text', lines && 'server-lines', className].filter(Boolean).join(' ')}>
      {withBreakPoints(lines ? paragraphText(text) : plainText(text))}
    </bdi>
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
