// Commands the tests run that are not npm packages (kubectl, helm, promtool): whether they are on
// the PATH, running them, and tests that need them (required in CI, where .ci/run installs them).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { projectPath } from '../../services/platform/paths.js';

/** Whether the command can be started at all (its exit code does not matter here). */
export function onPath(command: string, ...args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).error === undefined;
}

/**
 * Registers a test that needs the commands (e.g. `{ helm }`: whether each is on the PATH): in CI a
 * missing one fails the test, as .ci/run must install it; elsewhere the test is left out (not
 * reported as skipped) and the run says what was not checked.
 */
export function testWith(commands: Record<string, boolean>, name: string, fn: () => void | Promise<void>): void {
  const missing = Object.keys(commands).filter((c) => !commands[c]);
  if (missing.length && !process.env.CI) {
    console.log(`# ${missing.join(' and ')} not on the PATH: not checked: ${name}`);
    return;
  }
  test(name, async () => {
    for (const command of missing) assert.fail(`${command} is missing: CI must install it (.ci/run)`);
    await fn();
  });
}

/** The command's stdout; its failure (with what it printed) as an error. `input` is its stdin. */
export function run(command: string, args: string[], input?: string): string {
  const result = spawnSync(command, args, { cwd: projectPath(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, input });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}
