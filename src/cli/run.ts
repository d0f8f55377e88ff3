import { parseArgs } from 'node:util';

/**
 * The command line is a table of commands (see commands.ts); this file turns argv into one of them.
 * Every command gets `--help` (its own usage on stdout, exit 0). Every mistake in how a command is called
 * is one line on stderr and exit code 2, never a stack trace.
 */

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** What the value stands for in usage lines (`--name N`); string options only. */
  value?: string;
  description: string;
  required?: boolean;
}

export interface PositionalSpec {
  name: string;
  description: string;
}

export interface CommandInput {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export interface Command {
  /** The words that name it after `firstcrack`: ['serve'], ['org', 'create']. */
  path: string[];
  summary: string;
  /** Longer help, shown by `--help` under the usage line. */
  details?: string;
  options?: Record<string, OptionSpec>;
  positionals?: PositionalSpec[];
  run(input: CommandInput): Promise<void>;
}

/** A mistake in how the command was called, or input it cannot take: one line, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose `--help` explains the mistake. */
    readonly command?: Command,
  ) {
    super(message);
  }
}

/** A failure the user can act on, with its own exit code (a locked data directory, bad configuration). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const HELP_FLAGS = new Set(['--help', '-h']);

export const commandName = (command: Command) => command.path.join(' ');

export function synopsis(command: Command): string {
  const options = Object.entries(command.options ?? {}).map(([name, spec]) => {
    const flag = spec.type === 'string' ? `--${name} ${spec.value ?? 'VALUE'}` : `--${name}`;
    return spec.required ? flag : `[${flag}]`;
  });
  const positionals = (command.positionals ?? []).map((p) => p.name);
  return [commandName(command), ...positionals, ...options].join(' ');
}

export function commandHelp(command: Command): string {
  const rows: [string, string][] = [
    ...(command.positionals ?? []).map((p): [string, string] => [p.name, p.description]),
    ...Object.entries(command.options ?? {}).map(([name, spec]): [string, string] => [
      spec.type === 'string' ? `--${name} ${spec.value ?? 'VALUE'}` : `--${name}`,
      spec.description + (spec.required ? ' (required)' : ''),
    ]),
    ['-h, --help', 'show this help'],
  ];
  const width = Math.max(...rows.map(([left]) => left.length));
  return [
    `Usage: firstcrack ${synopsis(command)}`,
    '',
    command.summary,
    ...(command.details ? ['', command.details] : []),
    '',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`),
  ].join('\n');
}

/** The usage of a group of commands (`firstcrack org --help`) or, with an empty prefix, of all of them. */
export function groupHelp(commands: Command[], prefix: string[], epilogue = ''): string {
  const members = commands.filter((c) => prefix.every((word, i) => c.path[i] === word));
  const lines = members.map((c) => [synopsis(c), c.summary] as const);
  const width = Math.max(...lines.map(([left]) => left.length));
  return [
    `Usage: firstcrack ${prefix.length ? `${prefix.join(' ')} ` : ''}<command>`,
    '',
    ...lines.map(([left, right]) => (left.length > 60 ? `  ${left}\n  ${' '.repeat(Math.min(width, 60))}  ${right}` : `  ${left.padEnd(Math.min(width, 60))}  ${right}`)),
    '',
    `Run \`firstcrack ${prefix.length ? `${prefix.join(' ')} ` : ''}<command> --help\` for a command's options.`,
    ...(epilogue ? ['', epilogue] : []),
  ].join('\n');
}

/** Turns node:util parseArgs' messages (some of them several lines) into one line naming the option. */
function describeParseError(error: Error & { code?: string }): string {
  const option = /'(--?[\w-]+)/.exec(error.message)?.[1] ?? 'an option';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return error.message.includes('does not take an argument') ? `${option} takes no value` : `${option} needs a value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${/Unexpected argument '([^']*)'/.exec(error.message)?.[1] ?? ''}'`;
    default:
      return error.message.split('\n')[0];
  }
}

export function parseCommandArgs(command: Command, args: string[]): CommandInput {
  const options = Object.fromEntries(Object.entries(command.options ?? {}).map(([name, spec]) => [name, { type: spec.type }]));
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: (command.positionals?.length ?? 0) > 0, strict: true });
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new UsageError(describeParseError(error as Error), command);
    throw error;
  }
  for (const [name, spec] of Object.entries(command.options ?? {})) {
    if (spec.required && parsed.values[name] === undefined) throw new UsageError(`--${name} is required`, command);
  }
  const expected = command.positionals ?? [];
  if (parsed.positionals.length < expected.length) {
    throw new UsageError(`${commandName(command)} needs ${expected.slice(parsed.positionals.length).map((p) => p.name).join(' ')}`, command);
  }
  if (parsed.positionals.length > expected.length) throw new UsageError(`unexpected argument '${parsed.positionals[expected.length]}'`, command);
  return { values: parsed.values as CommandInput['values'], positionals: parsed.positionals };
}

/** The command argv names, the longest path first (so `org create` wins over a future `org`). */
function findCommand(commands: Command[], argv: string[]): Command | undefined {
  return [...commands]
    .sort((a, b) => b.path.length - a.path.length)
    .find((c) => c.path.every((word, i) => argv[i] === word));
}

/** Help flags count only before `--`, where everything is a value. */
const asksForHelp = (args: string[]) => {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => HELP_FLAGS.has(a));
};

/** Runs the command argv names; answers the process exit code (a server keeps running after 0). */
export async function runCli(commands: Command[], argv: string[], epilogue = ''): Promise<number> {
  try {
    const [first] = argv;
    if (first === undefined || first === 'help' || HELP_FLAGS.has(first)) {
      const topic = first === 'help' ? argv.slice(1) : [];
      const command = findCommand(commands, topic);
      if (command && command.path.length === topic.length) console.log(commandHelp(command));
      else if (topic.length === 0) console.log(groupHelp(commands, [], epilogue));
      else if (commands.some((c) => topic.every((word, i) => c.path[i] === word))) console.log(groupHelp(commands, topic));
      else throw new UsageError(`no command ${topic.join(' ')}`);
      return 0;
    }
    const command = findCommand(commands, argv);
    if (!command) {
      // The longest prefix of argv that names a group of commands says which usage to point at.
      let group: string[] = [];
      while (group.length < argv.length && commands.some((c) => [...group, argv[group.length]].every((word, i) => c.path[i] === word))) {
        group = [...group, argv[group.length]];
      }
      if (group.length === 0) throw new UsageError(`unknown command '${first}'`);
      const rest = argv.slice(group.length);
      if (rest.length === 0 || HELP_FLAGS.has(rest[0])) {
        if (rest.length > 0) {
          console.log(groupHelp(commands, group));
          return 0;
        }
        const subcommands = commands.filter((c) => group.every((w, i) => c.path[i] === w)).map((c) => c.path[group.length]);
        throw new UsageError(`${group.join(' ')} needs a command: ${[...new Set(subcommands)].join(', ')} (see \`firstcrack ${group.join(' ')} --help\`)`);
      }
      throw new UsageError(`unknown command '${group.join(' ')} ${rest[0]}' (see \`firstcrack ${group.join(' ')} --help\`)`);
    }
    const args = argv.slice(command.path.length);
    if (asksForHelp(args)) {
      console.log(commandHelp(command));
      return 0;
    }
    await command.run(parseCommandArgs(command, args));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const hint = error.command ? ` (see \`firstcrack ${commandName(error.command)} --help\`)` : error.message.includes('--help') ? '' : ' (see `firstcrack --help`)';
      console.error(`firstcrack: ${error.message.replace(/\.$/, '')}${hint}`);
      return 2;
    }
    if (error instanceof CliError) {
      console.error(`firstcrack: ${error.message}`);
      return error.exitCode;
    }
    throw error;
  }
}
