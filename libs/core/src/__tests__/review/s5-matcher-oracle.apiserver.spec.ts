import { describe, expect, it, jest } from '@jest/globals';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import { matchesManagedFields } from '../../dependent/matchers.js';
import { apiServerSuite, newNamespace, Widget } from '../../operator/__tests__/support.js';

/**
 * Adversarial review (session 5) of the managed-fields matcher (issue 15 §1/§2, H23's fast path):
 * the matcher says "an apply of this intent changes nothing", and a write is skipped on its word.
 * The API server is the oracle: for seeded random objects (ConfigMaps, Deployments, custom
 * resources) applied by us, partly taken over by another applier or changed by an update, and a
 * random next intent (the same, a value changed, a member dropped or added, `{}`, `[]`, null, a
 * type change), a dry-run apply of that intent tells whether anything would change. Whenever the
 * matcher says "match", the dry run must change neither the object nor the fields we own.
 */
const bed = apiServerSuite();
jest.setTimeout(120_000);
const OURS = 'review-ours';
const THEIRS = 'review-theirs';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/** xorshift32, seeded. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof rng>;

const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function stringMap(r: Rng, keys: readonly string[], allowEmpty = true): Obj {
  const out: Obj = {};
  for (const k of keys) if (r.chance(0.5)) out[k] = r.pick(['a', 'b', '', 'c1']);
  if (!allowEmpty && Object.keys(out).length === 0) out[keys[0]] = 'a';
  return out;
}

function freeJson(r: Rng, depth: number): Json {
  const c = r.int(depth > 2 ? 5 : 8);
  switch (c) {
    case 0:
      return r.pick(['x', 'y', '', '1']);
    case 1:
      return r.pick([0, 1, 2.5, -1]);
    case 2:
      return r.chance(0.5);
    case 3:
      return r.chance(0.5) ? null : 'n';
    case 4:
      return r.chance(0.5) ? {} : [];
    case 5:
    case 6: {
      const o: Obj = {};
      for (const k of ['p', 'q', 'r']) if (r.chance(0.6)) o[k] = freeJson(r, depth + 1);
      return o;
    }
    default:
      return Array.from({ length: r.int(3) }, () => freeJson(r, depth + 1));
  }
}

interface Kind {
  name: string;
  type: ResourceType;
  intent(r: Rng, name: string, ns: string): Obj;
  /** A foreign applier's intent overlapping ours. */
  theirs(r: Rng, name: string, ns: string): Obj;
  /** A merge patch by an updater. */
  edit(r: Rng): Obj;
}

/** The uids of two ConfigMaps `owner-0`, `owner-1` in the namespace of the running test (the server collects orphans). */
let ownerUids: string[] = [];

const meta = (r: Rng, name: string, ns: string): Obj => {
  const m: Obj = { name, namespace: ns };
  if (r.chance(0.6)) m.labels = stringMap(r, ['l1', 'l2', 'l3']);
  if (r.chance(0.4)) m.annotations = stringMap(r, ['a1', 'a2']);
  // owner references (a keyed list, k:{"uid":...}) and finalizers (a set, v:"...") as dependents carry
  if (r.chance(0.4))
    m.ownerReferences = Array.from({ length: 1 + r.int(2) }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: `owner-${i}`,
      uid: ownerUids[i],
      ...(i === 0 && r.chance(0.5) ? { controller: true } : {}),
    }));
  if (r.chance(0.25))
    m.finalizers = r.chance(0.5) ? ['example.com/f1'] : ['example.com/f1', 'example.com/f2'];
  return m;
};

const KINDS: Kind[] = [
  {
    name: 'ConfigMap',
    type: ResourceTypes.ConfigMap,
    intent: (r, name, ns) => {
      const o: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(r, name, ns) };
      if (r.chance(0.8)) o.data = stringMap(r, ['d1', 'd2', 'd3', 'd4']);
      return o;
    },
    theirs: (r, name, ns) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns, labels: stringMap(r, ['l1', 'l4'], false) },
      data: stringMap(r, ['d1', 'd5'], false),
    }),
    edit: (r) => ({ data: { [r.pick(['d1', 'd2', 'd6'])]: r.chance(0.3) ? null : 'edited' } }),
  },
  {
    name: 'Deployment',
    type: ResourceTypes.Deployment,
    intent: (r, name, ns) => {
      const container: Obj = { name: 'c', image: r.pick(['img:1', 'img:2']) };
      if (r.chance(0.5))
        container.env = r.chance(0.3)
          ? []
          : Array.from({ length: 1 + r.int(2) }, (_, i) => ({
              name: `E${i}`,
              value: r.pick(['1', '2', '']),
            }));
      if (r.chance(0.4)) container.ports = [{ containerPort: r.pick([80, 81]) }];
      if (r.chance(0.2)) container.args = r.chance(0.5) ? [] : ['--a', r.pick(['x', 'y'])];
      // quantities: equal values in other spellings are no change
      if (r.chance(0.35))
        container.resources = {
          limits: { cpu: r.pick(['1', '1000m', '500m', '0.5']), memory: r.pick(['1Gi', '1024Mi', '512Mi']) },
        };
      const containers: Obj[] = [container];
      if (r.chance(0.3)) containers.push({ name: 'side', image: 'side:1' });
      const spec: Obj = {
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers } },
      };
      if (r.chance(0.5)) spec.replicas = r.pick([1, 2]);
      if (r.chance(0.2)) spec.minReadySeconds = 0;
      return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(r, name, ns), spec };
    },
    theirs: (r, name, ns): Obj => {
      const spec: Obj = {};
      if (r.chance(0.5)) spec.replicas = r.pick([1, 3]);
      else spec.revisionHistoryLimit = 4;
      return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns }, spec };
    },
    edit: (r): Obj => {
      const patch: Obj = {};
      if (r.chance(0.5)) patch.spec = { replicas: r.pick([1, 5]) };
      else patch.metadata = { labels: { l1: 'edited' } };
      return patch;
    },
  },
  {
    name: 'Secret',
    type: ResourceTypes.Secret,
    intent: (r, name, ns) => {
      const o: Obj = { apiVersion: 'v1', kind: 'Secret', metadata: meta(r, name, ns) };
      const values = ['a', 'b', '', 'ü'];
      if (r.chance(0.5)) {
        const data: Obj = {};
        for (const k of ['s1', 's2'])
          if (r.chance(0.6)) data[k] = Buffer.from(r.pick(values)).toString('base64');
        o.data = data;
      } else {
        const stringData: Obj = {};
        for (const k of ['s1', 's3']) if (r.chance(0.6)) stringData[k] = r.pick(values);
        o.stringData = stringData;
      }
      if (r.chance(0.3)) o.type = 'Opaque';
      return o;
    },
    theirs: (r, name, ns) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns },
      data: { [r.pick(['s1', 's4'])]: Buffer.from('theirs').toString('base64') },
    }),
    edit: (r) => ({
      data: { [r.pick(['s1', 's2', 's5'])]: r.chance(0.3) ? null : Buffer.from('e').toString('base64') },
    }),
  },
  {
    name: 'Widget (custom resource)',
    type: Widget,
    intent: (r, name, ns) => {
      const spec: Obj = {};
      for (const k of ['value', 'size', 'nested', 'list', 'bag']) if (r.chance(0.6)) spec[k] = freeJson(r, 0);
      return { apiVersion: Widget.apiVersion, kind: Widget.kind, metadata: meta(r, name, ns), spec };
    },
    theirs: (r, name, ns) => ({
      apiVersion: Widget.apiVersion,
      kind: Widget.kind,
      metadata: { name, namespace: ns },
      spec: { [r.pick(['value', 'other'])]: freeJson(r, 1) },
    }),
    edit: (r) => ({
      spec: { [r.pick(['value', 'nested', 'extra'])]: r.chance(0.3) ? null : freeJson(r, 1) },
    }),
  },
];

/** Every path to a member of `o` (not the identity metadata). */
function paths(o: Json, at: string[] = [], out: string[][] = []): string[][] {
  if (o === null || typeof o !== 'object') return out;
  const entries: Array<[string, Json]> = Array.isArray(o)
    ? o.map((v, i) => [String(i), v])
    : Object.entries(o);
  for (const [k, v] of entries) {
    const p = [...at, k];
    if (at.length === 0 && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) {
      if (k === 'metadata') paths(v, p, out);
      continue;
    }
    if (at.length === 1 && at[0] === 'metadata' && (k === 'name' || k === 'namespace')) continue;
    // the Deployment's selector and the container's name are required: leave them
    if (p.join('.').includes('selector') || p.join('.').endsWith('containers.0.name')) continue;
    if (p.join('.') === 'spec.template.metadata.labels.app') continue;
    out.push(p);
    paths(v, p, out);
  }
  return out;
}

function parentOf(o: Json, p: string[]): { parent: Obj | Json[]; key: string } {
  let cur = o as Obj | Json[];
  for (const k of p.slice(0, -1)) cur = (cur as Record<string, Json>)[k] as Obj | Json[];
  return { parent: cur, key: p[p.length - 1] };
}

/** The next intent: the same, or one random change. */
function mutate(r: Rng, intent: Obj, kind: Kind): { next: Obj; what: string } {
  const next = copy(intent);
  const all = paths(next);
  const op = r.int(8);
  if (op <= 1 || all.length === 0) return { next, what: 'same' };
  const p = r.pick(all);
  const { parent, key } = parentOf(next, p);
  const at = p.join('.');
  const old = (parent as Record<string, Json>)[key];
  switch (op) {
    case 2:
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      return { next, what: `drop ${at}` };
    case 3: {
      const v: Json = typeof old === 'string' ? `${old}z` : typeof old === 'number' ? String(old) : 'z';
      (parent as Record<string, Json>)[key] = v;
      return { next, what: `change ${at} to ${JSON.stringify(v)}` };
    }
    case 4:
      (parent as Record<string, Json>)[key] = Array.isArray(old) ? [] : {};
      return { next, what: `empty ${at}` };
    case 5:
      if (old !== null && typeof old === 'object' && !Array.isArray(old)) {
        old.added = kind.name === 'Deployment' && at.includes('containers') ? 'x' : 'added';
        return { next, what: `add ${at}.added` };
      }
      (parent as Record<string, Json>)[key] = null;
      return { next, what: `null ${at}` };
    case 6:
      if (Array.isArray(old) && old.length > 1) {
        old.push(old.shift()!);
        return { next, what: `rotate ${at}` };
      }
      if (Array.isArray(old) && old.length > 0) {
        old.push(copy(old[0]));
        return { next, what: `append to ${at}` };
      }
      if (!Array.isArray(parent) && !Array.isArray(next.metadata)) {
        const m = next.metadata as Obj;
        m.labels = { ...((m.labels ?? {}) as Obj), fresh: 'y' };
        return { next, what: 'add label fresh' };
      }
      return { next, what: 'same' };
    default: {
      // a member moved to the end (order of keys never matters)
      if (!Array.isArray(parent)) {
        const v = parent[key];
        delete parent[key];
        parent[key] = v;
      }
      return { next, what: `reorder ${at}` };
    }
  }
}

/**
 * What the object holds apart from the metadata the server maintains; and the fields `OURS` applied,
 * without those naming an empty or absent value or owning a map as a leaf (owning `labels: {}` or
 * not is no difference anyone observes, and the matcher deliberately treats empty maps as kube's
 * omitempty does and an applied `{}` as merged into the live map).
 */
function state(o: KubernetesResource): { content: string; ours: string } {
  const { managedFields, resourceVersion: _rv, generation: _g, ...metadata } = o.metadata ?? {};
  const entry = managedFields?.find((e) => e.manager === OURS && e.operation === 'Apply' && !e.subresource);
  return {
    content: JSON.stringify(sorted({ ...o, metadata } as unknown as Json)),
    ours: JSON.stringify(sorted(observable((entry?.fieldsV1 ?? {}) as Json, o as unknown as Json))),
  };
}

function isEmpty(v: Json | undefined): boolean {
  return (
    v === undefined ||
    (Array.isArray(v) ? v.length === 0 : v !== null && typeof v === 'object' && Object.keys(v).length === 0)
  );
}

function observable(fields: Json, value: Json | undefined): Json {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return fields;
  const out: Obj = {};
  for (const [k, f] of Object.entries(fields)) {
    if (k.startsWith('f:')) {
      const v =
        value !== null && typeof value === 'object' && !Array.isArray(value) ? value[k.slice(2)] : undefined;
      if (isEmpty(v)) continue;
      // a leaf over a map: an applied {} merged into others' members (the server records it on an
      // update but not on a create, and no content depends on it)
      if (isEmpty(f) && v !== null && typeof v === 'object' && !Array.isArray(v)) continue;
      const sub = observable(f, v);
      // a node whose every named child was left out names nothing observable either
      if (!isEmpty(f) && f !== null && typeof f === 'object' && isEmpty(sub)) continue;
      out[k] = sub;
    } else out[k] = f;
  }
  return out;
}

function sorted(v: Json): Json {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(sorted);
  const out: Obj = {};
  for (const k of Object.keys(v).sort()) out[k] = sorted(v[k]);
  return out;
}

async function trial(kind: Kind, ns: string, seed: number) {
  const r = rng(seed);
  const name = `o${seed}`;
  const id = new ResourceID(name, ns);
  const first = kind.intent(r, name, ns);
  const client = bed.admin;
  const type = kind.type;
  const applied = (o: Obj) => o as unknown as KubernetesResource & { metadata: { name: string } };
  try {
    await client.apply(type, applied(first), { fieldManager: OURS });
    if (r.chance(0.35)) await client.apply(type, applied(kind.theirs(r, name, ns)), { fieldManager: THEIRS });
    if (r.chance(0.3)) await client.mergePatch(type, id, kind.edit(r), { fieldManager: 'review-editor' });
  } catch {
    return undefined; // an invalid random object: no trial
  }
  const live = await client.get(type, id);
  if (!live) throw new Error(`${name} is gone`);
  const { next, what } = mutate(r, first, kind);
  let match: boolean;
  try {
    match = matchesManagedFields(copy(live), copy(next) as unknown as KubernetesResource, OURS);
  } catch (e) {
    return {
      seed,
      what,
      match: false,
      changes: false,
      detail: `the matcher threw ${String(e)}`,
      live,
      next,
      threw: true,
    };
  }
  let after: KubernetesResource;
  try {
    after = await client.apply(type, applied(next), { fieldManager: OURS, dryRun: true });
  } catch (e) {
    // the server refuses the intent: a skip would hide that answer
    return { seed, what, match, changes: true, detail: `apply refused: ${(e as Error).message}`, live, next };
  }
  const a = state(live);
  const b = state(after);
  const changes = a.content !== b.content || a.ours !== b.ours;
  return {
    seed,
    what,
    match,
    changes,
    detail: a.content !== b.content ? `${a.content}\n  -> ${b.content}` : `ours ${a.ours}\n  -> ${b.ours}`,
    live,
    next,
  };
}

describe('review s5: the managed-fields matcher against the API server', () => {
  it.each(KINDS.map((k) => [k.name, k] as const))(
    '[DR-10] %s: whenever the matcher says an apply changes nothing, a dry-run apply changes nothing (seeded random objects and intents)',
    async (_name, kind) => {
      const ns = await newNamespace(bed.admin);
      ownerUids = [];
      for (const name of ['owner-0', 'owner-1'])
        ownerUids.push(
          (await bed.admin.create(ResourceTypes.ConfigMap, { metadata: { name, namespace: ns } })).metadata!
            .uid!,
        );
      const results = [];
      for (let batch = 0; batch < 10; batch++) {
        const seeds = Array.from({ length: 16 }, (_, i) => 1 + batch * 16 + i);
        results.push(...(await Promise.all(seeds.map((s) => trial(kind, ns, s * 7919 + kind.name.length)))));
      }
      const done = results.filter((t): t is NonNullable<typeof t> => t !== undefined && !('threw' in t));
      // a matcher that throws is H24-2's (s5-secret-null.apiserver.spec.ts: a null or object in a Secret's stringData)
      const skippedChanges = done
        .filter((t) => t.match && t.changes)
        .map((t) => `seed ${t.seed} (${t.what}): ${t.detail}\n  intent ${JSON.stringify(t.next)}`);
      expect(skippedChanges).toEqual([]);
      // the trials covered both answers
      expect(done.filter((t) => t.match).length).toBeGreaterThanOrEqual(10);
      expect(done.filter((t) => t.changes).length).toBeGreaterThanOrEqual(10);
    },
  );
});
