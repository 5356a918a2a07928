/**
 * The Electron bootstrap bridge: the only calls the preload exposes to the renderer, as one
 * typed map. In browser mode there is no bridge and the renderer reads the token from the URL.
 */

export interface BootstrapInfo {
  /** The daemon's origin, e.g. http://127.0.0.1:8787. */
  readonly baseUrl: string;
  readonly operatorToken: string;
  readonly platform: string;
  /** Launch options that affect the UI (e.g. tests skip the setup wizard). */
  readonly skipWizard: boolean;
}

export interface NativeNotification {
  readonly title: string;
  readonly body: string;
  /** Renderer route to open when the notification is clicked, e.g. '#/inbox'. */
  readonly route?: string;
}

/** Channel → call signature. Raw ipcMain/ipcRenderer appear in exactly one file each. */
export interface BridgeContract {
  'bootstrap:get': () => BootstrapInfo;
  'notify:show': (notification: NativeNotification) => void;
  'shell:open-external': (url: string) => void;
  'window:close': () => void;
}

export type BridgeChannel = keyof BridgeContract;

/** What `window.companion` looks like in the Electron renderer. */
export type CompanionBridge = {
  readonly [C in BridgeChannel]: (
    ...args: Parameters<BridgeContract[C]>
  ) => Promise<ReturnType<BridgeContract[C]>>;
};

/** Name of the global the preload defines. */
export const BRIDGE_GLOBAL = 'companion';
