import { describe, expect, it } from '@jest/globals';
import { builtinPatchSchema, serverSideApply, trackUpdate } from '../index.js';
import type { JsonObject } from '../../types.js';

// Server-side apply no longer deep-copies the live object before merging (issue 17): the merge
// copies what it takes, and nothing writes to the live object. These pin that down: the live
// object and the configuration are left exactly as they were, the result shares no value with
// either (the API server changes the result in place afterwards), and a re-apply that drops
// fields still prunes them.

const schema = builtinPatchSchema('apps', 'v1', 'Deployment');
const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-01-01T00:01:00Z';

function deployment(spec: JsonObject): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { a: '1' } },
    spec,
  };
}

const spec1 = {
  replicas: 2,
  selector: { matchLabels: { app: 'web' } },
  template: {
    metadata: { labels: { app: 'web' } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'nginx:1',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          env: [{ name: 'A', value: '1' }],
        },
        { name: 'side', image: 'busybox' },
      ],
    },
  },
};

/** Every object and array reachable from `v`. */
function nodes(v: unknown, out = new Set<unknown>()): Set<unknown> {
  if (v !== null && typeof v === 'object') {
    out.add(v);
    for (const x of Object.values(v as Record<string, unknown>)) nodes(x, out);
  }
  return out;
}

describe('server-side apply and the values it is given', () => {
  it('leaves live and the configuration unchanged, and shares no object or array with them', () => {
    const created = serverSideApply({
      live: undefined,
      applied: deployment(spec1),
      manager: 'a',
      force: false,
      apiVersion: 'apps/v1',
      now: T1,
      schema,
    });
    // another manager's update, so live carries two entries
    const live = structuredClone(created);
    (live.spec as JsonObject).replicas = 3;
    (live.metadata as JsonObject).managedFields = trackUpdate({
      before: created,
      after: live,
      manager: 'kubectl',
      apiVersion: 'apps/v1',
      now: T1,
      schema,
    });
    const liveBefore = structuredClone(live);
    const applied = deployment({
      ...spec1,
      template: { ...spec1.template, spec: { containers: [{ name: 'app', image: 'nginx:2' }] } },
    });
    const appliedBefore = structuredClone(applied);
    for (const reuseEncoding of [false, true]) {
      const result = serverSideApply({
        live,
        applied,
        manager: 'a',
        force: true,
        apiVersion: 'apps/v1',
        now: T2,
        schema,
        reuseEncoding,
      });
      expect(live).toEqual(liveBefore);
      expect(applied).toEqual(appliedBefore);
      const shared = [...nodes(result)].filter((n) => nodes(live).has(n) || nodes(applied).has(n));
      // with reuseEncoding only the untouched entries' fieldsV1 may be shared (their documented reuse)
      const fieldsV1 = new Set(
        ((live.metadata as JsonObject).managedFields as JsonObject[]).flatMap((e) => [...nodes(e.fieldsV1)]),
      );
      expect(shared.filter((n) => !(reuseEncoding && fieldsV1.has(n)))).toEqual([]);
      // force took replicas back from kubectl; the re-apply dropped the sidecar and the app's ports and env: pruned, as they were only a's
      const containers = ((result.spec as JsonObject).template as { spec: { containers: JsonObject[] } }).spec
        .containers;
      expect(containers).toEqual([{ name: 'app', image: 'nginx:2' }]);
      expect((result.spec as JsonObject).replicas).toBe(2);
      expect((result.metadata as JsonObject).labels).toEqual({ a: '1' });
    }
  });

  it('removes a field the configuration sets to null, and keeps the rest of a map in its order', () => {
    const live = serverSideApply({
      live: undefined,
      applied: deployment(spec1),
      manager: 'a',
      force: false,
      apiVersion: 'apps/v1',
      now: T1,
      schema,
    });
    const applied = deployment(spec1);
    (applied.metadata as JsonObject).labels = { b: '2', a: null };
    const result = serverSideApply({
      live,
      applied,
      manager: 'a',
      force: false,
      apiVersion: 'apps/v1',
      now: T2,
      schema,
    });
    expect((result.metadata as JsonObject).labels).toEqual({ b: '2' });
    expect(Object.keys(result)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(Object.keys(result.spec as JsonObject)).toEqual(['replicas', 'selector', 'template']);
  });
});
