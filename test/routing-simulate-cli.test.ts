import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSvc } from './helpers/svc-cli.js';

// `svc routing simulate` runs the routing simulator (routing-risk's simulator/, the real
// planner and strategies) in the CLI's own process, against no deployment, and prints one row per
// strategy next to the oracle. Run as an operator would: bin/svc.js as a process of its own.

const STRATEGIES = ['priority (Alpha, Beta, Gamma)', 'cheapest', 'success rate', 'elimination (rule order)', 'expected value'];
const ORACLE = 'oracle (best per segment in hindsight)';

/** The table's rows by name: the first 40 columns name the row, the figures follow. */
function rowsOf(stdout: string): Map<string, string[]> {
  const lines = stdout.split('\n');
  const header = lines.findIndex((l) => l.startsWith('strategy '));
  assert.ok(header > 0, stdout);
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(header + 1)) {
    if (line.trim() === '') break;
    rows.set(line.slice(0, 40).trim(), line.slice(40).trim().split(/\s+/));
  }
  return rows;
}

test('svc routing simulate prints every strategy and the oracle, its figures numbers, exploration at most 20 %', async () => {
  const run = await runSvc(['routing', 'simulate', '--payments', '1500', '--seed', '7'], {});
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^routing simulator: 1500 card payments over a day \(seed 7\)/);
  const rows = rowsOf(run.stdout);
  assert.deepEqual([...rows.keys()], [...STRATEGIES, ORACLE]);
  for (const name of STRATEGIES) {
    const [first, final, feeBps, vsOracle, explored, hits, left, back, plan] = rows.get(name)!;
    for (const figure of [first, final, feeBps, vsOracle, explored, hits, left]) assert.ok(Number.isFinite(Number(figure)), `${name}: ${figure}`);
    assert.ok(Number(first) > 50 && Number(first) <= 100, `${name} first attempts ${first} %`);
    assert.ok(Number(final) >= Number(first), `${name}: failover only adds approvals`);
    assert.ok(Number(explored) >= 0 && Number(explored) <= 20, `${name} explored ${explored} %`);
    assert.ok(back === 'never' || Number.isInteger(Number(back)), `${name} back after ${back}`);
    assert.match(plan!, /^\d+\/\d+$/);
  }
  const [first, final, feeBps, vsOracle] = rows.get(ORACLE)!;
  assert.ok(Number(first) > 50 && Number(feeBps) > 0, rows.get(ORACLE)!.join(' '));
  assert.equal(final, '-');
  assert.equal(Number(vsOracle), 0);
  assert.match(run.stdout, /routing targets, printed, never asserted/);
  assert.doesNotMatch(run.stdout, /\bissue\b/i);

  // The same seed replays the same day: every figure but the planning time is the same.
  const again = rowsOf((await runSvc(['routing', 'simulate', '--payments', '1500', '--seed', '7'], {})).stdout);
  for (const [name, figures] of rows) assert.deepEqual(again.get(name)!.slice(0, 8), figures.slice(0, 8), name);
});

test('svc routing simulate --json gives the figures as one object; a bad count is a usage error, nothing run', async () => {
  const json = await runSvc(['routing', 'simulate', '--payments', '300', '--json'], {});
  assert.equal(json.code, 0, json.stderr);
  const body = JSON.parse(json.stdout);
  assert.equal(body.payments, 300);
  assert.equal(body.seed, 26);
  assert.deepEqual(body.results.map((r: any) => r.name), STRATEGIES);
  for (const r of body.results) assert.ok(r.explored >= 0 && r.explored <= 0.2, `${r.name}: ${r.explored}`);

  for (const args of [['--payments', '0'], ['--payments', 'many'], ['--seed=-1'], ['--seed', '4294967296'], ['--speed', '3']]) {
    const bad = await runSvc(['routing', 'simulate', ...args], {});
    assert.equal(bad.code, 2, args.join(' '));
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /^error: [^\n]+\n\nusage: svc routing simulate/, bad.stderr);
  }
  const unknown = await runSvc(['routing', 'simulat'], {});
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "routing simulat"/);
  assert.match(unknown.stderr, /^ +svc routing simulate \[--payments N\]/m, 'the group\'s usage names the offline command too');
  const group = await runSvc(['help', 'routing'], {});
  assert.equal(group.code, 0);
  assert.match(group.stdout, /^ +svc routing simulate \[--payments N\]/m);
  const help = await runSvc(['help', 'routing', 'simulate'], {});
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: svc routing simulate \[--payments N\] \[--seed S\] \[--json\]/);
});
