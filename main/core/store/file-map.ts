/**
 * A shared, writable memory map of the start of a file (`@riaskov/mmap-io`, an optional
 * dependency). Bytes stored into the map are in the kernel's page cache the moment they are
 * stored, as a `write` would have put them there: they survive a kill -9 of this process (not a
 * power loss, which the write path does not survive either without an fsync). A record stored this
 * way costs a copy instead of a system call.
 *
 * The map is refused (undefined, and the caller writes) where it cannot be had or is not safe:
 * - inside Electron, whose V8 sandbox aborts the process on a buffer over memory it did not
 *   allocate (Electron 21 and later);
 * - off Linux and macOS;
 * - when the module is not installed or did not build;
 * - when `AEP_FILE_MAP=0` is set (the write path, for comparison and for tests).
 *
 * The mapped range is written full of zeros first, with `write`, so its disk blocks exist before a
 * store touches them: a store into a page whose block cannot be allocated (a full disk) would
 * otherwise kill the process with SIGBUS. The file must not be truncated below the map while it
 * is mapped (SIGBUS too): only its owner opens it, and it never truncates it.
 */
import { fstatSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';

/** What this module needs of the binding. */
interface MmapBinding {
  map(size: number, protection: number, flags: number, fd: number, offset?: number): Buffer;
  readonly PROT_READ: number;
  readonly PROT_WRITE: number;
  readonly MAP_SHARED: number;
}

let binding: MmapBinding | null | undefined;

/** Why the map is not used here, or undefined when it can be. */
export function fileMapRefusal(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.AEP_FILE_MAP === '0') return 'AEP_FILE_MAP=0';
  if (process.versions.electron !== undefined)
    return "Electron's V8 sandbox refuses buffers over mapped memory";
  if (process.platform !== 'linux' && process.platform !== 'darwin')
    return `not on ${process.platform}`;
  if (load() === null)
    return 'the optional module @riaskov/mmap-io is not installed or did not build';
  return undefined;
}

function load(): MmapBinding | null {
  if (binding !== undefined) return binding;
  try {
    // A name the bundlers leave alone: the module is native and optional.
    const name = ['@riaskov', 'mmap-io'].join('/');
    const module = createRequire(import.meta.url)(name) as MmapBinding & { default?: MmapBinding };
    binding = typeof module.map === 'function' ? module : (module.default ?? null);
  } catch {
    binding = null;
  }
  return binding;
}

/** Zeros written in one call while a file grows to its map's size. */
const ZEROS = Buffer.alloc(64 * 1024);

/**
 * Maps the first `size` bytes of the file open (read and write) as `fd`, first growing the file to
 * `size` with zeros where it is shorter. Undefined when the map is refused (see the top) or fails;
 * the caller then writes with `write`.
 */
export function mapFileStart(fd: number, size: number): Buffer | undefined {
  if (fileMapRefusal() !== undefined) return undefined;
  try {
    const length = fstatSync(fd).size;
    for (let at = length; at < size;) {
      const n = writeSync(fd, ZEROS, 0, Math.min(ZEROS.length, size - at), at);
      if (n <= 0) return undefined;
      at += n;
    }
    const mmap = load()!;
    return mmap.map(size, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED, fd, 0);
  } catch {
    return undefined;
  }
}

/**
 * Puts `bytes` at `position` of the file open as `fd`, in full: copied into `map` (the file's start,
 * from `mapFileStart`) where they fit, which puts them in the page cache as a `write` would, else
 * written. A short write means the disk is full: throws an `SQLITE_FULL` error naming `what` (the
 * bytes are torn, and a reader's CRC check ignores them).
 */
export function putAt(fd: number, map: Buffer | undefined, bytes: Buffer, position: number, what: string): void {
  const length = bytes.length;
  if (map !== undefined && position + length <= map.length) {
    bytes.copy(map, position);
    return;
  }
  const written = writeSync(fd, bytes, 0, length, position);
  if (written !== length)
    throw Object.assign(new Error(`${what}: wrote ${written} of ${length} bytes`), { code: 'SQLITE_FULL' });
}
