import { parseArgs } from 'node:util';
import { wholeOf } from './command.js';
import type { CliIo } from './io.js';
import { printable, printableJson } from './printable.js';

// `svc routing simulate`: the routing simulator, run in this process against no deployment. It
// replays a synthetic day through routing-risk's own planner and strategies (the one command that
// imports a part's index, loaded only when asked for), so an operator can compare the strategies
// before choosing one for a rule. main.ts hands it over before its own parsing, like svc listen.

export const SIMULATE_USAGE = [
  'usage: svc routing simulate [--payments N] [--seed S] [--json]',
  '         replay a synthetic day of card payments through the routing planner and strategies,',
  '         offline, and print acceptance and cost per strategy next to the oracle',
  '',
  "--payments: the day's payments, 1 to 1,000,000 (20,000); --seed: a whole number (26), the same seed",
  'replaying the same day.',
].join('\n');

const MAX_PAYMENTS = 1_000_000;
const OPTIONS = {
  payments: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
} as const;

class Usage extends Error {}

function wholeIn(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = wholeOf(value);
  if (n === undefined || n < min || n > max) throw new Usage(`--${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  if (values.help) {
    io.stdout(`${SIMULATE_USAGE}\n`);
    return 0;
  }
  if (positionals[1] !== 'simulate') {
    throw new Usage(positionals[1] === undefined ? '"routing" needs a subcommand' : `unknown command "routing ${positionals[1]}"`);
  }
  if (positionals.length > 2) throw new Usage(`unexpected argument "${positionals[2]}"`);
  const payments = wholeIn('payments', values.payments, 1, MAX_PAYMENTS);
  const seed = wholeIn('seed', values.seed, 0, 0xffff_ffff);
  const { simulateRouting, simulationReport } = await import('../services/routing-risk/index.js');
  const simulation = simulateRouting({ payments, seed });
  io.stdout(values.json ? printableJson(simulation) : printable(simulationReport(simulation)));
  return 0;
}

/** The runner for `svc routing simulate ...`, or undefined when argv is another command (`svc routing report` is the table's). */
export function simulateCommand(argv: string[]): ((io: CliIo) => Promise<number>) | undefined {
  const { positionals } = parseArgs({ args: argv, options: OPTIONS, strict: false, allowPositionals: true });
  const asksHelp = positionals[0] === 'help';
  const [group, name] = asksHelp ? positionals.slice(1) : positionals;
  if (group !== 'routing' || name !== 'simulate') return undefined;
  const args = asksHelp ? ['routing', 'simulate', '--help'] : argv;
  return async (io) => {
    try {
      return await run(args, io);
    } catch (err) {
      if (err instanceof Usage || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
        io.stderr(`error: ${(err as Error).message}\n\n${SIMULATE_USAGE}\n`);
        return 2;
      }
      throw err;
    }
  };
}
