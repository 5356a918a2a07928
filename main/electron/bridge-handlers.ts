/**
 * The main side of the bootstrap bridge (common/bridge.ts): the only file that touches ipcMain.
 * Each channel checks that the call comes from a frame of the console's own origin, validates its
 * arguments, then hands over to the shell's handlers.
 */
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { BootstrapInfo, BridgeChannel, NativeNotification } from '../../common/bridge';
import { checkExternalUrl, checkNoArguments, checkNotification, type Checked } from './bridge-validate';

/** What the bridge does on the main side. */
export interface BridgeHandlers {
  /** The console's origin; calls from any other frame are refused. */
  readonly appOrigin: string;
  readonly bootstrap: () => BootstrapInfo;
  readonly notify: (notification: NativeNotification) => void;
  readonly openExternal: (url: string) => void;
  readonly closeWindow: (sender: WebContents) => void;
}

const CHANNELS: readonly BridgeChannel[] = ['bootstrap:get', 'notify:show', 'shell:open-external', 'window:close'];

function trusted(event: IpcMainInvokeEvent, appOrigin: string): boolean {
  const url = event.senderFrame?.url;
  if (url === undefined) return false;
  try {
    return new URL(url).origin === appOrigin;
  } catch {
    return false;
  }
}

const unwrap = <T>(checked: Checked<T>): T => {
  // ipcRenderer.invoke rejects with this message in the renderer.
  if (!checked.ok) throw new Error(checked.error);
  return checked.value;
};

/** Registers the bridge's handlers; returns their removal. */
export function registerBridgeHandlers(handlers: BridgeHandlers): () => void {
  const guard =
    <A extends unknown[], R>(channel: BridgeChannel, fn: (event: IpcMainInvokeEvent, ...args: A) => R) =>
    (event: IpcMainInvokeEvent, ...args: A): R => {
      if (!trusted(event, handlers.appOrigin)) throw new Error(`${channel}: refused for a frame outside the console`);
      return fn(event, ...args);
    };
  ipcMain.handle(
    'bootstrap:get',
    guard('bootstrap:get', (_e, ...args: unknown[]) => {
      unwrap(checkNoArguments('bootstrap:get', args));
      return handlers.bootstrap();
    }),
  );
  ipcMain.handle(
    'notify:show',
    guard('notify:show', (_e, ...args: unknown[]) => {
      handlers.notify(unwrap(checkNotification(args[0])));
    }),
  );
  ipcMain.handle(
    'shell:open-external',
    guard('shell:open-external', (_e, ...args: unknown[]) => {
      handlers.openExternal(unwrap(checkExternalUrl(args[0])));
    }),
  );
  ipcMain.handle(
    'window:close',
    guard('window:close', (event, ...args: unknown[]) => {
      unwrap(checkNoArguments('window:close', args));
      handlers.closeWindow(event.sender);
    }),
  );
  return () => {
    for (const channel of CHANNELS) ipcMain.removeHandler(channel);
  };
}
