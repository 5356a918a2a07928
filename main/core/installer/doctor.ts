/**
 * Doctor: is the daemon up, is the hook token valid, and for each installed vendor, does a
 * synthetic hook through the installed URL or command reach the daemon with a reply that
 * parses? Every failing finding says what to do about it.
 */
import { join } from 'node:path';
import type { DoctorFinding } from '../../../common/api';
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import { readConfigText } from './config-file';
import { commandFindings, httpFindings, type ProbeContext } from './doctor-hooks';
import { replyParses, type ProbeOutcome } from './doctor-probes';
import { TOKEN_VAR } from './hook-target';
import type { InstallerEnv } from './installer-env';
import { readManifest, type Manifest, type ManifestInstall } from './manifest';
import { reinstallCommand } from './reinstall-command';
import { syntheticPayload } from './synthetic-hook';
import { VENDOR_INSTALLERS } from '../vendors/installers';
import type { HookProbe, OurEntry } from './vendor-installer';

/** What doctor checks: one vendor, or every installed one. */
export interface DoctorRequest {
  readonly vendor?: VendorId;
}

const START_REMEDY =
  'Start AEP Companion (open the app, or run `aep-companion serve`), then run doctor again.';

function finding(
  vendor: VendorId | null,
  check: string,
  ok: boolean,
  message: string,
  remedy: string | null,
): DoctorFinding {
  return { vendor, check, ok, message, remedy: ok ? null : remedy };
}

async function checkHealth(env: InstallerEnv): Promise<DoctorFinding> {
  const url = new URL('/healthz', env.daemonUrl).toString();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.text();
    return finding(
      null,
      'daemon-health',
      res.ok,
      res.ok ? `the daemon answers at ${env.daemonUrl}` : `${url} answered HTTP ${res.status}`,
      START_REMEDY,
    );
  } catch {
    return finding(
      null,
      'daemon-health',
      false,
      `no daemon answers at ${env.daemonUrl}`,
      START_REMEDY,
    );
  }
}

function outcomeFinding(
  vendor: VendorId,
  check: string,
  where: string,
  outcome: ProbeOutcome,
  tokenFile: string,
): DoctorFinding {
  const name = VENDOR_NAMES[vendor];
  if (outcome.status === 401 || outcome.status === 403) {
    return finding(
      vendor,
      check,
      false,
      `the daemon refused the hook token sent by ${where} (HTTP ${outcome.status})`,
      `The token the hook sends does not match the running daemon's: make sure ${TOKEN_VAR} (if set) equals the content of ${tokenFile}, and restart the companion if the token was rotated.`,
    );
  }
  if (outcome.status === null) {
    const follow =
      check === 'hook-http'
        ? `If it is running on another address, reinstall so ${where} points at it.`
        : 'If it is running, the launcher finds it through daemon.json in the data directory (or AEP_COMPANION_URL): start it with the same data directory.';
    return finding(
      vendor,
      check,
      false,
      `a synthetic ${name} hook through ${where} did not reach the daemon (${outcome.error ?? 'no answer'})`,
      `${START_REMEDY} ${follow}`,
    );
  }
  if (outcome.status < 200 || outcome.status >= 300) {
    return finding(
      vendor,
      check,
      false,
      `the daemon answered a synthetic ${name} hook with HTTP ${outcome.status}`,
      'Update AEP Companion so the daemon knows this hook route, then reinstall the hooks.',
    );
  }
  if (outcome.error || !replyParses(outcome.reply)) {
    return finding(
      vendor,
      check,
      false,
      `the reply to a synthetic ${name} hook does not parse (${outcome.error ?? outcome.reply.slice(0, 80)})`,
      'Reinstall the hooks to refresh the shim; if it persists, report it with the output of `aep-companion doctor`.',
    );
  }
  return finding(
    vendor,
    check,
    true,
    `a synthetic ${name} hook through ${where} reached the daemon and the reply parses`,
    null,
  );
}

async function checkInstall(
  install: ManifestInstall,
  manifest: Manifest,
  env: InstallerEnv,
  token: string,
  tokenFile: string,
): Promise<DoctorFinding[]> {
  const vendor = install.vendor;
  const installer = VENDOR_INSTALLERS[vendor];
  const reinstall = reinstallCommand(install);
  const out: DoctorFinding[] = [];
  for (const file of install.files) {
    const read = await readConfigText(file.path);
    const entries = read.ok ? installer.ourEntries(file.path, read.value) : read;
    if (!entries.ok) {
      out.push(
        finding(
          vendor,
          'config',
          false,
          entries.error.message,
          `Fix or restore ${file.path} (backups are in ${join(env.dataDir, 'installer', 'backups')}), then run \`${reinstall}\`.`,
        ),
      );
      continue;
    }
    if (entries.value.length === 0) {
      out.push(
        finding(
          vendor,
          'config',
          false,
          `our hooks are no longer in ${file.path}`,
          `Run \`${reinstall}\`.`,
        ),
      );
      continue;
    }
    out.push(
      finding(vendor, 'config', true, `${entries.value.length} hook entries in ${file.path}`, null),
    );
    const probes = new Map<string, { probe: HookProbe; entry: OurEntry }>();
    for (const entry of entries.value) {
      const probe = installer.probe(entry);
      if (probe && !probes.has(probe.kind)) probes.set(probe.kind, { probe, entry });
    }
    const context: ProbeContext = {
      install,
      manifest,
      env,
      token,
      tokenFile,
      payload: syntheticPayload(vendor, env.home),
      file: file.path,
      outcomeFinding: (v, check, where, outcome) =>
        outcomeFinding(v, check, where, outcome, tokenFile),
    };
    for (const { probe, entry } of probes.values()) {
      out.push(
        ...(probe.kind === 'http'
          ? await httpFindings(probe, context)
          : await commandFindings(probe, entry, context)),
      );
    }
    if (installer.doctorChecks && file === install.files[0])
      out.push(...(await installer.doctorChecks(install, env)));
    if (installer.retrust) {
      out.push({
        vendor,
        check: 'trust',
        ok: true,
        unchecked: true,
        message: `${VENDOR_NAMES[vendor]} runs these hooks only after you trust them; doctor cannot see that state`,
        remedy:
          vendor === 'codex'
            ? 'If Codex sessions do not show up, open Codex and trust the hooks with `/hooks`.'
            : 'If Hermes sessions do not show up, approve the hooks at the Hermes prompt (or start it once with --accept-hooks).',
      });
    }
  }
  return out;
}

/** Runs every check and returns the findings, failing ones with their remedy. */
export async function runDoctor(
  request: DoctorRequest,
  env: InstallerEnv,
): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [await checkHealth(env)];
  const tokenFile = join(env.dataDir, 'hook-token');
  const tokenRead = await readConfigText(tokenFile);
  const token = tokenRead.ok && tokenRead.value !== null ? tokenRead.value.trim() : '';
  findings.push(
    token
      ? finding(null, 'hook-token', true, `the hook token is in ${tokenFile}`, null)
      : finding(
          null,
          'hook-token',
          false,
          `no hook token in ${tokenFile}`,
          `${START_REMEDY} The companion creates the token on its first start.`,
        ),
  );
  const manifest = await readManifest(env);
  if (!manifest.ok) {
    findings.push(
      finding(
        null,
        'manifest',
        false,
        manifest.error.message,
        'Move the manifest aside and reinstall the hooks.',
      ),
    );
    return findings;
  }
  const installs = manifest.value.installs.filter(
    (i) => !request.vendor || i.vendor === request.vendor,
  );
  if (installs.length === 0) {
    findings.push(
      finding(
        request.vendor ?? null,
        'installed',
        false,
        request.vendor
          ? `no ${VENDOR_NAMES[request.vendor]} hooks are installed`
          : 'no hooks are installed',
        `Run \`aep-companion install --vendor ${request.vendor ?? '<vendor>'}\`.`,
      ),
    );
  }
  for (const install of installs)
    findings.push(...(await checkInstall(install, manifest.value, env, token, tokenFile)));
  return findings;
}
