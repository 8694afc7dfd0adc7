// The service's notification requests as native notifications. Each is kept referenced until
// clicked or dismissed (otherwise it may be collected and its click lost), including after its
// pop-up times out into Windows' Action Center, where it can still be clicked; a click shows the
// window on its order, or on the inbox for a summary. Where the system has no notifications
// (Notification.isSupported() false), none is attempted.
//
// Where notifications carry buttons (macOS, Windows), one about a single order has "Start
// provisioning": it marks the order InProgress through the service, so through the outbox,
// exactly as the window's button does. If that is refused (someone already moved the order on,
// say), a second notification says why, and its click opens the order.
import type { NotificationRequest } from '../core/notification-policy';
import type { SellerTrayService } from '../core/service';
import type { NativeNotification, NotificationOptions, NotificationsPort } from './electron-ports';
import type { ShellEvent } from './window';

export const START_PROVISIONING = 'Start provisioning';

export interface NotifierOptions {
  service: SellerTrayService;
  notifications: NotificationsPort;
  /** Shows the window and tells the renderer where to go. */
  show(event: ShellEvent): void;
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
    const { orderId } = request;
    if (orderId === undefined)
      return this.raise({ title: request.title, body: request.body }, { type: 'open-inbox' });
    const withButton = this.options.notifications.actionsSupported;
    return this.raise(
      {
        title: request.title,
        body: request.body,
        ...(withButton ? { actions: [{ type: 'button', text: START_PROVISIONING }] } : {}),
      },
      { type: 'open-order', orderId },
      withButton ? () => this.startProvisioning(orderId) : undefined,
    );
  }

  stop(): void {
    this.unsubscribe();
    this.live.clear();
  }

  private raise(options: NotificationOptions, target: ShellEvent, onAction?: () => Promise<void>): boolean {
    if (!this.options.notifications.isSupported()) return false;
    const notification = this.options.notifications.create(options);
    this.live.add(notification);
    notification.on('click', () => {
      this.live.delete(notification);
      this.options.show(target);
    });
    notification.on('action', ({ actionIndex }) => {
      this.live.delete(notification);
      if (actionIndex === 0 && onAction) {
        // Should even the notice fail, the window opens on the order, where the user can act.
        onAction().catch(() => this.options.show(target));
      }
    });
    notification.on('close', ({ reason } = {}) => {
      if (reason !== 'timedOut') this.live.delete(notification);
    });
    notification.show();
    return true;
  }

  private async startProvisioning(orderId: string): Promise<void> {
    const answer = await this.options.service.handle('markStatus', {
      orderId,
      statusCode: 'ProvisioningInProgress',
    });
    if (answer.ok) return;
    this.raise(
      { title: `Order ${orderId} was not started`, body: answer.error.message },
      { type: 'open-order', orderId },
    );
  }
}
