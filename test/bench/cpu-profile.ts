import { Session } from 'node:inspector';
import { readFileSync, writeFileSync } from 'node:fs';

// The metrics-overhead bench's direct measure: a V8 CPU profile of the server taken while the load
// runs, each busy sample charged to the nearest frame of JavaScript the project or a package wrote
// (a builtin such as a regex or a hash is charged to whoever called it). The share of samples
// charged to the metrics code is what the metrics cost that process, whatever else the machine does.

interface ProfileNode { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[] }

/** In the server: SIGUSR2 starts the sampling profiler, the next SIGUSR2 writes the profile to `path`, and so on. */
export function profileOnSignal(path: string): void {
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(path, JSON.stringify(result.profile));
    });
  });
}

/** Where a frame's code lives: a package's name, or a file of this project's build. */
function ownerOf(url: string): string | undefined {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  const own = /\/dist\/(.+)$/.exec(url);
  return own?.[1];
}

/** Busy samples, and how many of them are charged to an owner that `isMetrics` accepts, by owner. */
export function chargedTo(path: string, isMetrics: (owner: string) => boolean): { busy: number; byOwner: Map<string, number> } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let busy = 0;
  const byOwner = new Map<string, number>();
  for (const sample of profile.samples) {
    if (byId.get(sample)!.callFrame.functionName === '(idle)') continue;
    busy++;
    let owner: string | undefined;
    for (let id: number | undefined = sample; id !== undefined && owner === undefined; id = parent.get(id)) {
      owner = ownerOf(byId.get(id)!.callFrame.url);
    }
    // What no package or project file sits above: V8's own work, or Node's (socket reads, timers).
    owner ??= /^\(.+\)$/.test(byId.get(sample)!.callFrame.functionName) ? byId.get(sample)!.callFrame.functionName : '(node)';
    if (isMetrics(owner)) byOwner.set(owner, (byOwner.get(owner) ?? 0) + 1);
  }
  return { busy, byOwner };
}
