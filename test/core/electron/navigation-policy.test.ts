import { describe, expect, it } from 'vitest';
import { checkExternalUrl, checkNoArguments, checkNotification, MAX_BODY } from '../../../main/electron/bridge-validate';
import { decideNavigation, decideWindowOpen, isExternalWebUrl, parseRoute } from '../../../main/electron/navigation-policy';

const app = 'http://127.0.0.1:8787';

describe('navigation policy', () => {
  it('lets the console move within the daemon origin only', () => {
    expect(decideNavigation('http://127.0.0.1:8787/#/inbox', app)).toBe('allow');
    expect(decideNavigation('http://127.0.0.1:8788/', app)).toBe('external');
    expect(decideNavigation('http://localhost:8787/', app)).toBe('external');
  });

  it('sends http(s) links to the system browser and drops every other scheme', () => {
    expect(decideNavigation('https://example.com/docs', app)).toBe('external');
    expect(decideNavigation('file:///etc/passwd', app)).toBe('deny');
    expect(decideNavigation('javascript:alert(1)', app)).toBe('deny');
    expect(decideNavigation('vscode://file/x', app)).toBe('deny');
    expect(decideNavigation('not a url', app)).toBe('deny');
    expect(isExternalWebUrl('https://user:pw@example.com/')).toBe(false);
  });

  it('never opens a new app window, not even on the daemon origin', () => {
    expect(decideWindowOpen('http://127.0.0.1:8787/#/audit', app)).toBe('deny');
    expect(decideWindowOpen('https://example.com/', app)).toBe('external');
  });

  it('accepts console routes and nothing that could escape the hash', () => {
    expect(parseRoute('#/inbox')).toBe('#/inbox');
    expect(parseRoute('#/quick-instruct?session=abc%2F1')).toBe('#/quick-instruct?session=abc%2F1');
    expect(parseRoute('#/x";alert(1)//')).toBeNull();
    expect(parseRoute('https://example.com/#/inbox')).toBeNull();
    expect(parseRoute(42)).toBeNull();
  });
});

describe('bridge argument validation', () => {
  it('accepts a notification, trims oversized text and validates its route', () => {
    expect(checkNotification({ title: 'Claude Code asks for permission', body: 'Bash: ls', route: '#/inbox' })).toEqual({
      ok: true,
      value: { title: 'Claude Code asks for permission', body: 'Bash: ls', route: '#/inbox' },
    });
    const long = checkNotification({ title: 't', body: 'x'.repeat(MAX_BODY + 50) });
    expect(long.ok && long.value.body.length).toBe(MAX_BODY);
    expect(checkNotification({ title: 't', body: 'b', route: 'javascript:x' })).toMatchObject({ ok: false });
    expect(checkNotification({ title: '', body: 'b' })).toMatchObject({ ok: false, error: 'notify:show: title must be a non-empty string' });
    expect(checkNotification('hello')).toMatchObject({ ok: false });
    expect(checkNotification({ title: 't' })).toMatchObject({ ok: false, error: 'notify:show: body must be a string' });
  });

  it('opens only http(s) URLs externally', () => {
    expect(checkExternalUrl('https://example.com/a b')).toEqual({ ok: true, value: 'https://example.com/a%20b' });
    expect(checkExternalUrl('file:///etc/passwd')).toEqual({ ok: false, error: 'shell:open-external opens http(s) URLs only' });
    expect(checkExternalUrl({ href: 'https://example.com' })).toMatchObject({ ok: false });
  });

  it('refuses arguments on channels that take none', () => {
    expect(checkNoArguments('bootstrap:get', [])).toEqual({ ok: true, value: undefined });
    expect(checkNoArguments('window:close', ['x'])).toEqual({ ok: false, error: 'window:close takes no arguments' });
  });
});
