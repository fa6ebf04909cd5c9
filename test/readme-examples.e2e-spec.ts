import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { KubernetesClient, ResourceID, ResourceTypes } from '@tosdk/core';
import type { Operator } from '@tosdk/core';
import { applyCrds, loadCrds, waitFor } from '@tosdk/nestjs/testing';
import { Note, startNoteOperator } from './fixtures/readme/note-operator.js';

// The README's "Writing an operator" example is test/fixtures/readme/note-operator.ts, copied into
// README.md under a marker; these tests keep the copy exact and run the file against the API server.
const root = new URL('../', import.meta.url);
const EXAMPLES = {
  'test/fixtures/readme/note-operator.ts': 'ts',
  'test/fixtures/readme/note-crd.yaml': 'yaml',
} as const;

/** The fenced block right after `<!-- example: <path> -->` in README.md, or undefined. */
function blockAfterMarker(readme: string, path: string, language: string): string | undefined {
  const marker = `<!-- example: ${path} -->`;
  const at = readme.indexOf(marker);
  if (at < 0) return undefined;
  const open = '```' + language + '\n';
  const start = readme.indexOf(open, at + marker.length);
  if (start < 0 || readme.slice(at + marker.length, start).trim() !== '') return undefined;
  const end = readme.indexOf('\n```', start + open.length);
  return end < 0 ? undefined : readme.slice(start + open.length, end + 1);
}

describe('README.md examples', () => {
  it.each(Object.entries(EXAMPLES))('the README carries %s unchanged', async (path, language) => {
    const readme = await readFile(new URL('README.md', root), 'utf8');
    const file = await readFile(new URL(path, root), 'utf8');
    const block = blockAfterMarker(readme, path, language);
    expect(block).toBeDefined();
    expect(block).toBe(file);
  });
});

describe('[EP-01][ES-01] the README operator against @tosdk/apiserver', () => {
  let server: KubeApiServer;
  let admin: KubernetesClient;
  let operator: Operator | undefined;
  const namespace = 'readme';

  beforeAll(async () => {
    server = await KubeApiServer.start();
    admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
    await applyCrds(admin, await loadCrds([new URL('test/fixtures/readme/note-crd.yaml', root).pathname]));
    await admin.create(ResourceTypes.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
  });

  afterAll(async () => {
    await operator?.stop();
    admin?.close();
    await server?.stop();
  });

  it('creates the ConfigMap, reports it in the status, repairs foreign edits and cleans up on delete', async () => {
    operator = await startNoteOperator(server.kubeConfig(), [namespace]);
    const note = new ResourceID('hello', namespace);
    const configMap = new ResourceID('hello-note', namespace);
    await admin.create(Note, {
      apiVersion: Note.apiVersion,
      kind: Note.kind,
      metadata: { name: 'hello', namespace },
      spec: { text: 'first' },
    });

    // the ConfigMap appears with the text, owned by the Note, and the status names it
    const created = await waitFor(async () => {
      const cm = await admin.get(ResourceTypes.ConfigMap, configMap);
      return cm?.data?.['text'] === 'first' ? cm : undefined;
    });
    const stored = await waitFor(async () => {
      const n = await admin.get(Note, note);
      return n?.status?.configMap === 'hello-note' ? n : undefined;
    });
    expect(stored.status?.observedGeneration).toBe(stored.metadata?.generation);
    expect(stored.metadata?.finalizers).toEqual(['notes.demo.tosdk.io/finalizer']);
    expect(created.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Note',
      name: 'hello',
      uid: stored.metadata?.uid,
      controller: true,
    });

    // a spec change reaches the ConfigMap and the observed generation
    await admin.mergePatch(Note, note, { spec: { text: 'second' } });
    await waitFor(
      async () => (await admin.get(ResourceTypes.ConfigMap, configMap))?.data?.['text'] === 'second',
    );
    await waitFor(async () => {
      const n = await admin.get(Note, note);
      return n?.metadata?.generation === 2 && n.status?.observedGeneration === 2;
    });

    // someone else's edit of the ConfigMap reconciles the Note, which puts its text back
    await admin.mergePatch(ResourceTypes.ConfigMap, configMap, { data: { text: 'tampered' } });
    await waitFor(
      async () => (await admin.get(ResourceTypes.ConfigMap, configMap))?.data?.['text'] === 'second',
      {
        description: 'the ConfigMap repaired',
      },
    );

    // deleting the Note runs cleanup (its Event), removes the finalizer, and the ConfigMap is collected
    await admin.delete(Note, note);
    await waitFor(async () => (await admin.get(Note, note)) === undefined, { description: 'the Note gone' });
    const events = await admin.list(ResourceTypes.Event, { namespace });
    expect(
      events.items.filter((e) => e.reason === 'CleanedUp' && e.involvedObject?.name === 'hello'),
    ).toHaveLength(1);
    await waitFor(async () => (await admin.get(ResourceTypes.ConfigMap, configMap)) === undefined, {
      description: 'the ConfigMap garbage-collected',
    });
  });
});
