import { describe, expect, it } from '@jest/globals';
import { matchesLabels, parseLabelSelector, selectorToString, SelectorError } from '../index.js';

const NAME_REGEX =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_REGEX =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const SUBDOMAIN_REGEX =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('parseLabelSelector: accepted forms and their canonical text', () => {
  const cases: Array<[input: string, canonical: string]> = [
    ['', ''],
    ['   ', ''],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x', 'x'],
    ['!x', '!x'],
    [' ! x ', '!x'],
    ['x in (a,b)', 'x in (a,b)'],
    ['x in (b,a,b)', 'x in (a,b)'],
    ['x notin (a)', 'x notin (a)'],
    ['x in(a)', 'x in (a)'],
    ['x in ( a , b )', 'x in (a,b)'],
    ['x in ()', 'x in ()'],
    ['x in (,a)', 'x in (,a)'],
    ['x in (a,)', 'x in (,a)'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['x=', 'x='],
    ['x=,y', 'x=,y'],
    ['x>1', 'x>1'],
    ['x<1', 'x<1'],
    ['b=1,a=2', 'a=2,b=1'],
    ['  z = 1 ,\ty\n!= 2\r', 'y!=2,z=1'],
    ['example.com/app=web', 'example.com/app=web'],
    ['in=notin', 'in=notin'],
    ['x in (in,notin)', 'x in (in,notin)'],
    ['a.b-c_d=A.b-C_9', 'a.b-c_d=A.b-C_9'],
    [`${'k'.repeat(63)}=${'v'.repeat(63)}`, `${'k'.repeat(63)}=${'v'.repeat(63)}`],
    ['x,!y,z in (1)', 'x,!y,z in (1)'],
  ];
  it.each(cases)('%j → %j', (input, canonical) => {
    expect(selectorToString(parseLabelSelector(input))).toBe(canonical);
  });
});

describe('parseLabelSelector: refused forms, with kube-apiserver messages', () => {
  const cases: Array<[input: string, message: string]> = [
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['x y', "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
    ['x=a y=b', "found 'y', expected: ',' or 'end of string'"],
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['!=a', "found '!=', expected: !, identifier, or 'end of string'"],
    ['x=a,', "found '', expected: identifier after ','"],
    ['x=a,,y', "found ',', expected: identifier after ','"],
    ['x=a,=b', "found '=', expected: identifier after ','"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!x', "unable to parse requirement: found '!', expected: identifier"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x (a)', "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in', "unable to parse requirement: found '' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x in (', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['x=(a)', "unable to parse requirement: found '(', expected: identifier"],
    ['x==!', "unable to parse requirement: found '!', expected: identifier"],
    [
      'x>a',
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'x>',
      `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    ['-x', `unable to parse requirement: <nil>: Invalid value: "-x": name part ${NAME_REGEX}`],
    ['x-=a', `unable to parse requirement: <nil>: Invalid value: "x-": name part ${NAME_REGEX}`],
    [
      `${'k'.repeat(64)}`,
      `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`,
    ],
    [
      'a/b/c=d',
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name ${NAME_REGEX} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    ['/a', `unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty`],
    [
      'a/',
      `unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; name part ${NAME_REGEX}`,
    ],
    [
      'Example.com/a',
      `unable to parse requirement: <nil>: Invalid value: "Example.com/a": prefix part ${SUBDOMAIN_REGEX}`,
    ],
    ['x=a$b', `unable to parse requirement: values[0][x]: Invalid value: "a$b": ${VALUE_REGEX}`],
    ['x=-a', `unable to parse requirement: values[0][x]: Invalid value: "-a": ${VALUE_REGEX}`],
    [
      `x=${'v'.repeat(64)}`,
      `unable to parse requirement: values[0][x]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
    ],
    [
      'x in (-b,-a)',
      `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${VALUE_REGEX}, values[1][x]: Invalid value: "-b": ${VALUE_REGEX}]`,
    ],
    ['x=é', `unable to parse requirement: values[0][x]: Invalid value: "é": ${VALUE_REGEX}`],
  ];
  it.each(cases)('%j', (input, message) => {
    let caught: unknown;
    try {
      parseLabelSelector(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SelectorError);
    const err = caught as SelectorError;
    expect(err.code).toBe('InvalidLabelSelector');
    expect(err.status).toBe(400);
    expect(err.message).toBe(message);
  });
});

describe('matchesLabels on parsed selectors', () => {
  const labels = { app: 'web', tier: 'front', n: '10', bad: 'x' };
  const cases: Array<[selector: string, labels: Record<string, string> | undefined, matches: boolean]> = [
    ['', undefined, true],
    ['', labels, true],
    ['app=web', labels, true],
    ['app==web', labels, true],
    ['app=db', labels, false],
    ['app=web,tier=back', labels, false],
    ['app!=db', labels, true],
    ['app!=web', labels, false],
    ['missing!=x', labels, true],
    ['missing=', labels, false],
    ['app in (db,web)', labels, true],
    ['app in (db)', labels, false],
    ['missing in (a)', labels, false],
    ['app notin (db)', labels, true],
    ['app notin (web)', labels, false],
    ['missing notin (a)', labels, true],
    ['app', labels, true],
    ['missing', labels, false],
    ['!app', labels, false],
    ['!missing', labels, true],
    ['!missing', undefined, true],
    ['app', undefined, false],
    ['n>9', labels, true],
    ['n>10', labels, false],
    ['n<11', labels, true],
    ['n<10', labels, false],
    ['bad>1', labels, false],
    ['missing<1', labels, false],
    ['x in ()', { x: '' }, true],
    ['x=', { x: '' }, true],
  ];
  it.each(cases)('%j on %j → %s', (selector, given, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), given)).toBe(expected);
  });

  it('does not take inherited properties for labels', () => {
    expect(matchesLabels(parseLabelSelector('toString'), {})).toBe(false);
    expect(matchesLabels(parseLabelSelector('!constructor'), {})).toBe(true);
  });
});
