// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerText } from './ServerText';

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
