/**
 * `/api/installer/*`: detect, plan, apply, uninstall and doctor for the console's setup wizard.
 * The user's home, PATH and config-dir variables come from the host that started the daemon
 * (`installerApiFeature(host)`, or a `host` on the daemon context); without them the routes
 * answer 503 rather than guess. Applies and uninstalls are audited with surface 'console' unless
 * the body names another.
 */
import type { ApiRequest, InstallOptions, InstallScope } from '../../../common/api';
import { SURFACES, type Surface } from '../../../common/audit';
import { err, ok, type Result } from '../../../common/result';
import { isVendorId, VENDORS } from '../../../common/vendors';
import type { DaemonContext, Feature } from '../daemon-context';
import {
  applyInstall,
  detectVendors,
  planInstall,
  commandLineState,
  installCommandLine,
  removeCommandLine,
  repairHookPorts,
  runDoctor,
  commandLineTarget,
  uninstall,
  type InstallerEnv,
  type InstallerHost,
} from '.';
import type { InstallerErrorCode } from './installer-error';
import { apiError, type ApiHandlers, type ApiReply } from '../api/index';

type Body = Record<string, unknown>;

function objectBody(raw: unknown): Result<Body> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw)
    ? ok(raw as Body)
    : err('bad-request', 'the body must be a JSON object');
}

function parseTarget(
  body: Body,
): Result<{ vendor: InstallOptions['vendor']; scope: InstallScope; project?: string }> {
  if (!isVendorId(body.vendor))
    return err('bad-request', `'vendor' must be one of ${VENDORS.join(', ')}`);
  const scope = body.scope ?? 'user';
  if (scope !== 'user' && scope !== 'project')
    return err('bad-request', "'scope' must be 'user' or 'project'");
  if (body.project !== undefined && typeof body.project !== 'string')
    return err('bad-request', "'project' must be an absolute directory path");
  return ok({
    vendor: body.vendor,
    scope,
    ...(typeof body.project === 'string' ? { project: body.project } : {}),
  });
}

function parseSurface(body: Body): Result<Surface | undefined> {
  if (body.surface === undefined) return ok(undefined);
  return (SURFACES as readonly unknown[]).includes(body.surface)
    ? ok(body.surface as Surface)
    : err('bad-request', `'surface' must be one of ${SURFACES.join(', ')}`);
}

/** Validates an install request body (opt-ins default to off). */
export function parseInstallOptions(raw: unknown): Result<InstallOptions & { surface?: Surface }> {
  const body = objectBody(raw);
  if (!body.ok) return body;
  const target = parseTarget(body.value);
  if (!target.ok) return target;
  const { instruct = false, permissions = false, transport } = body.value;
  if (typeof instruct !== 'boolean' || typeof permissions !== 'boolean')
    return err('bad-request', "'instruct' and 'permissions' must be true or false");
  if (transport !== undefined && transport !== 'http' && transport !== 'command')
    return err('bad-request', "'transport' must be 'http' or 'command'");
  const surface = parseSurface(body.value);
  if (!surface.ok) return surface;
  return ok({
    ...target.value,
    instruct,
    permissions,
    ...(transport ? { transport } : {}),
    ...(surface.value ? { surface: surface.value } : {}),
  });
}

/** Validates an uninstall request body. */
export function parseUninstall(
  raw: unknown,
): Result<ApiRequest<'POST /api/installer/uninstall'> & { surface?: Surface }> {
  const body = objectBody(raw);
  if (!body.ok) return body;
  const target = parseTarget(body.value);
  if (!target.ok) return target;
  const surface = parseSurface(body.value);
  if (!surface.ok) return surface;
  return ok({ ...target.value, ...(surface.value ? { surface: surface.value } : {}) });
}

/** Validates a doctor request body. */
export function parseDoctor(raw: unknown): Result<ApiRequest<'POST /api/installer/doctor'>> {
  const body = objectBody(raw ?? {});
  if (!body.ok) return body;
  if (body.value.vendor !== undefined && !isVendorId(body.value.vendor))
    return err('bad-request', `'vendor' must be one of ${VENDORS.join(', ')}`);
  return ok(body.value.vendor ? { vendor: body.value.vendor as InstallOptions['vendor'] } : {});
}

const STATUS: Readonly<Record<InstallerErrorCode, number>> = {
  'corrupt-config': 409,
  'unreadable-config': 409,
  'unexpected-shape': 409,
  'corrupt-manifest': 409,
  'unsupported-scope': 400,
  'unsupported-transport': 400,
  'missing-project': 400,
  'write-failed': 500,
  busy: 409,
  'unsafe-path': 409,
};

function refusal(error: { code: InstallerErrorCode; message: string }): ApiReply {
  return apiError(STATUS[error.code], error.code, error.message);
}

const UNAVAILABLE = (): ApiReply =>
  apiError(
    503,
    'installer-unavailable',
    'this daemon was started without the user environment (home directory, PATH) the installer needs',
  );

const NO_ENTRY = (): ApiReply =>
  apiError(503, 'installer-unavailable', 'this daemon does not know where its command line (bin/aep-companion.mjs) is');

/** The installer handlers; `envFor` builds the environment of one call (null: the host gave none). */
export function installerApi(envFor: (surface: Surface) => InstallerEnv | null): ApiHandlers {
  return {
    'GET /api/installer/detect': {
      handle: async () => {
        const env = envFor('console');
        return env ? detectVendors(env) : UNAVAILABLE();
      },
    },
    'POST /api/installer/plan': {
      parse: parseInstallOptions,
      handle: async (input) => {
        const env = envFor('console');
        if (!env) return UNAVAILABLE();
        const plan = await planInstall(input, env);
        return plan.ok ? plan.value : refusal(plan.error);
      },
    },
    'POST /api/installer/apply': {
      parse: parseInstallOptions,
      handle: async (input) => {
        const { surface, ...options } = input as InstallOptions & { surface?: Surface };
        const env = envFor(surface ?? 'console');
        if (!env) return UNAVAILABLE();
        const plan = await applyInstall(options, env);
        return plan.ok ? plan.value : refusal(plan.error);
      },
    },
    'POST /api/installer/uninstall': {
      parse: parseUninstall,
      handle: async (input) => {
        const { surface, ...target } = input as ApiRequest<'POST /api/installer/uninstall'> & {
          surface?: Surface;
        };
        const env = envFor(surface ?? 'console');
        if (!env) return UNAVAILABLE();
        const plan = await uninstall(target, env);
        return plan.ok ? plan.value : refusal(plan.error);
      },
    },
    'POST /api/installer/doctor': {
      parse: parseDoctor,
      handle: async (input) => {
        const env = envFor('console');
        return env ? runDoctor(input, env) : UNAVAILABLE();
      },
    },
    'GET /api/installer/command-line': {
      handle: () => {
        const env = envFor('console');
        const target = env && commandLineTarget(env);
        return target ? commandLineState(target) : NO_ENTRY();
      },
    },
    'POST /api/installer/command-line': {
      handle: async () => {
        const env = envFor('console');
        const target = env && commandLineTarget(env);
        if (!target) return NO_ENTRY();
        const r = await installCommandLine(target);
        return r.ok ? r.value : apiError(r.error.code === 'not-ours' ? 409 : 500, r.error.code, r.error.message);
      },
    },
    'DELETE /api/installer/command-line': {
      handle: async () => {
        const env = envFor('console');
        const target = env && commandLineTarget(env);
        if (!target) return NO_ENTRY();
        const r = await removeCommandLine(target);
        return r.ok ? r.value : apiError(r.error.code === 'not-ours' ? 409 : 500, r.error.code, r.error.message);
      },
    },
    'POST /api/installer/repair': {
      handle: async () => {
        const env = envFor('console');
        return env ? repairHookPorts(env) : UNAVAILABLE();
      },
    },
  };
}

/** The daemon feature: the installer routes over this daemon's data dir, URL and audit log. */
export function installerApiFeature(host?: InstallerHost): Feature {
  return (ctx: DaemonContext) => {
    const resolved = host ?? ctx.installerHost ?? null;
    return ctx.api.register(
      installerApi((surface) =>
        resolved
          ? {
              ...resolved,
              dataDir: ctx.dataDir,
              daemonUrl: ctx.url,
              audit: ctx.audit,
              actor: 'operator',
              surface,
            }
          : null,
      ),
    );
  };
}
