/** `aep-companion install` (placeholder until its issue lands). */
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('aep-companion install: not available yet\n');
  return 1;
}
