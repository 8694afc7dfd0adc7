// Text the marketplace sent (a buyer's name, a note, an id), shown so that it cannot pass for
// the app's own words or rearrange them: isolated from the text around it (<bdi>, so a
// right-to-left name cannot reorder the total beside it), without control or bidirectional
// characters, names on one line, and wrapped anywhere so no value pushes the page wider.
import { paragraphText, plainText } from '../../preload/marketplace-text';

export function ServerText({ text, lines = false }: { text: string; lines?: boolean }) {
  return (
    <bdi className={lines ? 'server-text server-lines' : 'server-text'}>
      {lines ? paragraphText(text) : plainText(text)}
    </bdi>
  );
}
