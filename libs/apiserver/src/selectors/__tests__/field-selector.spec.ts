import { describe, expect, it } from '@jest/globals';
import type { FieldRequirement } from '../index.js';
import {
  escapeFieldValue,
  fieldSelectorToString,
  matchesFields,
  parseFieldSelector,
  SelectorError,
  unescapeFieldValue,
} from '../index.js';

describe('parseFieldSelector: accepted forms', () => {
  const cases: Array<[input: string, parsed: FieldRequirement[]]> = [
    ['', []],
    [',', []],
    ['metadata.name=a', [{ field: 'metadata.name', op: '=', value: 'a' }]],
    ['metadata.name==a', [{ field: 'metadata.name', op: '=', value: 'a' }]],
    ['metadata.name!=a', [{ field: 'metadata.name', op: '!=', value: 'a' }]],
    ['spec.nodeName=', [{ field: 'spec.nodeName', op: '=', value: '' }]],
    ['=a', [{ field: '', op: '=', value: 'a' }]],
    [
      'status.phase=Running,metadata.name!=x',
      [
        { field: 'metadata.name', op: '!=', value: 'x' },
        { field: 'status.phase', op: '=', value: 'Running' },
      ],
    ],
    [
      'a=b,,c=d',
      [
        { field: 'a', op: '=', value: 'b' },
        { field: 'c', op: '=', value: 'd' },
      ],
    ],
    ['a = b', [{ field: 'a ', op: '=', value: ' b' }]],
    ['x=a\\,b', [{ field: 'x', op: '=', value: 'a,b' }]],
    ['x=a\\=b', [{ field: 'x', op: '=', value: 'a=b' }]],
    ['x=a\\\\b', [{ field: 'x', op: '=', value: 'a\\b' }]],
    ['x=a!b', [{ field: 'x', op: '=', value: 'a!b' }]],
    ['x!=a!b', [{ field: 'x', op: '!=', value: 'a!b' }]],
    ['x=!a', [{ field: 'x', op: '=', value: '!a' }]],
    ['x==\\=', [{ field: 'x', op: '=', value: '=' }]],
  ];
  it.each(cases)('%j', (input, parsed) => {
    expect(parseFieldSelector(input)).toEqual(parsed);
  });
});

describe('parseFieldSelector: refused forms', () => {
  const cases: Array<[input: string, message: string]> = [
    ['metadata.name', "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['x=a=b', 'invalid field selector: unescaped character in value: 61'],
    ['x!==a', 'invalid field selector: unescaped character in value: 61'],
    ['x=a\\!b', 'invalid field selector: invalid escape sequence: \\!'],
    ['x=a\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['x=a\\', 'invalid field selector: invalid escape sequence: \\'],
  ];
  it.each(cases)('%j', (input, message) => {
    let caught: unknown;
    try {
      parseFieldSelector(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SelectorError);
    expect((caught as SelectorError).code).toBe('InvalidFieldSelector');
    expect((caught as SelectorError).status).toBe(400);
    expect((caught as SelectorError).message).toBe(message);
  });
});

describe('matchesFields', () => {
  const fields: Record<string, string> = {
    'metadata.name': 'a',
    'metadata.namespace': 'ns',
    'status.phase': 'Running',
  };
  const get = (f: string): string | undefined => fields[f];
  const cases: Array<[selector: string, matches: boolean]> = [
    ['', true],
    ['metadata.name=a', true],
    ['metadata.name==a', true],
    ['metadata.name=b', false],
    ['metadata.name!=b', true],
    ['metadata.name!=a', false],
    ['metadata.name=a,status.phase=Running', true],
    ['metadata.name=a,status.phase=Pending', false],
    ['spec.nodeName=', true],
    ['spec.nodeName!=', false],
    ['spec.nodeName!=n1', true],
    ['spec.nodeName=n1', false],
  ];
  it.each(cases)('%j → %s', (selector, expected) => {
    expect(matchesFields(parseFieldSelector(selector), get)).toBe(expected);
  });
});

describe('field value escaping', () => {
  it.each(['', 'plain', 'a,b', 'a=b', 'a\\b', '\\,=', 'a!b'])('%j round-trips', (value) => {
    expect(unescapeFieldValue(escapeFieldValue(value))).toBe(value);
    const [req] = parseFieldSelector(fieldSelectorToString([{ field: 'f', op: '!=', value }]));
    expect(req).toEqual({ field: 'f', op: '!=', value });
  });
});
