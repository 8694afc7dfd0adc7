// The window: onboarding until an account (or the demo) is set up; then the header and
// status bar over the inbox, an order, or the settings, and the bar that offers to undo a
// status just marked. The app's state comes from the bridge and is kept current by its
// events; problems the service reports are shown until dismissed.
import { useCallback, useEffect, useState } from 'react';
import type { AppState, Bridge, OrderListItem } from '../preload/contract';
import { asBridgeCallError, call } from './bridge/call';
import { BridgeProvider, useBridge, useBridgeEvents } from './bridge/context';
import { ErrorAlert } from './components/ErrorAlert';
import { Header, type Page } from './components/Header';
import { Inbox } from './components/Inbox';
import { INITIAL_QUERY, type InboxQuery } from './components/inbox-query';
import { Onboarding } from './components/Onboarding';
import { OrderDetail, type Step } from './components/OrderDetail';
import { SettingsView } from './components/SettingsView';
import { UndoProvider } from './components/UndoBar';
import { orderStep } from './hooks/order-steps';

/** At most this many problems are kept on screen; older ones give way. */
const MAX_PROBLEMS = 3;

/** A problem the service reported; `details` say more, behind a disclosure. */
interface Problem {
  message: string;
  details?: string[] | undefined;
}

/** An order opened from the inbox carries its row (shown at once) and where it was in the list. */
type View =
  | { page: 'inbox' }
  | { page: 'order'; orderId: string; row?: OrderListItem; index?: number }
  | { page: 'settings' };

export function App({ bridge }: { bridge: Bridge }) {
  return (
    <BridgeProvider bridge={bridge}>
      <UndoProvider>
        <Shell />
      </UndoProvider>
    </BridgeProvider>
  );
}

function Shell() {
  const bridge = useBridge();
  const [state, setState] = useState<AppState | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [view, setView] = useState<View>({ page: 'inbox' });
  const [query, setQuery] = useState<InboxQuery>(INITIAL_QUERY);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [problems, setProblems] = useState<Problem[]>([]);

  const openOrder = useCallback((row: OrderListItem, index: number) => {
    setSelectedId(row.orderId);
    setView({ page: 'order', orderId: row.orderId, row, index });
  }, []);

  const addProblem = useCallback((message: string, details?: string[]) => {
    setProblems((shown) =>
      [...shown.filter((p) => p.message !== message), { message, details }].slice(-MAX_PROBLEMS),
    );
  }, []);

  const step = useCallback(
    (direction: Step) => {
      if (view.page !== 'order') return;
      orderStep(bridge, query, { orderId: view.orderId, index: view.index }, direction).then(
        (next) => next && openOrder(next.row, next.index),
        (failure: unknown) => addProblem(asBridgeCallError(failure).message),
      );
    },
    [bridge, query, view, openOrder, addProblem],
  );

  const backToInbox = useCallback(() => setView({ page: 'inbox' }), []);

  const loadState = useCallback(() => {
    setLoadError(null);
    call(bridge, 'getState', undefined).then(setState, (failure: unknown) =>
      setLoadError(asBridgeCallError(failure).message),
    );
  }, [bridge]);
  useEffect(loadState, [loadState]);

  useBridgeEvents((event) => {
    switch (event.type) {
      case 'app-state':
        setState(event.state);
        break;
      case 'state-changed':
        setState((current) => (current ? { ...current, ...event.status } : current));
        break;
      case 'problem':
        addProblem(event.message, event.details);
        break;
      case 'open-order':
        setSelectedId(event.orderId);
        setView({ page: 'order', orderId: event.orderId });
        break;
      case 'open-inbox':
        setView({ page: 'inbox' });
        break;
      case 'open-settings':
        setView({ page: 'settings' });
        break;
      default:
        break;
    }
  });

  const problemList = (
    <div className="problems">
      {problems.map(({ message, details }) => (
        <ErrorAlert
          key={message}
          message={message}
          details={details}
          onDismiss={() => setProblems((shown) => shown.filter((p) => p.message !== message))}
        />
      ))}
    </div>
  );

  if (!state) {
    return (
      <main className="app app-loading">
        {loadError ? (
          <>
            <ErrorAlert message={`Seller Tray could not start: ${loadError}`} />
            <button type="button" onClick={loadState}>
              Try again
            </button>
          </>
        ) : (
          <p role="status">Starting…</p>
        )}
      </main>
    );
  }

  if (state.setup === 'unconfigured') {
    return (
      <main className="app">
        {problemList}
        <Onboarding state={state} onState={setState} />
      </main>
    );
  }

  const page: Page = view.page === 'settings' ? 'settings' : 'inbox';
  return (
    <div className="app">
      <Header
        state={state}
        page={page}
        onNavigate={(to) => setView({ page: to })}
        onState={setState}
        onError={addProblem}
      />
      <main className="content">
        {problemList}
        {view.page === 'inbox' && (
          <Inbox
            query={query}
            onQueryChange={setQuery}
            selectedId={selectedId}
            onSelect={setSelectedId}
            onOpen={openOrder}
          />
        )}
        {view.page === 'order' && (
          <OrderDetail
            key={view.orderId}
            orderId={view.orderId}
            preview={view.row}
            onBack={backToInbox}
            onStep={step}
          />
        )}
        {view.page === 'settings' && <SettingsView state={state} onState={setState} />}
      </main>
    </div>
  );
}
