/** The exact `aep-companion install` command that reproduces one recorded install (opt-ins and transport kept). */
import { quoteWord } from './hook-target';
import type { ManifestInstall } from './manifest';

/** The command line, words quoted for a POSIX shell. */
export function reinstallCommand(
  install: Pick<
    ManifestInstall,
    'vendor' | 'scope' | 'project' | 'instruct' | 'permissions' | 'transport'
  >,
  transport: ManifestInstall['transport'] = install.transport,
): string {
  const words = ['aep-companion', 'install', '--vendor', install.vendor];
  if (install.scope === 'project' && install.project)
    words.push('--scope', 'project', '--project', quoteWord(install.project));
  if (install.instruct) words.push('--instruct');
  if (install.permissions) words.push('--permissions');
  words.push('--transport', transport);
  return words.join(' ');
}
