/** `aep-companion steering` (placeholder until its issue lands). */
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('aep-companion steering: not available yet\n');
  return 1;
}
