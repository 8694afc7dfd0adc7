// The rule of every form with a Cancel (useCancelOnEscape): opened by its button, its field has
// the focus; Escape closes it as Cancel does and gives the focus back to that button.
import { fireEvent, screen } from '@testing-library/react';
import { expect } from 'vitest';

export function expectEscapeClosesForm(opener: string): void {
  fireEvent.click(screen.getByRole('button', { name: opener }));
  const field = document.activeElement;
  expect(field?.tagName).toBe('INPUT');
  fireEvent.keyDown(field ?? document.body, { key: 'Escape' });
  expect(document.activeElement).toBe(screen.getByRole('button', { name: opener }));
  expect(document.querySelector('form')).toBeNull();
}
