// The service's notification requests as native notifications. Each is kept referenced until
// clicked or closed (otherwise it may be collected and its click lost); a click shows the
// window on its order, or on the inbox for a summary. Where the system has no notifications
// (Notification.isSupported() false), none is attempted.
import type { NotificationRequest } from '../core/notification-policy';
import type { SellerTrayService } from '../core/service';
import type { NativeNotification, NotificationsPort } from './electron-ports';
import type { ShellEvent } from './window';

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
    if (!this.options.notifications.isSupported()) return false;
    const notification = this.options.notifications.create({ title: request.title, body: request.body });
    const target: ShellEvent =
      request.orderId !== undefined
        ? { type: 'open-order', orderId: request.orderId }
        : { type: 'open-inbox' };
    this.live.add(notification);
    notification.on('click', () => {
      this.live.delete(notification);
      this.options.show(target);
    });
    notification.on('close', () => this.live.delete(notification));
    notification.show();
    return true;
  }

  stop(): void {
    this.unsubscribe();
    this.live.clear();
  }
}
