// Keyboard helpers shared by the views' shortcuts.

/** Whether a key went to a text field, where letters, arrows and Ctrl+Z are the field's own. */
export function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
