/**
 * A recording stand-in for the `electron` module, enough for the composition root (main/index.ts)
 * to run in plain Node against a real daemon: windows, tray, menu, IPC, dialogs and the app
 * lifecycle are recorded, and the test drives them (clicks, closes, quit) like a user would.
 */
import { EventEmitter } from 'node:events';

/** Something a test can wait for: resolves with the first value that satisfies the predicate. */
export class Signal<T> {
  private waiters: { test: (v: T) => boolean; resolve: (v: T) => void }[] = [];
  readonly values: T[] = [];

  push(value: T): void {
    this.values.push(value);
    this.waiters = this.waiters.filter((w) => {
      if (!w.test(value)) return true;
      w.resolve(value);
      return false;
    });
  }

  next(test: (v: T) => boolean = () => true): Promise<T> {
    const seen = this.values.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }
}

/** A cancellable event like Electron's. */
export class FakeEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

/** What happened, in order (paths, lock, lifecycle). */
export const calls: string[] = [];
export const loads = new Signal<{ win: FakeBrowserWindow; url: string }>();
export const trayMenus = new Signal<MenuTemplateItem[]>();
export const exits = new Signal<number>();
export const notifications = new Signal<{ title: string; body: string; actions: readonly { type: string; text: string }[]; click: () => void; action: (index: number) => void }>();
export const errorBoxes: { title: string; content: string }[] = [];
export const opened: string[] = [];
export const ipcHandlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
export const windows: FakeBrowserWindow[] = [];
export const trays: FakeTray[] = [];
export const paths = new Map<string, string>();
export const dialogAnswers: number[] = [];

/** An item of a menu template (the subset the app uses). */
export interface MenuTemplateItem {
  readonly label?: string;
  readonly type?: string;
  readonly role?: string;
  readonly checked?: boolean;
  readonly enabled?: boolean;
  readonly click?: () => void;
  readonly submenu?: MenuTemplateItem[];
}

class FakeApp extends EventEmitter {
  name = 'electron';
  readonly isPackaged = false;
  appPath = '';
  setName(name: string): void {
    this.name = name;
    calls.push(`setName:${name}`);
  }
  getName(): string {
    return this.name;
  }
  getVersion(): string {
    return '0.1.0';
  }
  getAppPath(): string {
    return this.appPath;
  }
  getPath(name: string): string {
    const p = paths.get(name);
    if (p === undefined) throw new Error(`no fake path ${name}`);
    return p;
  }
  setPath(name: string, value: string): void {
    calls.push(`setPath:${name}=${value}`);
    paths.set(name, value);
  }
  setAppUserModelId(): void {}
  /** The dock / launcher badge the shell last set. */
  badgeCount = 0;
  setBadgeCount(count: number): boolean {
    this.badgeCount = count;
    return true;
  }
  requestSingleInstanceLock(): boolean {
    calls.push('requestSingleInstanceLock');
    return true;
  }
  whenReady(): Promise<void> {
    return Promise.resolve();
  }
  setLoginItemSettings(settings: unknown): void {
    calls.push(`setLoginItemSettings:${JSON.stringify(settings)}`);
  }
  /** Electron's quit: before-quit, windows close, then will-quit unless something prevented it. */
  quit(): void {
    calls.push('quit');
    if (!app.emitCancellable('before-quit')) return;
    for (const w of [...windows]) if (!w.isDestroyed()) w.close();
    app.emitCancellable('will-quit');
  }
  exit(code = 0): void {
    calls.push(`exit:${code}`);
    exits.push(code);
  }
  emitCancellable(name: string): boolean {
    const event = new FakeEvent();
    this.emit(name, event);
    return !event.defaultPrevented;
  }
}

export const app = new FakeApp();

class FakeWebContents extends EventEmitter {
  readonly session = { setPermissionRequestHandler: () => undefined, setPermissionCheckHandler: () => undefined };
  openHandler: ((details: { url: string }) => { action: string }) | null = null;
  readonly scripts: string[] = [];
  constructor(readonly owner: FakeBrowserWindow) {
    super();
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.openHandler = handler;
  }
  executeJavaScript(code: string): Promise<unknown> {
    this.scripts.push(code);
    return Promise.resolve(undefined);
  }
}

/** A window that records what the app did with it. */
export class FakeBrowserWindow extends EventEmitter {
  readonly webContents = new FakeWebContents(this);
  visible = false;
  destroyed = false;
  maximized = false;
  url = '';
  constructor(readonly options: Record<string, unknown>) {
    super();
    windows.push(this);
  }
  static fromWebContents(wc: FakeWebContents): FakeBrowserWindow | null {
    return wc.owner ?? null;
  }
  static getFocusedWindow(): FakeBrowserWindow | null {
    return windows.find((w) => w.visible && !w.destroyed) ?? null;
  }
  loadURL(url: string): Promise<void> {
    this.url = url;
    loads.push({ win: this, url });
    // The page is "ready to show" once loaded.
    queueMicrotask(() => this.emit('ready-to-show'));
    return Promise.resolve();
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  focus(): void {}
  restore(): void {}
  maximize(): void {
    this.maximized = true;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  isMinimized(): boolean {
    return false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isVisible(): boolean {
    return this.visible;
  }
  setMenu(): void {}
  getNormalBounds(): { x: number; y: number; width: number; height: number } {
    return { x: 40, y: 30, width: Number(this.options.width), height: Number(this.options.height) };
  }
  /** The user (or the app) closes the window: 'close' may be prevented, else the window is gone. */
  close(): void {
    const event = new FakeEvent();
    this.emit('close', event);
    if (event.defaultPrevented) return;
    this.destroyed = true;
    this.visible = false;
    this.emit('closed');
  }
}

/** A tray icon that records its image, tooltip and menu. */
export class FakeTray extends EventEmitter {
  image: { path: string };
  tooltip = '';
  menu: MenuTemplateItem[] = [];
  destroyed = false;
  constructor(image: { path: string }) {
    super();
    this.image = image;
    trays.push(this);
  }
  setImage(image: { path: string }): void {
    this.image = image;
  }
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  /** Text beside the icon (macOS). */
  title = '';
  setTitle(text: string): void {
    this.title = text;
  }
  setContextMenu(menu: { template: MenuTemplateItem[] }): void {
    this.menu = menu.template;
    trayMenus.push(menu.template);
  }
  destroy(): void {
    this.destroyed = true;
  }
}

export let applicationMenu: MenuTemplateItem[] = [];

/** The module object handed to vi.mock('electron'). */
export const fakeElectron = {
  app,
  BrowserWindow: FakeBrowserWindow,
  Tray: FakeTray,
  Menu: {
    buildFromTemplate: (template: MenuTemplateItem[]) => ({ template }),
    setApplicationMenu: (menu: { template: MenuTemplateItem[] }) => {
      applicationMenu = menu.template;
    },
  },
  nativeImage: { createFromPath: (path: string) => ({ path }) },
  screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
  Notification: class extends EventEmitter {
    static isSupported(): boolean {
      return true;
    }
    constructor(private readonly options: { title: string; body: string; actions?: { type: string; text: string }[] }) {
      super();
    }
    show(): void {
      notifications.push({
        title: this.options.title,
        body: this.options.body,
        actions: this.options.actions ?? [],
        click: () => this.emit('click'),
        action: (index) => this.emit('action', {}, index),
      });
    }
  },
  dialog: {
    showErrorBox: (title: string, content: string) => errorBoxes.push({ title, content }),
    showMessageBox: () => Promise.resolve({ response: dialogAnswers.shift() ?? 1 }),
  },
  shell: {
    openExternal: (url: string) => {
      opened.push(url);
      return Promise.resolve();
    },
    openPath: (path: string) => {
      opened.push(path);
      return Promise.resolve('');
    },
  },
  ipcMain: {
    handle: (channel: string, fn: (event: unknown, ...args: unknown[]) => unknown) => ipcHandlers.set(channel, fn),
    removeHandler: (channel: string) => ipcHandlers.delete(channel),
  },
};
