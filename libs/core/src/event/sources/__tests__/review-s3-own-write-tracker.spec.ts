import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { MAX_TRACKED_KEYS, OwnWriteTracker } from '../own-write-tracker.js';

/**
 * Review s3 of b5f445c (own-write tracker states in a Map bounded from the front): the bound evicts
 * the least recently WRITTEN key's state, whatever it holds. A state with a write in flight holds the
 * events that arrived meanwhile (judged when the write returns); evicting it drops them, and a
 * foreign change among them is never reconciled (the issue's rule: an own write never suppresses a
 * foreign event). It takes more than MAX_TRACKED_KEYS other objects written while one write is in
 * flight (e.g. a write stalled at a slow server during a large initial reconcile, issue 15's 50,000
 * scale). The LRU cache before b5f445c lost them too (the held event's lookup made the key recent,
 * the later writes evicted it all the same): pre-existing, not made worse.
 */
const at = (name: string, resourceVersion: string, value = resourceVersion): V1ConfigMap => ({
  metadata: { name, namespace: 'ns', resourceVersion },
  data: { value },
});
const EXPLAINED = { explains: () => true };

describe('review s3: the own-write tracker bound', () => {
  // pre-existing (LRU before b5f445c, insertion order since); H15 finding F5, fixed by H11: states
  // with a write in flight are never evicted
  it('[ES-12] a foreign event held during a slow write is still reported when the write returns after more than MAX_TRACKED_KEYS other writes', () => {
    const t = new OwnWriteTracker<V1ConfigMap>();
    const slow = 'ns/slow';
    t.begin(slow);
    // someone else changes the object while our write waits at the server
    expect(
      t.onEvent(slow, { kind: 'update', oldObj: at('slow', '9'), obj: at('slow', '10', 'theirs') }),
    ).toBe('held');
    // meanwhile the operator writes many other objects whose events have not arrived yet
    for (let i = 0; i <= MAX_TRACKED_KEYS; i++) {
      const key = `ns/o${i}`;
      t.begin(key);
      t.end(key, at(`o${i}`, '2'), at(`o${i}`, '1'), EXPLAINED);
    }
    const foreign = t.end(slow, at('slow', '11'), at('slow', '10', 'theirs'), EXPLAINED);
    expect(foreign.map((e) => e.obj.metadata?.resourceVersion)).toEqual(['10']);
  });
});
