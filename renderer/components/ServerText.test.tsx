// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerText, SHOWN_MAX } from './ServerText';

afterEach(cleanup);

/** The text between break points, as the browser may wrap it. */
function pieces(text: string): string[] {
  const { container } = render(<ServerText text={text} />);
  const bdi = container.querySelector('bdi') as HTMLElement;
  return bdi.innerHTML.split('<wbr>');
}

describe("the server's text, wrapped", () => {
  it('breaks a long e-mail address, id or address after @, / and - and before a dot, never mid-word', () => {
    expect(pieces('anna.virtanen@nordlicht-analytics.example')).toEqual([
      'anna',
      '.virtanen@',
      'nordlicht-',
      'analytics',
      '.example',
    ]);
    expect(pieces('https://marketplace.example/seller/v1')).toEqual([
      'https://',
      'marketplace',
      '.example/',
      'seller/',
      'v1',
    ]);
  });

  it('leaves words of ordinary length and the text itself as they are', () => {
    expect(pieces('Acme Industrial GmbH')).toEqual(['Acme Industrial GmbH']);
    const { container } = render(<ServerText text="mail anna.virtanen@nordlicht-analytics.example now" />);
    expect(container.textContent).toBe('mail anna.virtanen@nordlicht-analytics.example now');
  });
});

describe("the server's text, however long", () => {
  it("shows its first SHOWN_MAX characters and says how many more there are, in the app's words outside the isolate", () => {
    const { container } = render(<ServerText text={`Acme ${'A'.repeat(200_000)}`} />);
    const bdi = container.querySelector('bdi') as HTMLElement;
    expect(Array.from(bdi.textContent ?? '')).toHaveLength(SHOWN_MAX);
    expect(container.textContent).toBe(
      `Acme ${'A'.repeat(SHOWN_MAX - 5)}… (198,005 more characters not shown)`,
    );
    // Characters, not UTF-16 units: an emoji at the cut is whole or not there.
    const { container: emoji } = render(<ServerText text={'😀'.repeat(SHOWN_MAX + 3)} />);
    expect(emoji.querySelector('bdi')?.textContent).toBe('😀'.repeat(SHOWN_MAX));
    expect(emoji.textContent).toContain('(3 more characters not shown)');
  });

  it('shows a text of SHOWN_MAX characters whole, with no note', () => {
    const { container } = render(<ServerText text={'B'.repeat(SHOWN_MAX)} />);
    expect(container.textContent).toBe('B'.repeat(SHOWN_MAX));
  });
});
