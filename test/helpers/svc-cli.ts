import { spawn } from 'node:child_process';
import { projectPath } from '../../services/platform/paths.js';

export interface SvcRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the `svc` CLI (bin/svc.js) as its own process, as an operator would, with the given
 * environment (PATH is added when it lacks one) and working directory; resolves once it exits.
 * `nodeOptions` go to node itself, before the script (an `--import` hook).
 */
export function runSvc(args: string[], env: NodeJS.ProcessEnv, cwd = projectPath(), nodeOptions: string[] = []): Promise<SvcRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeOptions, projectPath('bin', 'svc.js'), ...args], {
      cwd, env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
