/** `aep-companion doctor` (placeholder until its issue lands). */
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('aep-companion doctor: not available yet\n');
  return 1;
}
