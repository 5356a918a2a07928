/**
 * `aep-companion doctor [--vendor v] [--json] [--data-dir DIR]`: daemon health, hook token, and a
 * synthetic hook through every installed URL or command. Exit 0 when every check passes, 1 otherwise.
 */
import { isVendorId, VENDORS } from '../../../common/vendors';
import { helpOrRefusal, parseArgs, resolveDataDir } from '../locate-daemon';
import { installerEnvFromProcess } from './install';

const USAGE = `usage: aep-companion doctor [--vendor <${VENDORS.join('|')}>] [--json] [--data-dir DIR]\n`;
const KNOWN = new Set(['vendor', 'json', 'data-dir', 'help']);

/** Runs `doctor`. */
export async function run(args: string[]): Promise<number> {
  const { positionals, options } = parseArgs(args, ['vendor', 'data-dir']);
  const refused = helpOrRefusal('doctor', { positionals, options }, KNOWN, USAGE);
  if (refused !== null) return refused;
  const vendor = options.get('vendor');
  if (vendor !== undefined && !isVendorId(vendor)) {
    process.stderr.write(`aep-companion doctor: --vendor must be one of ${VENDORS.join(', ')}\n`);
    return 2;
  }
  const dataDirFlag = options.get('data-dir');
  const env = installerEnvFromProcess(
    resolveDataDir(typeof dataDirFlag === 'string' ? dataDirFlag : undefined),
  );
  const { runDoctor } = await import('../../core/installer');
  const findings = await runDoctor(vendor ? { vendor } : {}, env);
  if (!vendor) {
    const { openHandsDoctor } = await import('../../core/vendors/openhands/doctor');
    findings.push(...(await openHandsDoctor(env.dataDir)));
  }
  if (options.has('json')) {
    process.stdout.write(`${JSON.stringify(findings, null, 2)}\n`);
  } else {
    for (const f of findings) {
      const who = f.vendor ? `${f.vendor} ` : '';
      process.stdout.write(`${f.unchecked ? 'note' : f.ok ? 'ok  ' : 'FAIL'} ${who}${f.check}: ${f.message}\n`);
      if (f.remedy) process.stdout.write(`     → ${f.remedy}\n`);
    }
  }
  return findings.every((f) => f.ok) ? 0 : 1;
}
