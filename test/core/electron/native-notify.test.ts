/**
 * The native notification with buttons (recording `electron` module): the answers become
 * Electron `actions`, a button press calls back with its option, a click opens the route, and
 * without an answer handler no button is shown.
 */
import { describe, expect, it, vi } from 'vitest';
import * as fake from './fake-electron';
import { showNativeNotification } from '../../../main/electron/native-notify';

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

const notice = {
  title: 'Claude Code asks for permission',
  body: 'Permission requested: Bash',
  route: '#/sessions/s1?event=01J',
  answers: [
    { option: 'allow', label: 'Allow' },
    { option: 'deny', label: 'Deny' },
  ],
};

describe('native notification buttons', () => {
  it('shows Allow and Deny as actions and answers with the pressed one', async () => {
    const answered: string[] = [];
    const opened: (string | undefined)[] = [];
    showNativeNotification(notice, '/icon.png', (route) => opened.push(route), (option) => answered.push(option));
    const note = await fake.notifications.next((n) => n.body === notice.body && n.actions.length > 0);
    expect(note.actions).toEqual([
      { type: 'button', text: 'Allow' },
      { type: 'button', text: 'Deny' },
    ]);
    note.action(1);
    expect(answered).toEqual(['deny']);
    note.action(7);
    expect(answered).toEqual(['deny']);
    note.click();
    expect(opened).toEqual(['#/sessions/s1?event=01J']);
  });

  it('shows no buttons when nothing can answer', async () => {
    showNativeNotification({ ...notice, body: 'no handler' }, '/icon.png', () => undefined);
    expect((await fake.notifications.next((n) => n.body === 'no handler')).actions).toEqual([]);
  });
});
