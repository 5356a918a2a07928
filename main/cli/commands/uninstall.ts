/** `aep-companion uninstall` (placeholder until its issue lands). */
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('aep-companion uninstall: not available yet\n');
  return 1;
}
