/**
 * The preload: exposes exactly the bootstrap bridge of common/bridge.ts as `window.companion`.
 * The only file that touches ipcRenderer. It runs sandboxed and is bundled to one CJS file
 * (out/preload/index.cjs) with no npm imports; the renderer never sees ipcRenderer itself.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_GLOBAL, type BootstrapInfo, type CompanionBridge, type NativeNotification } from '../common/bridge';

const bridge: CompanionBridge = {
  'bootstrap:get': () => ipcRenderer.invoke('bootstrap:get') as Promise<BootstrapInfo>,
  'notify:show': (notification: NativeNotification) => ipcRenderer.invoke('notify:show', notification) as Promise<void>,
  'shell:open-external': (url: string) => ipcRenderer.invoke('shell:open-external', url) as Promise<void>,
  'window:close': () => ipcRenderer.invoke('window:close') as Promise<void>,
};

contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, bridge);
