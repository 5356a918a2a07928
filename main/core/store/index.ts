/** The store's public API: the opener, its errors, and one repository per table. */
export { openDb, latestVersion, type OpenDbOptions } from './open-db';
export { StoreError, isStoreError, toStoreError, type StoreErrorCode } from './store-error';
export { migrations, type Migration } from './migrations/index';
export {
  EventStore,
  type AdmitItem,
  type StoredEvent,
  type StorePosition,
  type EventStoreOptions,
} from './event-store';
export {
  SettingsRepo,
  isSettingKey,
  validateSetting,
  type SettingsErrorCode,
  type SettingsListener,
  type SettingsRepoOptions,
} from './settings-repo';
export { AuditLog, AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT, type AuditInput } from './audit-log';
// The session, epoch and steering repositories (their own files, owned alongside migrations 0030/0040).
export * from './sessions-repo';
export * from './epochs-repo';
export * from './steering-repo';
