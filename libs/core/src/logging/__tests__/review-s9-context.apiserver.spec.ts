import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import { GenericRetry } from '../../config/retry.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import type { LogFields, Logger } from '../../util/logger.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();

interface Line {
  level: string;
  message: string;
  fields: LogFields;
}

function recordingLogger(lines: Line[], bindings: LogFields = {}): Logger {
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, fields: { ...bindings, ...fields } });
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}

describe('logging context review (session 9)', () => {
  // JOSDK sets the MDC per reconciliation (ReconcilerExecutor.run) and per event (handleEvent,
  // submitReconciliationExecution) and removes it in `finally`; threads an event source starts do
  // not inherit it. Here an informer registered while resource "a" reconciled ran all its work in
  // a's AsyncLocalStorage context, so lines about "b", reconciled from that informer's events,
  // carried resource.name "a".
  it('[FINDING S9-EV5] lines about one resource never carry the context of the reconciliation that registered an event source', async () => {
    const ns = await newNamespace(bed.admin);
    const lines: Line[] = [];
    let failB = false;
    const reconciled = new Set<string>();
    const operator = bed.operator({ logger: recordingLogger(lines) });
    operator.register(
      {
        reconcile: async (w: Widget, c: Context<Widget>) => {
          const retriever = c.eventSourceRetriever();
          if (w.metadata!.name === 'a') {
            await retriever.dynamicallyRegisterEventSource(
              'late',
              () => new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, retriever.eventSourceContext),
            );
          }
          reconciled.add(w.metadata!.name!);
          if (w.metadata!.name === 'b' && failB) throw new Error('b failed');
          return UpdateControl.noUpdate();
        },
      },
      {
        resourceType: Widget,
        name: 'ev5',
        namespaces: [ns],
        retry: new GenericRetry({ maxAttempts: 1, initialInterval: 60_000 }),
      },
    );
    await operator.start();
    await bed.admin.create(Widget, widget('a', ns));
    await waitFor(() => operator.runtimeInfo.eventSourceHealth().ev5?.late?.healthy === true, 'late source');
    const b = await bed.admin.create(Widget, widget('b', ns));
    await waitFor(() => reconciled.has('b'), 'b reconciled');
    failB = true;
    await bed.admin.create(CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'of-b',
        namespace: ns,
        ownerReferences: [
          {
            apiVersion: Widget.apiVersion,
            kind: 'Widget',
            name: 'b',
            uid: b.metadata!.uid!,
            controller: true,
          },
        ],
      },
    });
    await waitFor(
      () => lines.some((l) => l.message.startsWith('reconciliation failed;')),
      'the event processor logged b failing',
    );
    const aboutB = lines.filter((l) => l.message.startsWith('reconciliation failed;'));
    expect(aboutB.length).toBeGreaterThan(0);
    // nor do the lines of the informer itself (its first list ran while "a" reconciled)
    const listed = lines.filter((l) => l.message === 'listed' && l.fields['informer'] !== undefined);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((l) => l.fields['resource.name'] === 'a')).toEqual([]);
    for (const line of aboutB) {
      expect(line.fields['resource']).toBe(`${ns}/b`);
      expect(line.fields['resource.name']).not.toBe('a');
    }
  });

  // JOSDK EventProcessor.handleRetryOnException runs in ReconcilerExecutor.run with the resource's
  // MDC, so "Exhausted retries for scope ..." carries resource.name and resource.namespace. Here the
  // event processor's failure lines (retry scheduled, retries exhausted) had only `resource`, so a
  // search by the documented keys missed the line that says a resource gave up.
  it('[FINDING S9-EV8] the retry-scheduled and retries-exhausted lines carry the resource context keys', async () => {
    const ns = await newNamespace(bed.admin);
    const lines: Line[] = [];
    const operator = bed.operator({ logger: recordingLogger(lines) });
    operator.register(
      {
        reconcile: () => {
          throw new Error('backend down');
        },
      },
      {
        resourceType: Widget,
        name: 'ev8',
        namespaces: [ns],
        retry: new GenericRetry({ maxAttempts: 1, initialInterval: 10 }),
      },
    );
    await operator.start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(
      () => lines.some((l) => l.message.startsWith('reconciliation failed; retries exhausted')),
      'retries exhausted',
    );
    const failures = lines.filter(
      (l) =>
        l.message.startsWith('reconciliation failed; retry scheduled') ||
        l.message.startsWith('reconciliation failed; retries exhausted'),
    );
    expect(failures.length).toBeGreaterThanOrEqual(2);
    for (const line of failures) {
      expect(line.fields).toMatchObject({
        'resource.name': 'w',
        'resource.namespace': ns,
        'resource.kind': 'Widget',
        controller: 'ev8',
      });
    }
    // and nothing written after the reconciliation carries it (the retry timer's run is its own)
    const after = lines.filter(
      (l) => l.message === 'controller registered' || l.message === 'operator started',
    );
    for (const line of after) expect(line.fields['resource.name']).toBeUndefined();
  });
});
