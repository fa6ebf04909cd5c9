import { describe, expect, it } from '@jest/globals';
import type { LabelSelectorObject } from '../index.js';
import {
  labelSelectorFromObject,
  matchesLabels,
  NOTHING,
  selectorToString,
  SelectorError,
} from '../index.js';

describe('labelSelectorFromObject (metav1.LabelSelector)', () => {
  it('null selects nothing, {} selects everything', () => {
    expect(labelSelectorFromObject(null)).toBe(NOTHING);
    expect(labelSelectorFromObject(undefined)).toBe(NOTHING);
    expect(matchesLabels(labelSelectorFromObject(null), { a: 'b' })).toBe(false);
    expect(matchesLabels(labelSelectorFromObject({}), { a: 'b' })).toBe(true);
    expect(matchesLabels(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }), undefined)).toBe(
      true,
    );
  });

  const cases: Array<
    [sel: LabelSelectorObject, canonical: string, labels: Record<string, string>, matches: boolean]
  > = [
    [{ matchLabels: { app: 'web' } }, 'app=web', { app: 'web' }, true],
    [{ matchLabels: { b: '1', a: '2' } }, 'a=2,b=1', { a: '2', b: '1' }, true],
    [{ matchLabels: { app: 'web' } }, 'app=web', { app: 'db' }, false],
    [
      { matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] },
      'tier in (a,b)',
      { tier: 'a' },
      true,
    ],
    [
      { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] },
      'tier notin (a)',
      { tier: 'a' },
      false,
    ],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, 'tier notin (a)', {}, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, 'tier', { tier: '' }, true],
    [
      { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist', values: [] }] },
      '!tier',
      { tier: '' },
      false,
    ],
    [
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
      'app=web,env in (prod)',
      { app: 'web', env: 'prod' },
      true,
    ],
  ];
  it.each(cases)('%j → %j', (sel, canonical, labels, matches) => {
    const parsed = labelSelectorFromObject(sel);
    expect(selectorToString(parsed)).toBe(canonical);
    expect(matchesLabels(parsed, labels)).toBe(matches);
  });

  const bad: Array<[sel: unknown, message: string]> = [
    [
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      '"Gt" is not a valid label selector operator',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'in', values: ['1'] }] },
      '"in" is not a valid label selector operator',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    ],
    [{ matchLabels: { 'a b': 'c' } }, 'key: Invalid value: "a b": name part must consist of'],
    [
      { matchLabels: { a: 'c d' } },
      'values[0][a]: Invalid value: "c d": a valid label must be an empty string',
    ],
    [{ matchLabels: { a: 1 } }, 'matchLabels[a]: Invalid value: must be a string'],
    [{ matchLabels: ['a'] }, 'matchLabels: Invalid value: must be a map'],
    [{ matchExpressions: {} }, 'matchExpressions: Invalid value: must be a list'],
    [{ matchExpressions: ['x'] }, 'matchExpressions[0]: Invalid value: must be an object'],
    [
      { matchExpressions: [{ operator: 'Exists' }] },
      'matchExpressions[0].key: Invalid value: must be a string',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] },
      'matchExpressions[0].values: Invalid value: must be a list of strings',
    ],
    ['app=web', 'a label selector must be an object'],
  ];
  it.each(bad)('refuses %j', (sel, message) => {
    let caught: unknown;
    try {
      labelSelectorFromObject(sel as LabelSelectorObject);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SelectorError);
    expect((caught as SelectorError).code).toBe('InvalidLabelSelector');
    expect((caught as SelectorError).message.startsWith(message)).toBe(true);
  });
});
