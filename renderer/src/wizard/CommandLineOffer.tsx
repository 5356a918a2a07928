/**
 * The done step's offer to put `aep-companion` on PATH: a launcher in ~/.local/bin (Windows: the
 * per-user WindowsApps folder) that runs this install's command line. It says where it goes,
 * whether that folder is on PATH, and how to remove it; commands shown elsewhere start with
 * whatever reaches this install from a terminal (`commandPrefix`).
 */
import { useEffect, useState } from 'react';
import type { CommandLineState } from '../../../common/api';
import { useConsole } from '../shell/console-context';
import { CopyButton } from './CopyButton';
import { fromResult, type Load } from './load-state';

/** Quotes a path for a POSIX shell when it needs it. */
export const quoted = (path: string): string => (/^[A-Za-z0-9_/.:=@%+,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`);

/** How a terminal reaches this install's command line: the bare name only when it is on PATH. */
export function commandPrefix(state: CommandLineState | null): string {
  if (state === null) return 'aep-companion';
  if (state.installed === 'ours' && state.current) return state.onPath ? 'aep-companion' : quoted(state.path);
  return state.direct;
}

/** The launcher's state, loaded once and replaced by what install or removal answered. */
export function useCommandLine(): [Load<CommandLineState>, (next: Load<CommandLineState>) => void] {
  const { api } = useConsole();
  const [state, setState] = useState<Load<CommandLineState>>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    void api('GET /api/installer/command-line', undefined).then((r) => {
      if (live) setState(fromResult(r));
    });
    return () => {
      live = false;
    };
  }, [api]);
  return [state, setState];
}

/** The offer itself. */
export function CommandLineOffer({ line, onChange }: { line: Load<CommandLineState>; onChange: (next: Load<CommandLineState>) => void }) {
  const { api } = useConsole();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  if (line.state !== 'ok') return null;
  const s = line.value;
  const act = async (route: 'POST /api/installer/command-line' | 'DELETE /api/installer/command-line') => {
    setBusy(true);
    setFailure(null);
    const r = await api(route, undefined);
    setBusy(false);
    if (r.ok) onChange({ state: 'ok', value: r.value });
    else setFailure(r.error.message);
  };
  const ours = s.installed === 'ours';
  const removal = `${commandPrefix(s)} uninstall --command-line`;
  return (
    <section className="wz-cmdline" aria-label="Command line" data-testid="command-line" data-installed={s.installed} data-on-path={s.onPath ? 'yes' : 'no'}>
      <h3 className="section-title wz-subtitle">Command line</h3>
      {s.installed === 'other' ? (
        <p className="small">
          <span className="mono">{s.path}</span> already exists and was not written by the companion, so it is left alone. Run this install as{' '}
          <code>{commandPrefix(s)}</code>.
        </p>
      ) : ours && s.current ? (
        <p className="small">
          <code>aep-companion</code> is installed at <span className="mono">{s.path}</span>
          {s.onPath ? ': type it in any terminal.' : <>; its folder is not on your PATH, so type the full path or add the folder to PATH.</>}
        </p>
      ) : (
        <p className="small" data-testid="command-line-without">
          Put an <code>aep-companion</code> command in <span className="mono">{s.path}</span> so any terminal can run this install
          {s.onPath ? '.' : ' (that folder is not on your PATH yet: add it, or type the full path).'} Without it, a terminal runs it as <code>{s.direct}</code>
          {s.checkout ? (
            <>
              , or as <code>npx aep-companion</code> inside the checkout <span className="mono">{s.checkout}</span>.
            </>
          ) : (
            '.'
          )}
        </p>
      )}
      <div className="wz-cmdline-actions">
        {s.installed !== 'other' && !(ours && s.current) ? (
          <button type="button" className="btn" disabled={busy} onClick={() => void act('POST /api/installer/command-line')} data-testid="install-command-line">
            {ours ? 'Update the command line' : 'Install the command line'}
          </button>
        ) : null}
        {ours ? (
          <>
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => void act('DELETE /api/installer/command-line')} data-testid="remove-command-line">
              Remove it
            </button>
            <span className="small muted">
              or later: <code>{removal}</code>
              <CopyButton text={removal} />
            </span>
          </>
        ) : null}
      </div>
      {failure ? <p className="error-text small" role="alert">{failure}</p> : null}
    </section>
  );
}
