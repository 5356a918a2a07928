/**
 * Native notifications (OS notification centre); a click opens the console on the notification's
 * route. Buttons (`answers`, where the platform shows them) call `onAnswer` with their option.
 */
import { Notification } from 'electron';
import type { NativeNotification } from '../../common/bridge';
import type { NoticeAnswer } from './attention-notifier';

// Shown notifications are held until dismissed: one that is garbage-collected loses its click handler.
const live = new Set<Notification>();

/** Shows a notification if the OS supports them. */
export function showNativeNotification(
  notification: NativeNotification & { readonly answers?: readonly NoticeAnswer[] },
  icon: string,
  onClick: (route: string | undefined) => void,
  onAnswer?: (option: string) => void,
): void {
  if (!Notification.isSupported()) return;
  const answers = onAnswer ? (notification.answers ?? []) : [];
  const note = new Notification({
    title: notification.title,
    body: notification.body,
    icon,
    ...(answers.length ? { actions: answers.map((a) => ({ type: 'button' as const, text: a.label })) } : {}),
  });
  live.add(note);
  const release = (): void => {
    live.delete(note);
  };
  note.on('click', () => {
    release();
    onClick(notification.route);
  });
  note.on('action', (_event, index) => {
    release();
    const answer = answers[index];
    if (answer !== undefined) onAnswer?.(answer.option);
  });
  note.on('close', release);
  note.on('failed', release);
  note.show();
}
