// Renders a component inside the bridge provider, and with the undo bar for the views that
// mark statuses (the order page), as the app does.
import { configure, render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { BridgeProvider } from '../../../renderer/bridge/context';
import { UndoProvider } from '../../../renderer/components/UndoBar';
import type { FakeBridge } from './fake-bridge';

// The default one second for findBy… is too short when CI runs Chromium beside these tests
// on two cores: a re-render then took just over it. What is awaited is unchanged.
configure({ asyncUtilTimeout: 5000 });

export function renderWithBridge(bridge: FakeBridge, ui: ReactElement) {
  return render(<BridgeProvider bridge={bridge}>{ui}</BridgeProvider>);
}

export function renderWithUndo(bridge: FakeBridge, ui: ReactElement) {
  return renderWithBridge(bridge, <UndoProvider>{ui}</UndoProvider>);
}
