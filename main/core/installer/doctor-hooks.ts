/**
 * Doctor's synthetic hook through one installed entry: HTTP entries are posted to the daemon's
 * own address only (one naming another port is reported, never sent the token), command entries
 * run only the launcher or script the manifest recorded (doctor-command.ts).
 */
import type { DoctorFinding } from '../../../common/api';
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import { runnableHook } from './doctor-command';
import { probeCommand, probeHttp, type ProbeOutcome } from './doctor-probes';
import { quoteWord, TOKEN_VAR } from './hook-target';
import { sameDaemon } from './hook-ports';
import type { InstallerEnv } from './installer-env';
import type { Manifest, ManifestInstall } from './manifest';
import { reinstallCommand } from './reinstall-command';
import type { HookProbe, OurEntry } from './vendor-installer';

/** Turns a probe outcome into a finding (doctor.ts words it). */
export type OutcomeFinding = (
  vendor: VendorId,
  check: string,
  where: string,
  outcome: ProbeOutcome,
) => DoctorFinding;

/** What one probe needs from doctor. */
export interface ProbeContext {
  readonly install: ManifestInstall;
  readonly manifest: Manifest;
  readonly env: InstallerEnv;
  readonly token: string;
  readonly tokenFile: string;
  readonly payload: unknown;
  readonly file: string;
  readonly outcomeFinding: OutcomeFinding;
}

function fail(vendor: VendorId, check: string, message: string, remedy: string): DoctorFinding {
  return { vendor, check, ok: false, message, remedy };
}

/** The findings of one HTTP entry. */
export async function httpFindings(
  probe: Extract<HookProbe, { kind: 'http' }>,
  c: ProbeContext,
): Promise<DoctorFinding[]> {
  const vendor = c.install.vendor;
  const name = VENDOR_NAMES[vendor];
  const out: DoctorFinding[] = [];
  if (!sameDaemon(probe.url, c.env.daemonUrl)) {
    out.push(
      fail(
        vendor,
        'hook-port',
        `the ${name} hooks in ${c.file} post to ${new URL(probe.url).origin}, but the daemon listens on ${new URL(c.env.daemonUrl).origin}: they do not arrive (doctor did not send them the hook token)`,
        `Reinstall them for this daemon (the console's status bar offers it in one click), or run \`${reinstallCommand(c.install)}\`; \`${reinstallCommand(c.install, 'command')}\` switches to the launcher, which finds the daemon on any port.`,
      ),
    );
    return out;
  }
  const tokenFile = quoteWord(c.tokenFile);
  const envToken = c.env.processEnv?.[TOKEN_VAR];
  if (!envToken) {
    out.push(
      fail(
        vendor,
        'token-env',
        `${TOKEN_VAR} is not set where doctor runs; ${name}'s HTTP hooks send it as the hook token, so every shell that starts ${name} needs it`,
        `Export it in the shell profile of every shell you start ${name} from: \`export ${TOKEN_VAR}="$(cat ${tokenFile})"\`. Or switch to the launcher, which reads the token file itself: \`${reinstallCommand(c.install, 'command')}\`.`,
      ),
    );
  } else if (envToken !== c.token) {
    out.push(
      fail(
        vendor,
        'token-env',
        `${TOKEN_VAR} where doctor runs differs from ${c.tokenFile}`,
        `Export the current token: \`export ${TOKEN_VAR}="$(cat ${tokenFile})"\`.`,
      ),
    );
  }
  const outcome = await probeHttp(probe, c.payload, envToken ?? c.token, c.env.daemonUrl, 5000);
  out.push(c.outcomeFinding(vendor, 'hook-http', probe.url, outcome));
  return out;
}

/** The findings of one command entry. */
export async function commandFindings(
  probe: Extract<HookProbe, { kind: 'command' }>,
  entry: OurEntry,
  c: ProbeContext,
): Promise<DoctorFinding[]> {
  const vendor = c.install.vendor;
  const runnable = runnableHook(vendor, probe, entry, c.install, c.manifest, c.env);
  if (!runnable.ok)
    return [
      fail(
        vendor,
        'hook-command',
        `${c.file}: ${runnable.reason}`,
        `Reinstall to put the companion's own entry back: \`${reinstallCommand(c.install)}\`.`,
      ),
    ];
  const outcome = await probeCommand(runnable.value, c.payload, c.env, 20_000);
  if (outcome.url && !sameDaemon(outcome.url, c.env.daemonUrl))
    return [
      fail(
        vendor,
        'hook-command',
        `the launcher reached ${new URL(outcome.url).origin}, not the daemon at ${new URL(c.env.daemonUrl).origin}`,
        `Start the companion with the data directory ${c.env.dataDir} (the launcher finds it through its daemon.json), or unset AEP_COMPANION_URL where you start ${VENDOR_NAMES[vendor]}.`,
      ),
    ];
  return [c.outcomeFinding(vendor, 'hook-command', `\`${probe.command}\``, outcome)];
}
