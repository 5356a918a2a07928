/** React access to the store, the /api client and the connection facts. */
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { ApiCall } from '../api/api-client';
import type { ConnectionInfo } from '../api/connection-info';
import type { ConsoleStore, StoreArea } from '../model/console-store';

/** What every view can reach. */
export interface ConsoleServices {
  readonly store: ConsoleStore;
  readonly api: ApiCall;
  readonly connection: ConnectionInfo;
  /** The operator token in use now (rotation replaces it). */
  readonly token: () => string | null;
  /** Adopts a rotated operator token (storage, /api, reconnect). */
  readonly adoptToken: (token: string) => void;
}

/** Context carrying the services. */
export const ConsoleContext = createContext<ConsoleServices | null>(null);

/** The services; throws outside the provider (a programming error). */
export function useConsole(): ConsoleServices {
  const services = useContext(ConsoleContext);
  if (!services) throw new Error('useConsole outside ConsoleContext');
  return services;
}

/** Re-renders when any of the given store areas changes; returns a combined version key. */
export function useStoreAreas(...areas: StoreArea[]): string {
  const { store } = useConsole();
  return useSyncExternalStore(store.subscribe, () => areas.map((a) => store.version(a)).join('.'));
}
