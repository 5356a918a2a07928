/** Electron composition root (placeholder: the shell lands with its issue). */
import { app, BrowserWindow } from 'electron';

if (!app.requestSingleInstanceLock()) app.quit();
app.whenReady().then(() => {
  const win = new BrowserWindow({ width: 1100, height: 760 });
  void win.loadURL('about:blank');
});
