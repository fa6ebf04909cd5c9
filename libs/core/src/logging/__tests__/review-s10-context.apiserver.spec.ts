import { describe, expect, it } from '@jest/globals';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import { PollingEventSource } from '../../event/sources/polling-event-source.js';
import { SimpleInboundEventSource } from '../../event/sources/inbound-event-sources.js';
import type { LogFields, Logger } from '../../util/logger.js';
import { currentResourceContext } from '../resource-context.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

const bed = apiServerSuite();

interface Line {
  message: string;
  fields: LogFields;
}

function recordingLogger(lines: Line[], bindings: LogFields = {}): Logger {
  const at = (message: string, fields?: LogFields): void => {
    lines.push({ message, fields: { ...bindings, ...fields } });
  };
  return {
    debug: at,
    info: at,
    warn: at,
    error: at,
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}

describe('logging context review (session 10)', () => {
  // S9-EV5 took informers started during a reconcile out of its AsyncLocalStorage context, but any
  // other source registered there (polling, timers, custom) still ran its timers in the context of
  // the reconciliation that registered it: each later poll's failure line named that resource,
  // which the poll is not about (JOSDK's MDC is removed when the reconciliation ends).
  it('[FINDING S10-LC1] a polling source registered during a reconcile does not log its later polls with that resource', async () => {
    const ns = await newNamespace(bed.admin);
    const lines: Line[] = [];
    let polls = 0;
    const operator = bed.operator({ logger: recordingLogger(lines) });
    operator.register(
      {
        reconcile: async (w: Widget, c: Context<Widget>) => {
          const retriever = c.eventSourceRetriever();
          await retriever.dynamicallyRegisterEventSource(
            'late-polling',
            () =>
              new PollingEventSource<string>({
                periodMs: 50,
                logger: retriever.eventSourceContext.logger,
                fetcher: async () => {
                  if (++polls > 1) throw new Error('external API down');
                  return new Map();
                },
              }),
          );
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'lc1', namespaces: [ns] },
    );
    await operator.start();
    await bed.admin.create(Widget, widget('a', ns));
    await waitFor(() => lines.some((l) => l.message.startsWith('poll failed')), 'a failing poll logged');
    const failed = lines.filter((l) => l.message.startsWith('poll failed'));
    for (const line of failed) {
      expect(line.fields['eventSource']).toBeDefined();
      expect(line.fields['resource.name']).toBeUndefined();
    }
  });

  it('[FINDING S10-LC1] a custom source started during a reconcile runs its start and timers outside that resource context', async () => {
    const ns = await newNamespace(bed.admin);
    const seen: Array<string | undefined> = [];
    let fired = false;
    const operator = bed.operator();
    operator.register(
      {
        reconcile: async (w: Widget, c: Context<Widget>) => {
          const retriever = c.eventSourceRetriever();
          await retriever.dynamicallyRegisterEventSource('late-timer', () => {
            const timer = new SimpleInboundEventSource();
            const start = timer.start.bind(timer);
            timer.start = async () => {
              seen.push(currentResourceContext()?.['resource.name']);
              await start();
              setTimeout(() => {
                seen.push(currentResourceContext()?.['resource.name']);
                fired = true;
              }, 10);
            };
            return timer;
          });
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'lc1-timer', namespaces: [ns] },
    );
    await operator.start();
    await bed.admin.create(Widget, widget('a', ns));
    await waitFor(() => fired, 'the source started and its timer fired');
    expect(seen).toEqual([undefined, undefined]);
  });
});
