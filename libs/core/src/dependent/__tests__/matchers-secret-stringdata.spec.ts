import { describe, expect, it } from '@jest/globals';
import type { V1Secret } from '@kubernetes/client-node';
import { matchesManagedFields, matchesWholeObject, sanitizeDesired } from '../matchers.js';

/**
 * A Secret's `stringData` is folded into base64 `data` before matching and writing. A value that is
 * no string (a null, which the API server accepts and decodes; an object, which it rejects) used to
 * throw a raw TypeError from Buffer.from inside the matcher, so every reconciliation after the first
 * failed (H24's matcher oracle). Such a `stringData` is now left to the server: no throw, no match
 * (the write is sent).
 */
const secret = (stringData: unknown, data?: Record<string, string>): V1Secret =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'n' },
    ...(data ? { data } : {}),
    stringData,
  }) as V1Secret;

/** A Secret we applied `data.token` to (base64 of "a"). */
const applied: V1Secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 's',
    namespace: 'n',
    managedFields: [
      {
        manager: 'me',
        operation: 'Apply',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:token': {} } },
      },
    ],
  },
  data: { token: 'YQ==' },
};

describe('a Secret intent whose stringData is not a map of strings', () => {
  it.each([
    ['a null value', { token: 'a', optional: null }],
    ['an object value', { token: 'a', optional: {} }],
    ['a number value', { token: 'a', optional: 1 }],
    ['a list', ['a']],
    ['a string', 'a'],
  ])('[DR-10] with %s: the matchers answer "no match" without throwing', (_what, stringData) => {
    expect(matchesManagedFields(applied, secret(stringData), 'me')).toBe(false);
    expect(matchesWholeObject(applied, secret(stringData))).toBe(false);
  });

  it('[DR-10] sanitizeDesired leaves such a stringData as it is, for the server to decode or reject', () => {
    const withNull = secret({ token: 'a', optional: null }, { o: 'eA==' });
    expect(sanitizeDesired(withNull)).toEqual(secret({ token: 'a', optional: null }, { o: 'eA==' }));
  });

  it('[DR-10] strings are still folded (undefined members absent), and the folded intent matches what we applied', () => {
    expect(sanitizeDesired(secret({ token: 'a', gone: undefined }))).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'n' },
      data: { token: 'YQ==' },
    });
    expect(matchesManagedFields(applied, secret({ token: 'a' }), 'me')).toBe(true);
    expect(matchesManagedFields(applied, secret({ token: 'b' }), 'me')).toBe(false);
  });
});
