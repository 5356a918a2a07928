/**
 * Where the installer may write. A config path may pass through symbolic links (a dotfile
 * manager linking `~/.claude/settings.json` into `~/dotfiles`) only while every link stays inside
 * the root the write belongs to: the project for a project-scope install, the home directory for
 * the user's own configs, the data directory for the launcher, backups and manifest. A repository
 * whose `.claude/` or `.github/hooks/aep-companion.json` links elsewhere would otherwise make an
 * install overwrite any file the user can write.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { InstallScope } from '../../../common/api';

/** Where an install goes: the user's config, or one project's. */
export interface InstallTarget {
  readonly scope: InstallScope;
  /** Absolute project directory for project scope, else null. */
  readonly project: string | null;
}

/** Thrown by writes that would leave their root through a symbolic link. */
export class ConfinementError extends Error {
  override readonly name = 'ConfinementError';
}

/** True when `path` is `root` or inside it (both absolute, normalised). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of `path`, resolving through its deepest existing ancestor (the rest need not exist). */
async function realOf(path: string): Promise<string> {
  const rest: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(await realpath(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      rest.push(current.slice(parent.length).replace(/^[\\/]/, ''));
      current = parent;
    }
  }
}

/** The first component of `path` below `root` that is a symbolic link, with where it points. */
async function firstLink(path: string, root: string): Promise<{ link: string; to: string } | null> {
  const parts = relative(root, path).split(sep).filter(Boolean);
  let current = root;
  for (const part of parts) {
    current = join(current, part);
    try {
      if ((await lstat(current)).isSymbolicLink())
        return { link: current, to: resolve(dirname(current), await readlink(current)) };
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * Why writing `path` would leave `root` through a symbolic link, or null when it stays inside.
 * A dangling link at the file itself is fine: the atomic rename replaces the link, not its target.
 */
export async function confinementProblem(path: string, root: string): Promise<string | null> {
  const absolute = resolve(path);
  const realRoot = await realOf(root);
  const real = await realOf(absolute);
  if (isInside(real, realRoot)) return null;
  const where = isInside(absolute, resolve(root)) ? await firstLink(absolute, resolve(root)) : null;
  const what = where
    ? `${where.link} is a symbolic link to ${where.to}`
    : `${absolute} resolves to ${real}`;
  return `${what}, outside ${root}: the installer does not write through links that leave it. Replace the link with a real file or folder, or install somewhere else.`;
}

/** Throws a `ConfinementError` when writing `path` would leave `root`. */
export async function assertConfined(path: string, root: string): Promise<void> {
  const problem = await confinementProblem(path, root);
  if (problem) throw new ConfinementError(problem);
}

/** The root a vendor config write is confined to: the project, else the home directory (else the file's folder). */
export function configRoot(path: string, target: InstallTarget, home: string): string {
  if (target.scope === 'project' && target.project) return target.project;
  return isInside(resolve(path), resolve(home)) ? home : dirname(path);
}
