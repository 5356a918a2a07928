/**
 * The `aep-companion` command line. Each command lives in its own module under ./commands and is
 * loaded only when called, so the hook shim stays fast.
 */

type Command = (args: string[]) => Promise<number>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: { summary: 'run the daemon headless', load: async () => (await import('./commands/serve')).run },
  hook: { summary: 'hook shim: payload on stdin, reply on stdout', load: async () => (await import('./commands/hook')).run },
  instruct: { summary: 'send a steering instruction to a session', load: async () => (await import('./commands/instruct')).run },
  steering: { summary: 'turn steering on or off (the kill switch)', load: async () => (await import('./commands/steering')).run },
  install: { summary: 'install hooks for a vendor', load: async () => (await import('./commands/install')).run },
  uninstall: { summary: 'remove our hooks for a vendor', load: async () => (await import('./commands/uninstall')).run },
  doctor: { summary: 'check installed hooks, daemon health and tokens', load: async () => (await import('./commands/doctor')).run },
  launch: { summary: 'start an agent (claude-code, codex, qwen-code, gemini-cli) in a directory', load: async () => (await import('./commands/launch')).run },
  prompt: { summary: 'send a prompt to a launched session (queued while it works)', load: async () => (await import('./commands/prompt')).run },
  openhands: { summary: 'connect to an OpenHands agent server (connect, disconnect, status)', load: async () => (await import('./commands/openhands')).run },
  cancel: { summary: 'stop the running turn of a launched session', load: async () => (await import('./commands/cancel')).run },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: aep-companion <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

/** Runs one command and returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`aep-companion: unknown command '${name}'\n${usage()}`);
    return 2;
  }
  const run = await command.load();
  return run(rest);
}
