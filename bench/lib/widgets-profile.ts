// Summarises a V8 CPU profile (`--cpu-prof` output) by where the time went: per source file (node
// internals, @tosdk/core's bundle, other packages) and per function (self time), so the widgets
// benchmark can print where a contender's CPU goes next to the floor's.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time of one file or function in a profile. */
export interface ProfileEntry {
  name: string;
  ms: number;
  share: number;
}

/** A profile's self time by file and by function, biggest first; idle time is left out of the shares. */
export interface ProfileSummary {
  busyMs: number;
  byFile: ProfileEntry[];
  byFunction: ProfileEntry[];
}

/** A short name for a script URL: `node:http`, `@tosdk/core`, a package name, or the file's name. */
function shortFile(url: string, functionName: string): string {
  if (url === '') return `(${functionName.replace(/^\(|\)$/g, '') || 'native'})`;
  if (url.startsWith('node:')) return url;
  const libs = /\/libs\/([^/]+)\//.exec(url);
  if (libs) return `@tosdk/${libs[1]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url);
  if (pkg) return pkg[1];
  return url.slice(url.lastIndexOf('/') + 1);
}

/** Reads a `.cpuprofile` file and sums self time by file and by function. */
export function summariseProfile(file: string, top = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const perNode = new Map<number, number>();
  profile.samples.forEach((id, i) => perNode.set(id, (perNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const files = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of perNode) {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    busy += us;
    const f = shortFile(url, functionName);
    files.set(f, (files.get(f) ?? 0) + us);
    const fn = url === '' ? f : `${functionName || '(anonymous)'} ${f}:${lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const rank = (m: Map<string, number>): ProfileEntry[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / busy }));
  return { busyMs: busy / 1000, byFile: rank(files), byFunction: rank(functions) };
}

/** Prints a summary as two short lists. */
export function printProfile(label: string, s: ProfileSummary): void {
  const line = (e: ProfileEntry): string =>
    `    ${e.ms.toFixed(0).padStart(6)} ms ${(e.share * 100).toFixed(1).padStart(5)}%  ${e.name}`;
  console.log(`  ${label}: ${s.busyMs.toFixed(0)} ms of samples (idle left out); by file:`);
  for (const e of s.byFile) console.log(line(e));
  console.log('  by function (self time):');
  for (const e of s.byFunction) console.log(line(e));
}
