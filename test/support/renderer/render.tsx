// Renders a component inside the bridge provider, and with the undo bar for the views that
// mark statuses (the order page), as the app does.
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { BridgeProvider } from '../../../renderer/bridge/context';
import { UndoProvider } from '../../../renderer/components/UndoBar';
import type { FakeBridge } from './fake-bridge';

export function renderWithBridge(bridge: FakeBridge, ui: ReactElement) {
  return render(<BridgeProvider bridge={bridge}>{ui}</BridgeProvider>);
}

export function renderWithUndo(bridge: FakeBridge, ui: ReactElement) {
  return renderWithBridge(bridge, <UndoProvider>{ui}</UndoProvider>);
}
