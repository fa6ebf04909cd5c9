import { describe, it, expect } from '@jest/globals';
import { KubernetesApiError, KubernetesTransportError } from '../../client/errors.js';
import type { LogFields, Logger } from '../../util/logger.js';
import { FakeClock } from '../../operator/leader-election/__tests__/fake-clock.js';
import { EventRecorder } from '../event-recorder.js';
import type { EventRecorderOptions } from '../event-recorder.js';
import { InvalidEventRecorderOptionsError } from '../event-errors.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { EventSinkDouble } from './event-sink-double.js';

const page: KubernetesResource = {
  apiVersion: 'sample.tosdk.io/v1',
  kind: 'WebPage',
  metadata: { name: 'home', namespace: 'web', uid: 'uid-1', resourceVersion: '42' },
};
const node: KubernetesResource = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'uid-n' } };

function recordingLogger(lines: Array<{ level: string; message: string; fields?: LogFields }>): Logger {
  const logger: Logger = {
    debug: (message, fields) => lines.push({ level: 'debug', message, fields }),
    info: (message, fields) => lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => lines.push({ level: 'error', message, fields }),
    child: () => logger,
  };
  return logger;
}

function setup(options: Partial<EventRecorderOptions> = {}) {
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 8, 0, 0));
  const sink = new EventSinkDouble();
  const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
  const recorder = new EventRecorder(sink, {
    component: 'webpage-operator',
    clock,
    logger: recordingLogger(lines),
    ...options,
  });
  return { clock, sink, lines, recorder };
}

describe('EventRecorder', () => {
  it('creates a core/v1 Event about the object in its namespace, named <name>.<hex timestamp>', async () => {
    const { sink, recorder, clock } = setup({ host: 'pod-7' });
    await recorder.warning(page, 'ProcessingError', 'cannot reach the backend', 'Reconcile');
    const [event] = sink.list();
    expect(sink.list()).toHaveLength(1);
    // <hex nanoseconds>: in the clock's millisecond (counted up from the last name the process made)
    const [prefix, hex] = event.metadata!.name!.split('.');
    expect(prefix).toBe('home');
    const nanos = BigInt(`0x${hex}`);
    expect(nanos >= BigInt(clock.now()) * 1_000_000n && nanos < BigInt(clock.now() + 1) * 1_000_000n).toBe(
      true,
    );
    expect(event).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'web' },
      involvedObject: {
        apiVersion: 'sample.tosdk.io/v1',
        kind: 'WebPage',
        name: 'home',
        namespace: 'web',
        uid: 'uid-1',
        resourceVersion: '42',
      },
      type: 'Warning',
      reason: 'ProcessingError',
      message: 'cannot reach the backend',
      action: 'Reconcile',
      count: 1,
      firstTimestamp: '2026-11-22T08:00:00Z',
      lastTimestamp: '2026-11-22T08:00:00Z',
      source: { component: 'webpage-operator', host: 'pod-7' },
      reportingComponent: 'webpage-operator',
      reportingInstance: 'pod-7',
    });
  });

  it('puts events about cluster-scoped objects in "default"', async () => {
    const { sink, recorder } = setup();
    await recorder.normal(node, 'Drained', 'node drained');
    const [event] = sink.list();
    expect(event.metadata?.namespace).toBe('default');
    expect(event.involvedObject.namespace).toBeUndefined();
    expect(event.source).toEqual({ component: 'webpage-operator' });
  });

  it('a repeat within 10 minutes patches count and lastTimestamp of the same Event; later ones start anew', async () => {
    const { sink, recorder, clock } = setup();
    await recorder.warning(page, 'ProcessingError', 'boom');
    await clock.advance(60_000);
    await recorder.warning(
      { ...page, metadata: { ...page.metadata, resourceVersion: '43' } },
      'ProcessingError',
      'boom',
    );
    await clock.advance(9 * 60_000);
    await recorder.warning(page, 'ProcessingError', 'boom');
    expect(sink.list()).toHaveLength(1);
    expect(sink.list()[0]).toMatchObject({
      count: 3,
      firstTimestamp: '2026-11-22T08:00:00Z',
      lastTimestamp: '2026-11-22T08:10:00Z',
    });
    expect(sink.calls.map((c) => c.verb)).toEqual(['create', 'patch', 'patch']);
    expect(sink.calls[1].body).toEqual({ count: 2, lastTimestamp: '2026-11-22T08:01:00Z', message: 'boom' });

    await clock.advance(10 * 60_000 + 1);
    await recorder.warning(page, 'ProcessingError', 'boom');
    expect(sink.list()).toHaveLength(2);
    expect(sink.list()[1]).toMatchObject({ count: 1 });
  });

  it('a different type, reason, message or object is a different Event', async () => {
    const { sink, recorder } = setup();
    await recorder.warning(page, 'ProcessingError', 'boom');
    await recorder.normal(page, 'ProcessingError', 'boom');
    await recorder.warning(page, 'Other', 'boom');
    await recorder.warning(page, 'ProcessingError', 'bang');
    await recorder.warning(
      { ...page, metadata: { ...page.metadata, name: 'about' } },
      'ProcessingError',
      'boom',
    );
    expect(sink.list()).toHaveLength(5);
    expect(new Set(sink.list().map((e) => e.metadata?.name)).size).toBe(5);
  });

  it('repeats recorded without awaiting are written in order: one create, then counts 2, 3, 4', async () => {
    const { sink, recorder } = setup();
    const all = [1, 2, 3, 4].map(() => recorder.warning(page, 'ProcessingError', 'boom'));
    await Promise.all(all);
    expect(sink.calls.map((c) => c.verb)).toEqual(['create', 'patch', 'patch', 'patch']);
    expect(sink.list()[0].count).toBe(4);
  });

  it('re-creates an Event the server expired, keeping its name and count', async () => {
    const { sink, recorder } = setup();
    await recorder.warning(page, 'ProcessingError', 'boom');
    const name = sink.list()[0].metadata?.name;
    sink.events.clear(); // the API server's event TTL removed it
    await recorder.warning(page, 'ProcessingError', 'boom');
    expect(sink.calls.map((c) => c.verb)).toEqual(['create', 'patch', 'create']);
    expect(sink.list()).toHaveLength(1);
    expect(sink.list()[0]).toMatchObject({ metadata: { name }, count: 2 });
  });

  it('never rejects: a 403 is logged with the permission to grant', async () => {
    const { sink, recorder, lines } = setup();
    sink.failures.push(new KubernetesApiError(403, { reason: 'Forbidden', message: 'events is forbidden' }));
    await expect(recorder.warning(page, 'ProcessingError', 'boom')).resolves.toBeUndefined();
    expect(sink.list()).toHaveLength(0);
    expect(sink.calls).toHaveLength(1); // a 4xx is not retried
    const line = lines.find((l) => l.level === 'warn')!;
    expect(line.message).toContain('Grant create and patch on events in namespace "web"');
    expect(line.fields).toMatchObject({ object: 'WebPage web/home', reason: 'ProcessingError' });
  });

  it('retries transport failures and 5xx, then gives up with a log line', async () => {
    const { sink, recorder, clock, lines } = setup({ maxAttempts: 3, retryDelayMs: 1000 });
    sink.failures.push(new KubernetesTransportError('connection refused', 'connection'));
    const first = recorder.normal(page, 'Created', 'created');
    await clock.advance(1000);
    await first;
    expect(sink.list()).toHaveLength(1);

    const unavailable = () => new KubernetesApiError(503, { message: 'unavailable' });
    sink.failures.push(unavailable(), unavailable(), unavailable());
    const second = recorder.normal(page, 'Deleted', 'deleted');
    await clock.advance(2000);
    await second;
    expect(sink.list()).toHaveLength(1);
    expect(sink.calls.filter((c) => c.verb === 'create')).toHaveLength(2 + 3);
    expect(lines.some((l) => l.level === 'warn' && l.message === 'event not recorded')).toBe(true);
  });

  it('drops invalid input with a log line instead of throwing', async () => {
    const { sink, recorder, lines } = setup();
    await expect(recorder.normal({ metadata: { name: 'x' } }, 'R', 'm')).resolves.toBeUndefined();
    // @ts-expect-error: a type outside Normal/Warning
    await expect(recorder.event(page, 'Info', 'R', 'm')).resolves.toBeUndefined();
    await expect(recorder.normal(page, '', 'm')).resolves.toBeUndefined();
    expect(sink.calls).toHaveLength(0);
    expect(lines.filter((l) => l.level === 'error').map((l) => l.fields?.['error'])).toEqual([
      'invalid event: the object needs apiVersion, kind and metadata.name',
      'invalid event: event type must be Normal or Warning, got "Info"',
      'invalid event: an event needs a reason',
    ]);
  });

  it('spam filter: 25 events about one object in a burst, then one per 5 minutes', async () => {
    const { sink, recorder, clock } = setup();
    for (let i = 0; i < 30; i++) await recorder.normal(page, `Step${i}`, `step ${i}`);
    expect(sink.calls).toHaveLength(25);
    await recorder.normal(node, 'Other', 'another object is not throttled');
    expect(sink.calls).toHaveLength(26);
    await clock.advance(299_000);
    await recorder.normal(page, 'Late', 'late');
    expect(sink.calls).toHaveLength(26);
    await clock.advance(1_000);
    await recorder.normal(page, 'Late', 'late');
    expect(sink.calls).toHaveLength(27);
  });

  it('combines the 10th and later distinct messages with one reason into one Event', async () => {
    const { sink, recorder } = setup();
    for (let i = 1; i <= 12; i++) await recorder.warning(page, 'ProcessingError', `failure #${i}`);
    const events = sink.list();
    expect(events).toHaveLength(10);
    const combined = events.find((e) => e.message.startsWith('(combined from similar events): '))!;
    expect(combined).toMatchObject({ count: 3, message: '(combined from similar events): failure #12' });
  });

  it('cuts long messages and long object names to what the server accepts', async () => {
    const { sink, recorder } = setup();
    const long = { ...page, metadata: { ...page.metadata, name: `${'a'.repeat(250)}b` } };
    await recorder.warning(long, 'ProcessingError', 'x'.repeat(5000));
    const [event] = sink.list();
    expect(event.message).toHaveLength(1024);
    expect(event.message.endsWith('...')).toBe(true);
    expect(event.metadata!.name!.length).toBeLessThanOrEqual(253);
    expect(event.metadata!.name).toMatch(/^a+\.[0-9a-f]+$/);
  });

  it('drops events beyond maxPending with a log line, and flush() waits for the pending ones', async () => {
    const { sink, recorder, clock, lines } = setup({ maxPending: 1, retryDelayMs: 1000 });
    sink.failures.push(new KubernetesTransportError('connection reset', 'connection'));
    const first = recorder.normal(page, 'First', 'waits for a retry');
    await recorder.normal(page, 'Second', 'no room');
    expect(lines.some((l) => l.message === 'event dropped: too many events waiting to be written')).toBe(
      true,
    );
    let flushed = false;
    const flushing = recorder.flush().then(() => (flushed = true));
    await clock.advance(0);
    expect(flushed).toBe(false);
    await clock.advance(1000);
    await flushing;
    await first;
    expect(sink.list().map((e) => e.reason)).toEqual(['First']);
  });

  it('rejects bad options with a typed error', () => {
    const sink = new EventSinkDouble();
    expect(() => new EventRecorder(sink, { component: '' })).toThrow(InvalidEventRecorderOptionsError);
    expect(() => new EventRecorder(sink, { component: 'c', spamBurst: 2.5 })).toThrow(
      'spamBurst must be a positive integer, got 2.5',
    );
    expect(() => new EventRecorder(sink, { component: 'c', repeatWindowMs: -1 })).toThrow(
      'repeatWindowMs must be a positive number, got -1',
    );
  });
});
