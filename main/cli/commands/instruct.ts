/** `aep-companion instruct` (placeholder until its issue lands). */
export async function run(_args: string[]): Promise<number> {
  process.stderr.write('aep-companion instruct: not available yet\n');
  return 1;
}
