import { describe, expect, it, jest } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import type { Context } from '../../api/context.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

/**
 * Adversarial review (session 5) of the status and resource skips (issue 15 §1, H23's restart work):
 * a patch whose result equals the cached primary is not sent, but every write that would change
 * something on the server must be. Each test makes the reconciler's write differ from the cached
 * primary in exactly one place a fast path could overlook (a dropped member, a nested list item, a
 * type change, a label) and asserts what the server holds afterwards; with both patch kinds.
 */
const bed = apiServerSuite();
jest.setTimeout(60_000);
const WAIT_MS = 20_000;

type Status = Record<string, unknown>;
/** What the reconciler writes as the status for a spec value (the widget's spec.value selects it). */
type StatusFor = (value: string | undefined) => Status;
/** What the reconciler does to its copy's metadata for a spec value (for patchResource). */
type MetaFor = (value: string | undefined, w: Widget) => void;

class Scripted implements Reconciler<Widget> {
  readonly seen: Array<string | undefined> = [];
  constructor(
    private readonly status?: StatusFor,
    private readonly meta?: MetaFor,
  ) {}

  reconcile(w: Widget, _context: Context<Widget>): UpdateControl<Widget> {
    const value = w.spec?.value;
    this.seen.push(value);
    if (this.meta) this.meta(value, w);
    if (this.status) w.status = this.status(value);
    if (this.meta && this.status) return UpdateControl.patchResourceAndStatus(w);
    if (this.meta) return UpdateControl.patchResource(w);
    return UpdateControl.patchStatus(w);
  }
}

async function run(
  ns: string,
  useSSA: boolean,
  reconciler: Scripted,
  values: string[],
  done: (w: Widget | undefined, value: string) => boolean,
): Promise<Widget | undefined> {
  const operator = bed.operator();
  operator.register(reconciler, {
    name: `review-s5-skip-${useSSA ? 'ssa' : 'merge'}`,
    resourceType: Widget,
    namespaces: [ns],
    useSSA,
  });
  await operator.start();
  const id = new ResourceID('w', ns);
  await bed.admin.create(Widget, widget('w', ns, { value: values[0] }));
  let last: Widget | undefined;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) await bed.admin.mergePatch(Widget, id, { spec: { value } });
    await waitFor(
      async () => {
        last = await bed.admin.get(Widget, id);
        return reconciler.seen.includes(value) && done(last, value);
      },
      `reconciled ${value} and the server shows it`,
      WAIT_MS,
    );
  }
  return last;
}

/** Waits until the reconciler ran for `value` and the server holds `expected` as the status (or times out with both). */
async function expectStatus(
  ns: string,
  reconciler: Scripted,
  value: string,
  expected: Status,
): Promise<void> {
  const id = new ResourceID('w', ns);
  let status: unknown;
  try {
    await waitFor(
      async () => {
        status = (await bed.admin.get(Widget, id))?.status;
        return reconciler.seen.includes(value) && JSON.stringify(status) === JSON.stringify(expected);
      },
      `status ${JSON.stringify(expected)}`,
      WAIT_MS,
    );
  } catch {
    expect(status).toEqual(expected);
  }
}

describe.each([
  ['merge patch', false],
  ['server-side apply', true],
])('review s5: a status write that changes something is sent (%s)', (_kind, useSSA) => {
  it('[EP-23] a status member the reconciler drops (its only change) is removed on the server', async () => {
    const ns = await newNamespace(bed.admin);
    const reconciler = new Scripted((v) =>
      v === 'a' ? { observed: 'same', extra: 'x' } : { observed: 'same' },
    );
    await run(ns, useSSA, reconciler, ['a'], (w) => w?.status?.extra === 'x');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await expectStatus(ns, reconciler, 'b', { observed: 'same' });
  });

  it('[EP-23] a change deep in a status list item (one condition field) is written', async () => {
    const ns = await newNamespace(bed.admin);
    const conditions = (s: string) => [
      { type: 'Ready', status: 'True', reason: 'Fine' },
      { type: 'Synced', status: s, reason: 'Fine' },
    ];
    const reconciler = new Scripted((v) => ({
      observed: 'same',
      conditions: conditions(v === 'a' ? 'True' : 'False'),
    }));
    await run(ns, useSSA, reconciler, ['a'], (w) => JSON.stringify(w?.status ?? {}).includes('"Synced"'));
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await expectStatus(ns, reconciler, 'b', { observed: 'same', conditions: conditions('False') });
  });

  it('[EP-23] a status value that changes only its JSON type (1 -> "1", false -> 0, {} -> []) is written', async () => {
    const ns = await newNamespace(bed.admin);
    const reconciler = new Scripted((v) =>
      v === 'a' ? { count: 1, flag: false, bag: {} } : { count: '1', flag: 0, bag: [] },
    );
    await run(ns, useSSA, reconciler, ['a'], (w) => (w?.status as Status | undefined)?.count === 1);
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await expectStatus(ns, reconciler, 'b', { count: '1', flag: 0, bag: [] });
  });

  it('[EP-23] a status that someone else changed since is set back, though it equals what the reconciler wrote before', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const reconciler = new Scripted(() => ({ observed: 'ours', extra: 'ours' }));
    await run(ns, useSSA, reconciler, ['a'], (w) => w?.status?.observed === 'ours');
    // another manager changes one member by a merge patch, another by apply
    await bed.admin.mergePatch(Widget, id, { status: { observed: 'theirs' } }, { subresource: 'status' });
    await bed.admin.apply(
      Widget,
      {
        apiVersion: Widget.apiVersion,
        kind: Widget.kind,
        metadata: { name: 'w', namespace: ns },
        status: { extra: 'theirs' },
      },
      { fieldManager: 'someone-else', subresource: 'status', force: true },
    );
    await bed.admin.mergePatch(Widget, id, { spec: { value: 'b' } });
    await expectStatus(ns, reconciler, 'b', { observed: 'ours', extra: 'ours' });
  });

  it('[EP-23] the reconciler’s status equal to the server’s sends nothing over several reconciliations (no needless writes)', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const reconciler = new Scripted(() => ({
      observed: 'same',
      conditions: [{ type: 'Ready', status: 'True' }],
    }));
    await run(ns, useSSA, reconciler, ['a'], (w) => w?.status?.observed === 'same');
    const writes = () =>
      bed.server.requests.writes({ resource: 'widgets', subresource: 'status', namespace: ns });
    await waitFor(() => writes() >= 1, 'the first status write', WAIT_MS);
    const before = writes();
    for (const value of ['b', 'c', 'd']) {
      await bed.admin.mergePatch(Widget, id, { spec: { value } });
      await waitFor(() => reconciler.seen.includes(value), `reconciled ${value}`, WAIT_MS);
    }
    expect(writes()).toBe(before);
  });
});

describe.each([
  ['merge patch', false],
  ['server-side apply', true],
])('review s5: a resource write that changes something is sent (%s)', (_kind, useSSA) => {
  it('[EP-23] a label added, then a label and an annotation removed (the only changes) reach the server', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const reconciler = new Scripted(undefined, (v, w) => {
      const metadata = w.metadata!;
      if (v === 'a') {
        metadata.labels = { ...metadata.labels, keep: '1', drop: '1' };
        metadata.annotations = { ...metadata.annotations, note: 'x' };
      } else if (v === 'b') {
        metadata.labels = { ...metadata.labels, keep: '1', drop: '1', added: '1' };
        metadata.annotations = { ...metadata.annotations, note: 'x' };
      } else {
        metadata.labels = { ...metadata.labels, keep: '1', added: '1' };
        delete metadata.labels.drop;
        const annotations = { ...metadata.annotations };
        delete annotations.note;
        metadata.annotations = annotations;
      }
    });
    await run(ns, useSSA, reconciler, ['a', 'b'], (w, v) =>
      v === 'a' ? w?.metadata?.labels?.drop === '1' : w?.metadata?.labels?.added === '1',
    );
    await bed.admin.mergePatch(Widget, id, { spec: { value: 'c' } });
    let labels: Record<string, string> | undefined;
    let annotations: Record<string, string> | undefined;
    await waitFor(
      async () => {
        const w = await bed.admin.get(Widget, id);
        labels = w?.metadata?.labels;
        annotations = w?.metadata?.annotations;
        return reconciler.seen.includes('c') && labels?.drop === undefined && annotations?.note === undefined;
      },
      'label and annotation removed',
      WAIT_MS,
    ).catch(() => undefined);
    expect({ labels, note: annotations?.note }).toEqual({
      labels: { keep: '1', added: '1' },
      note: undefined,
    });
  });
});
