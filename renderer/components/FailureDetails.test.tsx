// @vitest-environment happy-dom
// A failure's Details: its Copy button copies what the person reads, the words and each line,
// never the invisible or line-breaking characters a quoted marketplace text may carry.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { FailureDetails } from './FailureDetails';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

it('copies the words and the lines as shown: no override, zero-width or line break of a quoted text', async () => {
  const writeText = vi.fn().mockResolvedValue(undefined);
  vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
  render(
    <FailureDetails
      message={'The marketplace refused the status: "order \u202Edilav\u202C\u200B closed\nrm -rf ~"'}
      details={['The marketplace said: bad\u0007 request', 'Request id: 5f0c']}
    />,
  );
  fireEvent.click(screen.getByRole('button', { name: 'Details' }));
  fireEvent.click(screen.getByRole('button', { name: /Copy/ }));
  await waitFor(() => expect(writeText).toHaveBeenCalledTimes(1));
  expect(writeText.mock.calls[0]?.[0]).toBe(
    [
      'The marketplace refused the status: "order dilav closed rm -rf ~"',
      'The marketplace said: bad request',
      'Request id: 5f0c',
    ].join('\n'),
  );
});
