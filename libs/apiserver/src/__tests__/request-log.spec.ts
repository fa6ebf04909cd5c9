import { describe, it, expect } from '@jest/globals';
import { RequestAccounting } from '../request-log.js';
import type { RequestRecord } from '../request-log.js';

function rec(i: number): RequestRecord {
  return {
    time: i,
    user: 'admin',
    verb: i % 2 === 0 ? 'patch' : 'get',
    group: '',
    resource: 'configmaps',
    subresource: undefined,
    namespace: 'default',
    name: `cm-${i}`,
    path: `/api/v1/namespaces/default/configmaps/cm-${i}`,
    code: 200,
  };
}

describe('request accounting', () => {
  it('[AS-FAULT] keeps exactly the newest requestLogSize entries, whenever it is read', () => {
    const log = new RequestAccounting(8);
    for (let i = 0; i < 100; i++) {
      log.record(rec(i));
      const kept = Math.min(i + 1, 8);
      expect(log.count()).toBe(kept);
      expect(log.log.map((r) => r.time)).toEqual(Array.from({ length: kept }, (_, k) => i + 1 - kept + k));
      expect(log.writes()).toBe(log.log.filter((r) => r.verb === 'patch').length);
    }
    expect(log.summary()).toEqual({ 'admin|patch|configmaps': 4, 'admin|get|configmaps': 4 });
    log.reset();
    expect(log.log).toEqual([]);
  });

  it('[AS-FAULT] many requests between reads still leave only the newest entries', () => {
    const log = new RequestAccounting(8);
    for (let i = 0; i < 1_000; i++) log.record(rec(i));
    expect(log.log.map((r) => r.name)).toEqual(Array.from({ length: 8 }, (_, k) => `cm-${992 + k}`));
  });
});
