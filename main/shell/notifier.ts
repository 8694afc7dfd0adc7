// The service's notification requests as native notifications. Each is kept referenced until
// clicked or dismissed (otherwise it may be collected and its click lost), including after its
// pop-up times out into Windows' Action Center, where it can still be clicked; a click shows the
// window on its order (in the account the notification is about: an id may be in two marketplaces),
// or on the inbox for a summary. Where the system has no notifications
// (Notification.isSupported() false), none is attempted.
//
// Where notifications carry buttons (macOS, Windows), one about a single order has "Start
// provisioning": it marks the order InProgress through the service, so through the outbox,
// exactly as the window's button does. If that is refused (someone already moved the order on,
// say), a second notification says why, and its click opens the order.
//
// Every notification's text is made plain and capped here too (the refusal notice carries the
// server's words), and on Linux, whose notification servers read markup, it is escaped.

import { notificationBody, notificationTitle } from '../../preload/marketplace-text';
import { orderLink } from '../../preload/order-link';
import { namedAccount } from '../../preload/served-account';
import { PRODUCT_NAME } from '../core/app-identity';
import type { NotificationRequest } from '../core/notification-policy';
import type { SellerTrayService } from '../core/service';
import type { NativeNotification, NotificationOptions, NotificationsPort } from './electron-ports';
import type { ShellEvent } from './window';

export const START_PROVISIONING = 'Start provisioning';
export const COPY_LINK = 'Copy link';

export interface NotifierOptions {
  service: SellerTrayService;
  notifications: NotificationsPort;
  /** Shows the window and tells the renderer where to go. */
  show(event: ShellEvent): void;
  /** Puts text on the clipboard (a link to the order, for a colleague). */
  copyText(text: string): void;
}

export class Notifier {
  /** Notifications on screen: referenced so they live until clicked or closed. */
  readonly live = new Set<NativeNotification>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: NotifierOptions) {
    this.unsubscribe = options.service.onEvent((event) => {
      if (event.type === 'notification') this.notify(event.request);
    });
  }

  /** Raises one notification; false when the system has none. */
  notify(request: NotificationRequest): boolean {
    const { orderId, account } = request;
    // What must not pass unseen stays on screen (Linux): an urgent order, the marketplace not read.
    const critical = request.kind === 'urgent' || request.kind === 'connection';
    const text = {
      title: request.title,
      body: request.body,
      ...(critical ? { urgency: 'critical' as const } : {}),
    };
    // Urgent orders, an outage or a recovery open Needs attention (its words are in the header); a summary, the inbox.
    if (orderId === undefined) return this.raise(text, { type: critical ? 'open-attention' : 'open-inbox' });
    const link = orderLink(orderId, namedAccount(this.options.service.state().accounts, account));
    const target: ShellEvent = { type: 'open-order', orderId, account };
    // Buttons in the order Electron numbers them (actionIndex); none where the platform has none.
    const buttons: Array<[string, () => Promise<void>]> = this.options.notifications.actionsSupported
      ? [
          [START_PROVISIONING, () => this.startProvisioning(target)],
          ...(link
            ? [[COPY_LINK, async () => this.options.copyText(link)] as [string, () => Promise<void>]]
            : []),
        ]
      : [];
    return this.raise(
      {
        ...text,
        ...(buttons.length ? { actions: buttons.map(([text]) => ({ type: 'button' as const, text })) } : {}),
      },
      target,
      buttons.map(([, run]) => run),
    );
  }

  /** A message of the app's own (a tray action that failed, say); a click opens the window. */
  tell(message: string): boolean {
    return this.raise({ title: PRODUCT_NAME, body: message }, { type: 'open-inbox' });
  }

  stop(): void {
    this.unsubscribe();
    this.live.clear();
  }

  private raise(
    options: NotificationOptions,
    target: ShellEvent,
    onActions: ReadonlyArray<() => Promise<void>> = [],
  ): boolean {
    if (!this.options.notifications.isSupported()) return false;
    const notification = this.options.notifications.create(
      displayed(options, this.options.notifications.readsMarkup),
    );
    this.live.add(notification);
    notification.on('click', () => {
      this.live.delete(notification);
      this.options.show(target);
    });
    notification.on('action', ({ actionIndex }) => {
      this.live.delete(notification);
      // Should even the notice fail, the window opens on the order, where the user can act.
      onActions[actionIndex]?.().catch(() => this.options.show(target));
    });
    notification.on('close', ({ reason } = {}) => {
      if (reason !== 'timedOut') this.live.delete(notification);
    });
    notification.show();
    return true;
  }

  /** Marks the order InProgress, posted by the account the notification is about. */
  private async startProvisioning(target: Extract<ShellEvent, { type: 'open-order' }>): Promise<void> {
    const { orderId, account } = target;
    const answer = await this.options.service.handle('markStatus', {
      orderId,
      statusCode: 'ProvisioningInProgress',
      ...(account === undefined ? {} : { account }),
    });
    if (answer.ok) return;
    this.raise({ title: `Order ${orderId} was not started`, body: answer.error.message }, target);
  }
}

/**
 * The text as the notification server will read it. The freedesktop specification makes the body
 * markup (GNOME Shell, KDE, dunst and others render <b>, <a href> …): it is escaped, after it was
 * cut so no entity is cut in half. The title is plain text by the specification, and escaping it
 * would show "&amp;" on the servers that keep to that; but dunst reads markup there too, so its
 * angle brackets become look-alikes and no tag can form.
 */
function displayed(options: NotificationOptions, readsMarkup: boolean): NotificationOptions {
  const title = notificationTitle(options.title);
  const body = notificationBody(options.body);
  if (!readsMarkup) return { ...options, title, body };
  return {
    ...options,
    title: title.replaceAll('<', '‹').replaceAll('>', '›'),
    body: body.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'),
  };
}
