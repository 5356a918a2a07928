/** Validating where an install goes and how (scope, project directory, transport). */
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { InstallOptions, InstallScope } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import type { InstallerErrorCode } from './installer-error';
import type { Transport } from './manifest';
import type { DesiredHooks, InstallTarget, VendorInstaller } from './vendor-installer';

/** Checks the scope against the vendor and the project directory (absolute; must exist when `mustExist`). */
export async function resolveTarget(
  installer: VendorInstaller,
  request: { readonly vendor: VendorId; readonly scope: InstallScope; readonly project?: string },
  mustExist: boolean,
): Promise<Result<InstallTarget, InstallerErrorCode>> {
  const name = VENDOR_NAMES[installer.vendor];
  if (!installer.scopes.includes(request.scope)) {
    return err(
      'unsupported-scope',
      `${name} has no ${request.scope}-level hook configuration; install with --scope ${installer.scopes[0]}`,
    );
  }
  if (request.scope === 'user') return ok({ scope: 'user', project: null });
  if (!request.project)
    return err('missing-project', `project scope needs a project directory (--project DIR)`);
  if (!isAbsolute(request.project))
    return err(
      'missing-project',
      `the project directory must be an absolute path: ${request.project}`,
    );
  const project = resolve(request.project);
  if (mustExist) {
    try {
      if (!(await stat(project)).isDirectory())
        return err('missing-project', `${project} is not a directory`);
    } catch {
      return err('missing-project', `the project directory ${project} does not exist`);
    }
  }
  return ok({ scope: 'project', project });
}

/** The opt-ins and the transport, defaulting to the vendor's preferred transport. */
export function desiredHooks(
  installer: VendorInstaller,
  options: InstallOptions,
): Result<DesiredHooks, InstallerErrorCode> {
  const transport: Transport = options.transport ?? installer.transports[0];
  if (!installer.transports.includes(transport)) {
    return err(
      'unsupported-transport',
      `${VENDOR_NAMES[installer.vendor]} supports only ${installer.transports.join(' or ')} hooks`,
    );
  }
  return ok({ instruct: options.instruct, permissions: options.permissions, transport });
}
