/** Native notifications (OS notification centre); a click opens the console on the notification's route. */
import { Notification } from 'electron';
import type { NativeNotification } from '../../common/bridge';

// Shown notifications are held until dismissed: one that is garbage-collected loses its click handler.
const live = new Set<Notification>();

/** Shows a notification if the OS supports them. */
export function showNativeNotification(notification: NativeNotification, icon: string, onClick: (route: string | undefined) => void): void {
  if (!Notification.isSupported()) return;
  const note = new Notification({ title: notification.title, body: notification.body, icon });
  live.add(note);
  const release = (): void => {
    live.delete(note);
  };
  note.on('click', () => {
    release();
    onClick(notification.route);
  });
  note.on('close', release);
  note.on('failed', release);
  note.show();
}
