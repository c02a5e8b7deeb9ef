import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ApiError, BadUrlError, CliError, createManagementClient, resolveBaseUrl, resolveToken } from './client.js';
import { SHOWN_ONCE, type Command } from './command.js';
import { COMMANDS, findCommand, generalUsage, groupCommands, usageOf } from './commands.js';
import { developerCommand } from './developer-commands.js';
import type { CliIo } from './io.js';
import { printable, printableJson } from './printable.js';
import { SIMULATE_USAGE, simulateCommand } from './simulate-command.js';

/**
 * `svc`: parses argv, picks the command, calls the management API, prints the result.
 * Exit codes: 0 done, 1 the API refused or could not be reached, 2 a usage mistake.
 */

export type { CliIo } from './io.js';

type Options = NonNullable<ParseArgsConfig['options']>;

const COMMON: Options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  'api-url': { type: 'string' },
};

function optionsOf(names: string[]): Options {
  return Object.fromEntries(names.map((n) => [n, { type: 'string' as const }]));
}

// Declaring every command's options lets the first pass find the command words wherever the
// flags stand, e.g. `svc --json key list --project X`, without taking a flag's value for a word.
const ALL_OPTIONS: Options = { ...COMMON, ...optionsOf(COMMANDS.flatMap((c) => c.options)) };

class UsageError extends Error {
  constructor(message: string | undefined, readonly usage: string) {
    super(message);
  }
}

/** Usage the caller asked for (`help`, `--help`): on stdout with exit 0, as `svc listen --help` and `svc routing simulate --help` answer. */
class HelpAsked extends UsageError {
  constructor(usage: string) {
    super(undefined, usage);
  }
}

function commandUsage(command: Command): string {
  return `usage: ${usageOf(command)}\n  ${command.summary}`;
}

function groupUsage(commands: Command[]): string {
  const lines = commands.map((c, i) => `${i === 0 ? 'usage: ' : '       '}${usageOf(c)}`);
  // svc routing simulate is the group's too, though it runs offline (simulate-command.ts).
  if (commands[0]?.words[0] === 'routing') lines.push(SIMULATE_USAGE.split('\n')[0]!.replace('usage: ', '       '));
  return lines.join('\n');
}

interface Invocation {
  command: Command;
  values: Record<string, string | undefined>;
  positionals: string[];
  json: boolean;
}

function parseInvocation(argv: string[]): Invocation {
  const first = parseArgs({ args: argv, options: ALL_OPTIONS, strict: false, allowPositionals: true });
  let words = first.positionals;
  const asksHelp = words[0] === 'help' || first.values.help === true;
  if (words[0] === 'help') words = words.slice(1);
  const [group, action] = words;
  if (group === undefined) throw asksHelp ? new HelpAsked(generalUsage()) : new UsageError(undefined, generalUsage());
  const command = findCommand(group, action);
  if (!command) {
    const group_ = groupCommands(group);
    if (group_.length === 0) throw new UsageError(`unknown command "${group}"`, generalUsage());
    if (asksHelp && action === undefined) throw new HelpAsked(groupUsage(group_));
    const what = action === undefined ? `"${group}" needs a subcommand` : `unknown command "${group} ${action}"`;
    throw new UsageError(what, groupUsage(group_));
  }
  if (asksHelp) throw new HelpAsked(commandUsage(command));

  let parsed;
  try {
    parsed = parseArgs({
      args: argv, options: { ...COMMON, ...optionsOf(command.options) }, strict: true, allowPositionals: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message, commandUsage(command));
  }
  const positionals = parsed.positionals.slice(command.words.length);
  if (positionals.length < command.positionals.length) {
    throw new UsageError(`${command.positionals[positionals.length]} is required`, commandUsage(command));
  }
  if (!command.variadic && positionals.length > command.positionals.length) {
    throw new UsageError(`unexpected argument "${positionals[command.positionals.length]}"`, commandUsage(command));
  }
  const values: Record<string, string | undefined> = {};
  for (const name of [...command.options, 'api-url']) values[name] = parsed.values[name] as string | undefined;
  const problem = command.check(values, positionals);
  if (problem) throw new UsageError(problem, commandUsage(command));
  return { command, values, positionals, json: parsed.values.json === true };
}

/** Runs one `svc` invocation and returns its exit code; nothing here exits the process. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // svc listen / svc trigger use a merchant's API key, not the operator token (developer-commands.ts);
  // svc routing simulate runs offline (simulate-command.ts).
  const own = developerCommand(argv) ?? simulateCommand(argv);
  if (own) return own(io);
  let invocation: Invocation;
  let baseUrl: string;
  try {
    invocation = parseInvocation(argv);
    try {
      baseUrl = resolveBaseUrl(invocation.values['api-url'], io.env, io.cwd);
    } catch (err) {
      if (err instanceof BadUrlError) throw new UsageError(err.message, commandUsage(invocation.command));
      throw err;
    }
  } catch (err) {
    if (err instanceof HelpAsked) {
      io.stdout(`${err.usage}\n`);
      return 0;
    }
    if (err instanceof UsageError) {
      io.stderr(`${err.message ? `error: ${err.message}\n\n` : ''}${err.usage}\n`);
      return 2;
    }
    throw err;
  }

  const { command, values, positionals, json } = invocation;
  try {
    const { token, source } = await resolveToken(io.env, io.cwd);
    const api = createManagementClient(baseUrl, token, io.fetch);
    try {
      const body = await command.call(api, values, positionals);
      if (json) {
        io.stdout(printableJson(body));
        // stdout stays one JSON object; the reminder goes where a person still sees it.
        if (typeof body.secret === 'string') io.stderr(`${SHOWN_ONCE}\n`);
      } else {
        io.stdout(printable(command.human(body)));
      }
      return 0;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_api_key') {
        throw new ApiError(err.status, err.body, `check the operator token from ${source}`);
      }
      // The gateway mounts /manage only when it has an operator token, so a missing route means that.
      if (err instanceof ApiError && err.code === 'route_not_found') {
        throw new ApiError(err.status, err.body, `${baseUrl} has no management API; is OPERATOR_TOKEN set there?`);
      }
      throw err;
    }
  } catch (err) {
    if (err instanceof ApiError) {
      if (json) io.stdout(printableJson(err.body));
      io.stderr(printable([`error: ${err.code}: ${err.message}`, ...(err.hint ? [`hint: ${err.hint}`] : [])]));
      return 1;
    }
    if (err instanceof CliError) {
      io.stderr(printable([`error: ${err.message}`]));
      return 1;
    }
    throw err;
  }
}

/** The process entry that bin/svc.js calls. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await runCli(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  });
}

// Importing this module runs nothing, so `node dist/cli/main.js` has to start itself.
function isEntry(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(resolve(process.argv[1])) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry()) await main();
