/**
 * Kubernetes' CEL libraries as the Kubernetes documentation ("Common Expression Language in
 * Kubernetes", its library tables and examples) describes them, evaluated in the CRD rules'
 * environment; and the cost limits on CRDs and objects with kube-apiserver's texts.
 */
import { describe, expect, it } from '@jest/globals';
import { isCelError, parse, plan } from '@bufbuild/cel';
import { compileCrd } from '../index.js';
import type { CompiledVersion, JsonSchemaProps } from '../index.js';
import type { JsonObject, StatusCause } from '../../types.js';
import { kubernetesCelEnv } from '../internal/cel/environment.js';
import { v0, webPageCrd } from './fixtures.js';

const evaluate = (expr: string): unknown => {
  const r = plan(kubernetesCelEnv(), parse(expr))({});
  if (isCelError(r)) throw r;
  return r;
};

describe('Kubernetes CEL libraries (examples from the Kubernetes documentation)', () => {
  it.each([
    // lists
    ['[1, 2, 3].isSorted()', true],
    ["['b', 'a'].isSorted()", false],
    ['[1, 2, 3].sum() == 6', true],
    ['[1.0, 2.5].sum() == 3.5', true],
    ['[1, 2, 3].min() == 1 && [1, 2, 3].max() == 3', true],
    ["['a', 'b', 'b', 'c'].indexOf('b') == 1 && ['a', 'b', 'b', 'c'].lastIndexOf('b') == 2", true],
    ['[1, 2].indexOf(3) == -1', true],
    // sets
    ['sets.contains([1, 2, 3, 4], [2, 3])', true],
    ['sets.contains([1, 2], [2, 3])', false],
    ['sets.equivalent([1, 2, 3], [3, 2, 1, 1])', true],
    ['sets.intersects([1, 2, 3], [3, 4])', true],
    ['sets.intersects([1], [2])', false],
    // regex
    ["'abc 123'.find('[0-9]+') == '123'", true],
    ["'abc'.find('[0-9]+') == ''", true],
    ["'123 abc 456'.findAll('[0-9]+') == ['123', '456']", true],
    ["'123 abc 456'.findAll('[0-9]+', 1) == ['123']", true],
    // URLs
    ["url('https://example.com:80/').getHost() == 'example.com:80'", true],
    ["url('https://example.com:80/').getHostname() == 'example.com'", true],
    ["url('https://[::1]:80/').getHostname() == '::1' && url('https://[::1]:80/').getPort() == '80'", true],
    [
      "url('https://example.com/a/b').getEscapedPath() == '/a/b' && url('https://example.com').getScheme() == 'https'",
      true,
    ],
    ["url('https://example.com/?k=a&k=b&x=1').getQuery() == {'k': ['a', 'b'], 'x': ['1']}", true],
    ["isURL('https://example.com') && isURL('/absolute-path') && !isURL('relative')", true],
    // IP and CIDR
    ["ip('127.0.0.1').family() == 4 && ip('::1').family() == 6", true],
    ["isIP('1.2.3.4') && !isIP('1.2.3.4.5') && !isIP('01.2.3.4')", true],
    ["ip.isCanonical('2001:db8::abcd') && !ip.isCanonical('2001:DB8::ABCD')", true],
    [
      "ip('127.0.0.1').isLoopback() && ip('0.0.0.0').isUnspecified() && ip('fe80::1').isLinkLocalUnicast()",
      true,
    ],
    [
      "ip('224.0.0.1').isLinkLocalMulticast() && ip('8.8.8.8').isGlobalUnicast() && !ip('127.0.0.1').isGlobalUnicast()",
      true,
    ],
    [
      "ip('2001:db8::1') == ip('2001:0db8:0:0:0:0:0:1') && string(ip('2001:0db8::0001')) == '2001:db8::1'",
      true,
    ],
    [
      "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/24').containsIP('192.168.1.1')",
      true,
    ],
    [
      "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24') && !cidr('192.168.0.0/24').containsCIDR('192.168.0.0/16')",
      true,
    ],
    [
      "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24') && cidr('192.168.0.1/24').prefixLength() == 24",
      true,
    ],
    ["cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && isCIDR('::1/128') && !isCIDR('1.2.3.4')", true],
    ["cidr('2001:db8::/32').containsIP('2001:db8:1::1')", true],
    // quantity
    ["quantity('500000G').isInteger() && quantity('50k').add(quantity('20k')) == quantity('70k')", true],
    ["quantity('200M').compareTo(quantity('0.2G')) == 0 && quantity('1Ki') == quantity('1024')", true],
    ["isQuantity('1.3G') && !isQuantity('1.3GiB') && quantity('-1').sign() == -1", true],
    ["quantity('1.5').isInteger() == false && quantity('2000m').asInteger() == 2", true],
    [
      "quantity('50M').sub(20000000) == quantity('30M') && quantity('1Gi').isGreaterThan(quantity('1G'))",
      true,
    ],
    ["quantity('500m').asApproximateFloat() == 0.5 && quantity('100m').isLessThan(quantity('1'))", true],
    // format
    ["!format.dns1123Label().validate('my-label-name').hasValue()", true],
    ["format.dns1123Label().validate('MY_LABEL').hasValue()", true],
    ["format.named('dns1123Subdomain').hasValue() && !format.named('nope').hasValue()", true],
    ["format.named('labelValue').value().validate('bad value!').value().size() > 0", true],
    // optionals
    ['optional.of(1).hasValue() && !optional.none().hasValue() && optional.none().orValue(5) == 5', true],
    // strings extension
    ["'TacoCat'.lowerAscii() == 'tacocat' && 'a,b,c'.split(',', 2) == ['a', 'b,c']", true],
  ])('%s', (expr, expected) => {
    expect(evaluate(expr)).toBe(expected);
  });

  it.each([
    ["ip('1.2.3.4.5')", /parse error/],
    ["cidr('1.2.3.4')", /parse error/],
    ["url('not a url')", /URL parse error/],
    ["quantity('1.3GiB')", /quantities must match/],
    ["quantity('1.5').asInteger()", /cannot convert value to integer/],
    ['[].min()', /min called on empty list/],
    ['optional.none().value()', /optional.none\(\) dereference/],
  ])('%s is an error', (expr, message) => {
    expect(() => evaluate(expr)).toThrow(message);
  });
});

function version(schema: JsonSchemaProps): CompiledVersion {
  const crd = webPageCrd((c) => {
    v0(c).schema = { openAPIV3Schema: schema };
    v0(c).selectableFields = [];
  });
  const v = compileCrd(crd).versions[0];
  if (!v) throw new Error('no version');
  return v;
}

const crdErrors = (schema: JsonSchemaProps): string[] => {
  try {
    version(schema);
    return [];
  } catch (err) {
    return (err as { causes: StatusCause[] }).causes.map((c) => `${c.field}: ${c.message}`);
  }
};

const withList = (list: JsonSchemaProps, rule: string): JsonSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: { names: list },
      'x-kubernetes-validations': [{ rule }],
    },
  },
});

describe('CEL cost limits', () => {
  const quadratic = 'self.names.all(a, self.names.all(b, a == b || a != b))';

  it('a rule over unbounded lists is refused with kube-apiserver’s text; maxItems and maxLength make it installable', () => {
    const errs = crdErrors(withList({ type: 'array', items: { type: 'string' } }, quadratic));
    expect(errs).toContain(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
    expect(
      errs.some((e) => e.includes('estimated rule cost total for entire OpenAPIv3 schema exceeds budget')),
    ).toBe(true);
    expect(
      crdErrors(
        withList({ type: 'array', maxItems: 20, items: { type: 'string', maxLength: 63 } }, quadratic),
      ),
    ).toEqual([]);
  });

  it('a rule on each item of an unbounded list counts once per possible item', () => {
    const schema: JsonSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              items: {
                type: 'string',
                'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')" }],
              },
            },
          },
        },
      },
    };
    expect(crdErrors(schema).join('\n')).toMatch(
      /items\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget/,
    );
    const bounded = structuredClone(schema);
    const items = bounded.properties!.spec.properties!.items;
    items.maxItems = 10;
    items.items!.maxLength = 64;
    expect(crdErrors(bounded)).toEqual([]);
  });

  it('at runtime a rule whose actual cost passes the per-call limit fails with kube-apiserver’s text', () => {
    const v = version(
      withList({ type: 'array', maxItems: 800, items: { type: 'string', maxLength: 4 } }, quadratic),
    );
    const obj = (n: number): JsonObject => ({
      apiVersion: 'sample.tosdk.io/v1',
      kind: 'WebPage',
      metadata: { name: 'x', namespace: 'default' },
      spec: { names: Array.from({ length: n }, (_, i) => `n${i}`) },
    });
    expect(v.admit(obj(10), 'create')).toEqual([]);
    expect(v.admit(obj(800), 'create').map((c) => `${c.field}: ${c.message}`)).toEqual([
      `spec: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${quadratic}`,
    ]);
  });
});
