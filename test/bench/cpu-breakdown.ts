import { readFileSync } from 'node:fs';

// Where a process's CPU goes, by who could change it: this project's code, the packages it uses,
// the Node runtime (V8's collector and compiler, Node's own JavaScript), and the system calls that
// hand a message to the kernel (socket writes). Each busy sample is charged by its leaf frame: a
// sample in a project file or a package is that code's own time; a native builtin (a regex, a hash,
// a buffer copy) is charged to the nearest JavaScript frame above it, except the write calls, which
// are the kernel's work whoever asked for them. Used by six-processes-cpu.ts to tell how much of a
// payment's CPU any change to our code could still remove.

export type Owner = 'ours' | 'packages' | 'runtime' | 'socket writes';
export const OWNERS: readonly Owner[] = ['ours', 'packages', 'runtime', 'socket writes'];

interface CallFrame { functionName: string; url: string }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
export interface Profile { nodes: ProfileNode[]; samples: number[] }

/** Node's natives that put bytes on a socket or a pipe: a system call each. */
const WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString', 'writeUcs2String']);

/** The owner of a JavaScript frame's code, or undefined for a native frame (no url). */
function ownerOfUrl(url: string): Owner | undefined {
  if (url === '') return undefined;
  if (url.includes('/node_modules/')) return 'packages';
  if (url.startsWith('node:') || !url.includes('/')) return 'runtime';
  return 'ours';
}

/** Each owner's share of the busy samples (0–1), and how many samples were busy. */
export function breakdown(profile: Profile): { busy: number; share: Record<Owner, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const counts: Record<Owner, number> = { ours: 0, packages: 0, runtime: 0, 'socket writes': 0 };
  let busy = 0;
  for (const sample of profile.samples) {
    const leaf = byId.get(sample)!.callFrame;
    if (leaf.functionName === '(idle)') continue;
    busy++;
    counts[ownerOfSample(sample, leaf, byId, parent)]++;
  }
  const share = Object.fromEntries(OWNERS.map((o) => [o, busy ? counts[o] / busy : 0])) as Record<Owner, number>;
  return { busy, share };
}

function ownerOfSample(sample: number, leaf: CallFrame, byId: Map<number, ProfileNode>, parent: Map<number, number>): Owner {
  if (WRITES.has(leaf.functionName) && leaf.url === '') return 'socket writes';
  // (garbage collector), (program): V8's own work.
  if (/^\(.+\)$/.test(leaf.functionName)) return 'runtime';
  for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
    const owner = ownerOfUrl(byId.get(id)!.callFrame.url);
    if (owner) return owner;
  }
  return 'runtime';
}

export function breakdownOfFile(path: string): ReturnType<typeof breakdown> {
  return breakdown(JSON.parse(readFileSync(path, 'utf8')) as Profile);
}
