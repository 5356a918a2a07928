/** The expected failures of the installer, as Result error codes. */
export type InstallerErrorCode =
  | 'corrupt-config'
  | 'unreadable-config'
  | 'unexpected-shape'
  | 'unsupported-scope'
  | 'missing-project'
  | 'write-failed'
  | 'corrupt-manifest'
  | 'unsupported-transport'
  | 'busy'
  /** The config path leaves its project or home through a symbolic link: refused, nothing written. */
  | 'unsafe-path';
