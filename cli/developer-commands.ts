import { parseArgs } from 'node:util';
import type { EventType } from '../services/contract/enums.js';
import { ApiError, BadUrlError, CliError, createGatewayClient, resolveBaseUrl } from './client.js';
import { listen } from './listen.js';
import type { CliIo } from './io.js';
import { printable, printableJson } from './printable.js';
import { objectLine, trigger, triggerProblem } from './trigger.js';

// `svc listen` and `svc trigger`: a developer's commands, against the public /v1 API with a
// merchant's test key, where every other `svc` command is the operator's (management API and
// operator token). main.ts hands these two over before its own parsing.

export const DEVELOPER_USAGE = [
  'usage: svc listen --forward-to URL [--events TYPES] [--api-key KEY] [--api-url URL] [--json]',
  '         stream the project\'s events and forward each, signed, to URL (test keys only)',
  '       svc trigger EVENT_TYPE [--api-key KEY] [--api-url URL] [--json]',
  '         run a sandbox flow that emits EVENT_TYPE and print the objects it created',
  '',
  'The key comes from --api-key, else SVC_API_KEY (which keeps it out of `ps`); it must be a test key.',
  '--events takes event types, `*` or `prefix.*`, comma-separated (payment.successful,refund.*).',
].join('\n');

const OPTIONS = {
  'api-key': { type: 'string' }, 'api-url': { type: 'string' }, 'forward-to': { type: 'string' },
  events: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
} as const;

class Usage extends Error {}

function apiKeyOf(flag: string | undefined, env: CliIo['env']): string {
  const key = (flag ?? env.SVC_API_KEY ?? '').trim();
  if (key === '') throw new Usage('an API key is required: --api-key KEY or SVC_API_KEY');
  if (!/^[\x21-\x7e]+$/.test(key)) throw new Usage('the API key has spaces or non-ASCII characters; check it');
  return key;
}

function forwardUrl(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') throw new Usage('--forward-to URL is required');
  try {
    const url = new URL(raw.trim());
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // described below
  }
  throw new Usage(`--forward-to must be an http or https URL, got "${raw}"`);
}

/** Ctrl-C (or a SIGTERM) stops the listener; the process then exits 0. */
function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return controller.signal;
}

async function run(command: string, argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  if (values.help) {
    io.stdout(`${DEVELOPER_USAGE}\n`);
    return 0;
  }
  const words = positionals.filter((w) => w !== command);
  if (command === 'listen' && words.length > 0) throw new Usage(`unexpected argument "${words[0]}"`);
  if (command === 'trigger' && words.length !== 1) {
    throw new Usage(words.length === 0 ? 'EVENT_TYPE is required' : `unexpected argument "${words[1]}"`);
  }
  const problem = command === 'trigger' ? triggerProblem(words[0]) : undefined;
  if (problem) throw new Usage(problem);
  const apiKey = apiKeyOf(values['api-key'], io.env);
  let baseUrl: string;
  try {
    baseUrl = resolveBaseUrl(values['api-url'], io.env, io.cwd);
  } catch (err) {
    throw err instanceof BadUrlError ? new Usage(err.message) : err;
  }
  if (command === 'listen') {
    return listen({
      baseUrl, apiKey, forwardTo: forwardUrl(values['forward-to']), events: values.events, json: values.json,
      out: (line) => io.stdout(printable([line])), err: (line) => io.stderr(printable([line])), signal: interruptSignal(), fetch: io.fetch,
    });
  }
  const result = await trigger(createGatewayClient(baseUrl, '/v1', apiKey, io.fetch), words[0] as EventType);
  if (values.json) io.stdout(printableJson(result));
  else io.stdout(printable([...result.objects.map((o) => objectLine(o, baseUrl)), ...(result.later ? [`next: ${result.later}`] : [])]));
  return 0;
}

/** The runner for `svc listen` / `svc trigger`, or undefined when argv is another command. */
export function developerCommand(argv: string[]): ((io: CliIo) => Promise<number>) | undefined {
  const { positionals } = parseArgs({ args: argv, options: OPTIONS, strict: false, allowPositionals: true });
  const command = positionals[0] === 'help' ? positionals[1] : positionals[0];
  if (command !== 'listen' && command !== 'trigger') return undefined;
  const args = positionals[0] === 'help' ? [command, '--help'] : argv;
  return async (io) => {
    try {
      return await run(command, args, io);
    } catch (err) {
      if (err instanceof Usage || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
        io.stderr(`error: ${(err as Error).message}\n\n${DEVELOPER_USAGE}\n`);
        return 2;
      }
      if (err instanceof ApiError) {
        io.stderr(printable([`error: ${err.code}: ${err.message}`]));
        return 1;
      }
      if (err instanceof CliError) {
        io.stderr(printable([`error: ${err.message}`]));
        return 1;
      }
      throw err;
    }
  };
}
