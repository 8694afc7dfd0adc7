// Renders a component inside the bridge provider, as the app does.
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { BridgeProvider } from '../bridge/context';
import type { FakeBridge } from './fake-bridge';

export function renderWithBridge(bridge: FakeBridge, ui: ReactElement) {
  return render(<BridgeProvider bridge={bridge}>{ui}</BridgeProvider>);
}
