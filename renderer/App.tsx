// The window: onboarding until an account (or the demo) is set up; then the header and
// status bar over the inbox, an order, or the settings, and the bar that offers to undo a
// status just marked. The app's state comes from the bridge and is kept current by its
// events; problems the service reports are shown until dismissed, the connection's own problem
// while it lasts. Arrivals are announced to assistive technology, and the window's title
// carries how many orders wait. From 900 px wide the inbox and the open order are side by side
// (the split view: the current row's order follows the list); narrower, one page at a time. Help
// opens from the header, the tray menu and "?", and goes back to where it was opened.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { AppState, Bridge, OrderListItem } from '../preload/contract';
import type { Explained } from '../preload/model';
import type { MarkableStatus } from '../preload/order-status';
import { namedAccount } from '../preload/served-account';
import { call, explained } from './bridge/call';
import { BridgeProvider, useBridge, useBridgeEvents } from './bridge/context';
import { AttentionView } from './components/AttentionView';
import { ConnectionProblems } from './components/ConnectionProblems';
import { DemoBanner } from './components/DemoBanner';
import { ErrorAlert } from './components/ErrorAlert';
import { Header, type Page } from './components/Header';
import { Help, type HelpPart } from './components/Help';
import { Inbox } from './components/Inbox';
import { INITIAL_QUERY, type InboxQuery, rowKey } from './components/inbox-query';
import { InsightsView } from './components/insights/InsightsView';
import { Onboarding } from './components/Onboarding';
import { OrderDetail, type Step } from './components/OrderDetail';
import { PausedBanner } from './components/PauseControl';
import { SettingsView } from './components/SettingsView';
import { UndoProvider } from './components/UndoBar';
import { setWindowLocale } from './format';
import { orderStep, type Place } from './hooks/order-steps';
import { useAccountLabels } from './hooks/useAccountLabels';
import { useDocumentKey } from './hooks/useDocumentKey';
import { useMediaQuery } from './hooks/useMediaQuery';
import { isWindowKey, keyAction } from './keyboard';

const APP_TITLE = 'Seller Tray';
const SCREEN_NAMES: Readonly<Record<View['page'], string>> = {
  inbox: 'Inbox',
  attention: 'Needs attention',
  insights: 'Insights',
  order: 'Order',
  settings: 'Settings',
  help: 'Help',
};

/** A place as a turn of steps remembers where it landed. */
const placeKey = ({ orderId, index }: Place): string => `${index ?? ''}:${orderId}`;

/** From this width the inbox and the open order are side by side. */
const SPLIT_VIEW = '(min-width: 900px)';

/** At most this many problems are kept on screen; older ones give way. */
const MAX_PROBLEMS = 3;

/** A problem the service reported; `details` say more, behind a disclosure. */
export interface Problem {
  message: string;
  details?: readonly string[] | undefined;
}

/** An order opened from the inbox carries its row (shown at once), where it was in the list, and maybe a step to take. */
type View =
  | { page: 'inbox' }
  | {
      page: 'order';
      orderId: string;
      /** The account the order is in (its id), when opened from a notification or link, not a row. */
      account?: string | undefined;
      row?: OrderListItem;
      index?: number;
      press?: MarkableStatus;
    }
  | { page: 'attention' }
  | { page: 'insights' }
  | { page: 'settings' }
  /** Help, over the view it goes back to, maybe at a part of it. */
  | { page: 'help'; back: Exclude<View, { page: 'help' }>; part?: HelpPart };

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
  const [state, setAppState] = useState<AppState | null>(null);
  // The organization's locale (policy) is in force before the views draw in it.
  const setState = useCallback((next: AppState) => {
    setWindowLocale(next.managed.locale);
    setAppState(next);
  }, []);
  const [loadError, setLoadError] = useState<Explained | null>(null);
  const [view, setView] = useState<View>({ page: 'inbox' });
  const [query, setQuery] = useState<InboxQuery>(INITIAL_QUERY);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [problems, setProblems] = useState<Problem[]>([]);
  /** Orders that arrived while the app ran and were not in view in the inbox since. */
  const [arrivals, setArrivals] = useState<readonly string[]>([]);
  const [announcement, setAnnouncement] = useState('');
  /** Shown as the tray popover (the desktop app tells): "Open in a window" is offered. */
  const [popover, setPopover] = useState(false);
  const split = useMediaQuery(SPLIT_VIEW);

  // Closed, Help gives the focus back to what had it as it opened, where that is still shown (a
  // header button); else, over the inbox, to its list, drawn anew (the inbox's own return covers
  // an order chosen in it only). Else the page would have it, where the arrows move nothing.
  const beforeHelp = useRef<HTMLElement | null>(null);
  const afterHelp = useRef(false);
  /** Help over the view shown; again from Help, only its part changes. */
  const openHelp = useCallback((part?: HelpPart) => {
    const { activeElement: focused } = document;
    setView((shown) => {
      if (shown.page === 'help') return { ...shown, part };
      beforeHelp.current = focused instanceof HTMLElement && focused !== document.body ? focused : null;
      return { page: 'help', back: shown, part };
    });
  }, []);
  const closeHelp = useCallback(
    () =>
      setView((shown) => {
        if (shown.page !== 'help') return shown;
        afterHelp.current = true;
        return shown.back;
      }),
    [],
  );
  useEffect(() => {
    if (!afterHelp.current || view.page === 'help') return;
    afterHelp.current = false;
    if (beforeHelp.current?.isConnected) beforeHelp.current.focus();
    else if (view.page === 'inbox') document.getElementById('inbox-list')?.focus();
    beforeHelp.current = null;
  }, [view]);
  // "?" anywhere but in a text field or a dialog.
  useDocumentKey((event) => {
    if (keyAction(event, 'window') !== 'help' || !isWindowKey(event)) return;
    event.preventDefault();
    openHelp();
  });

  const waitingCount = state?.waitingCount ?? 0;
  useEffect(() => {
    document.title = waitingCount > 0 ? `(${waitingCount}) ${APP_TITLE}` : APP_TITLE;
  }, [waitingCount]);

  const arrivalsSeen = useCallback((seen: readonly string[]) => {
    setArrivals((before) => before.filter((id) => !seen.includes(id)));
  }, []);
  /** An order opened from the inbox comes with its row and place; from elsewhere with its id (and account). */
  const openOrder = useCallback(
    (
      orderId: string,
      from?: { row: OrderListItem; index: number } | { account?: string | undefined },
      press?: MarkableStatus,
    ) => {
      arrivalsSeen([orderId]);
      setSelectedId(rowKey({ orderId, account: from && 'row' in from ? from.row.account : from?.account }));
      setView({ page: 'order', orderId, ...from, ...(press ? { press } : {}) });
    },
    [arrivalsSeen],
  );

  // The inbox's props stay the same while what it shows does (it is drawn again only when one changes).
  const openRow = useCallback(
    (row: OrderListItem, index: number) => openOrder(row.orderId, { row, index }),
    [openOrder],
  );
  const failRow = useCallback(
    (row: OrderListItem, index: number) => openOrder(row.orderId, { row, index }, 'ProvisioningFailed'),
    [openOrder],
  );
  const showKeys = useCallback(() => openHelp('keys'), [openHelp]);
  const accountLabels = useAccountLabels(state?.accounts);

  const addProblem = useCallback(({ message, details }: Problem) => {
    setProblems((shown) =>
      [...shown.filter((p) => p.message !== message), { message, details }].slice(-MAX_PROBLEMS),
    );
  }, []);

  // Steps take turns, each from where the one before landed: a key pressed again before the page
  // followed (a held ↓, a quick j j) steps on from there, not again from the order still shown.
  // An order shown by anything else (opened, left) starts a new turn: the steps of the old one
  // are dropped, and one whose listing never answers holds none after it.
  const place = useRef<Place | undefined>(undefined);
  const turn = useRef({ chain: Promise.resolve(), landed: new Set<string>() });
  useLayoutEffect(() => {
    const shown = view.page === 'order' ? { orderId: view.orderId, index: view.index } : undefined;
    if (!shown || !turn.current.landed.has(placeKey(shown)))
      turn.current = { chain: Promise.resolve(), landed: new Set() };
    place.current = shown;
  }, [view]);
  const step = useCallback(
    (direction: Step) => {
      const pressedIn = turn.current;
      pressedIn.chain = pressedIn.chain.then(async () => {
        const from = place.current;
        if (!from || turn.current !== pressedIn) return;
        try {
          const next = await orderStep(bridge, query, from, direction);
          if (!next || turn.current !== pressedIn) return;
          place.current = { orderId: next.row.orderId, index: next.index };
          pressedIn.landed.add(placeKey(place.current));
          openOrder(next.row.orderId, next);
        } catch (failure) {
          if (turn.current === pressedIn) addProblem(explained(failure));
        }
      });
    },
    [bridge, query, openOrder, addProblem],
  );

  // Beside the inbox, "back" is to the list, the order staying open.
  const backToInbox = useCallback(() => {
    if (split) document.getElementById('inbox-list')?.focus();
    else setView({ page: 'inbox' });
  }, [split]);

  /** The waiting order that has waited longest, other than the one shown; the inbox when none is left. */
  const nextWaiting = useCallback(() => {
    if (view.page !== 'order') return;
    const shown = view.orderId;
    // The backlog counts too: when only it waits, its longest waiting order is next.
    const request = { filter: 'ProvisioningStarted', backlog: 'shown', offset: 0, limit: 2 } as const;
    call(bridge, 'listOrders', request).then(
      (page) => {
        const index = page.orders.findIndex((row) => row.orderId !== shown);
        const row = page.orders[index];
        if (row) openOrder(row.orderId, { row, index });
        else {
          backToInbox();
          setAnnouncement('No other order is waiting.');
        }
      },
      (failure: unknown) => addProblem(explained(failure)),
    );
  }, [bridge, view, openOrder, backToInbox, addProblem]);

  const loadState = useCallback(() => {
    setLoadError(null);
    call(bridge, 'getState', undefined).then(setState, (failure: unknown) =>
      setLoadError(explained(failure)),
    );
  }, [bridge, setState]);
  useEffect(loadState, [loadState]);

  useBridgeEvents((event) => {
    switch (event.type) {
      case 'app-state':
        setState(event.state);
        break;
      case 'problem':
        addProblem(event);
        break;
      case 'orders-arrived':
        setArrivals((before) => [...before, ...event.orderIds.filter((id) => !before.includes(id))]);
        setAnnouncement(
          `${event.orderIds.length === 1 ? 'A new order' : `${event.orderIds.length} new orders`} arrived.`,
        );
        break;
      case 'open-order':
        openOrder(event.orderId, { account: event.account });
        break;
      case 'open-inbox':
        setView({ page: 'inbox' });
        break;
      case 'open-settings':
        setView({ page: 'settings' });
        break;
      case 'open-help':
        openHelp();
        break;
      case 'open-attention':
        setView({ page: 'attention' });
        break;
      case 'open-insights':
        setView({ page: 'insights' });
        break;
      case 'window-mode':
        setPopover(event.mode === 'popover');
        break;
      default:
        break;
    }
  });

  const problemList = (
    <div className="problems">
      {problems.map((problem) => (
        <ErrorAlert
          key={problem.message}
          problem={problem}
          onDismiss={() => setProblems((shown) => shown.filter((p) => p.message !== problem.message))}
        />
      ))}
    </div>
  );

  if (!state) {
    return (
      <main className="app app-loading">
        {loadError ? (
          <>
            <ErrorAlert
              problem={{ ...loadError, message: `Seller Tray could not start: ${loadError.message}` }}
            />
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

  const page: Page = view.page === 'order' ? 'inbox' : view.page;
  const inbox = (
    <Inbox
      query={query}
      onQueryChange={setQuery}
      selectedId={selectedId}
      onSelect={setSelectedId}
      onOpen={openRow}
      onFail={failRow}
      arrivals={arrivals}
      onArrivalsSeen={arrivalsSeen}
      split={split}
      onShowKeys={showKeys}
      accountLabels={accountLabels}
    />
  );
  const orderAccount = view.page === 'order' ? (view.account ?? view.row?.account) : undefined;
  const order = view.page === 'order' && (
    <OrderDetail
      key={`${orderAccount}/${view.orderId}`}
      orderId={view.orderId}
      account={orderAccount}
      named={namedAccount(state?.accounts ?? [], orderAccount)}
      automationsAllowed={state?.managed.automationsAllowed ?? true}
      preview={view.row}
      onBack={backToInbox}
      onStep={step}
      onNextWaiting={nextWaiting}
      beside={split}
      pressOnOpen={view.press}
    />
  );
  return (
    <div className="app">
      <Header
        state={state}
        screen={SCREEN_NAMES[view.page]}
        page={page}
        onNavigate={(to) => (to === 'help' ? openHelp() : setView({ page: to }))}
        onState={setState}
        onError={addProblem}
        popover={popover}
      />
      <div className="banners">
        <ConnectionProblems state={state} />
        <PausedBanner state={state} onState={setState} onError={addProblem} />
        <DemoBanner state={state} onState={setState} onError={addProblem} />
      </div>
      {split && (view.page === 'inbox' || view.page === 'order') ? (
        <main className="content content-split">
          {problemList}
          <div className="split">
            <div className="split-list">{inbox}</div>
            <section className="split-order" aria-label={order ? undefined : 'Open order'}>
              {order || (
                <p className="empty">Choose an order in the list (↑/↓, or a click) to see it here.</p>
              )}
            </section>
          </div>
        </main>
      ) : (
        <main className={`content content-${view.page}`}>
          {problemList}
          {view.page === 'inbox' && inbox}
          {order}
          {view.page === 'attention' && (
            <AttentionView
              accounts={state?.accounts}
              onOpen={(orderId, account) => openOrder(orderId, { account })}
            />
          )}
          {view.page === 'insights' && <InsightsView state={state} />}
          {view.page === 'settings' && <SettingsView state={state} onState={setState} />}
          {view.page === 'help' && (
            <Help part={view.part} onClose={closeHelp} onSettings={() => setView({ page: 'settings' })} />
          )}
        </main>
      )}
      <p className="sr-only" role="status">
        {announcement}
      </p>
    </div>
  );
}
