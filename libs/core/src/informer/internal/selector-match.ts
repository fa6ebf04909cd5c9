import type { KubernetesResource } from '../../api/resource-type.js';

/** Whether an object is in an informer's selection. */
export type ObjectMatcher = (obj: KubernetesResource) => boolean;

type LabelRequirement =
  | { key: string; op: 'exists' | 'notExists' }
  | { key: string; op: 'in' | 'notIn'; values: Set<string> }
  | { key: string; op: 'gt' | 'lt'; value: bigint };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's `strconv.ParseInt(s, 10, 64)`, as kube compares `>` and `<`: undefined when not an int64. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);

/** Splits a label selector into tokens as apimachinery's lexer does. */
function labelTokens(selector: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < selector.length) {
    const c = selector[i];
    if (/\s/.test(c)) {
      i++;
    } else if (selector.startsWith('!=', i) || selector.startsWith('==', i)) {
      out.push(selector.slice(i, i + 2));
      i += 2;
    } else if (SPECIAL.has(c)) {
      out.push(c);
      i++;
    } else {
      let j = i;
      while (j < selector.length && !SPECIAL.has(selector[j]) && !/\s/.test(selector[j])) j++;
      out.push(selector.slice(i, j));
      i = j;
    }
  }
  return out;
}

const isWord = (t: string | undefined): t is string =>
  t !== undefined && !SPECIAL.has(t) && t !== '!=' && t !== '==';

/**
 * Parses a label selector (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`,
 * `a<1`, comma-separated). Returns undefined when it cannot be parsed.
 */
export function parseLabelSelector(selector: string): LabelRequirement[] | undefined {
  const t = labelTokens(selector);
  const reqs: LabelRequirement[] = [];
  let i = 0;
  const value = (): string => (isWord(t[i]) ? t[i++] : '');
  while (i < t.length) {
    if (t[i] === '!') {
      i++;
      if (!isWord(t[i])) return undefined;
      reqs.push({ key: t[i++], op: 'notExists' });
    } else {
      if (!isWord(t[i])) return undefined;
      const key = t[i++];
      const op = t[i];
      if (op === undefined || op === ',') {
        reqs.push({ key, op: 'exists' });
      } else if (op === '=' || op === '==' || op === '!=') {
        i++;
        reqs.push({ key, op: op === '!=' ? 'notIn' : 'in', values: new Set([value()]) });
      } else if (op === 'in' || op === 'notin') {
        i++;
        if (t[i++] !== '(') return undefined;
        const values = new Set<string>();
        for (;;) {
          values.add(value());
          const next = t[i++];
          if (next === ')') break;
          if (next !== ',') return undefined;
        }
        reqs.push({ key, op: op === 'in' ? 'in' : 'notIn', values });
      } else if (op === '<' || op === '>') {
        i++;
        const n = parseInt64(value());
        if (n === undefined) return undefined;
        reqs.push({ key, op: op === '>' ? 'gt' : 'lt', value: n });
      } else {
        return undefined;
      }
    }
    if (i < t.length && t[i++] !== ',') return undefined;
  }
  return reqs;
}

function labelMatches(req: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const v = has ? labels[req.key] : undefined;
  switch (req.op) {
    case 'exists':
      return has;
    case 'notExists':
      return !has;
    case 'in':
      return v !== undefined && req.values.has(v);
    case 'notIn':
      return v === undefined || !req.values.has(v);
    case 'gt':
    case 'lt': {
      // exact 64-bit integers; a value that is none (beyond int64 too) is not selected
      const n = v === undefined ? undefined : parseInt64(v);
      if (n === undefined) return false;
      return req.op === 'gt' ? n > req.value : n < req.value;
    }
  }
}

interface FieldRequirement {
  path: string[];
  value: string;
  equal: boolean;
}

/** Splits on a separator not escaped by a backslash. */
function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) {
      current += text.slice(i, i + 2);
      i++;
    } else if (text[i] === separator) {
      parts.push(current);
      current = '';
    } else {
      current += text[i];
    }
  }
  parts.push(current);
  return parts;
}

/**
 * Parses a field selector (`a.b=c`, `a.b==c`, `a.b!=c`, comma-separated; `\,` `\=` `\\` escapes in
 * values). Returns undefined when it cannot be parsed.
 */
export function parseFieldSelector(selector: string): FieldRequirement[] | undefined {
  const reqs: FieldRequirement[] = [];
  for (const term of splitUnescaped(selector, ',')) {
    if (term.trim() === '') continue;
    let at = -1;
    let op = '';
    for (let i = 0; i < term.length && at < 0; i++) {
      if (term[i] === '\\') {
        i++;
        continue;
      }
      for (const candidate of ['!=', '==', '=']) {
        if (term.startsWith(candidate, i)) {
          at = i;
          op = candidate;
          break;
        }
      }
    }
    if (at <= 0) return undefined;
    const value = term.slice(at + op.length).replace(/\\(.)/g, '$1');
    reqs.push({ path: term.slice(0, at).trim().split('.'), value, equal: op !== '!=' });
  }
  return reqs;
}

/** The value at `path` as kube formats a selectable field (`fmt.Sprint`); missing or not a scalar: "". */
function pathValue(obj: unknown, path: readonly string[]): string {
  let v: unknown = obj;
  for (const part of path) {
    if (v === null || typeof v !== 'object') return '';
    v = (v as Record<string, unknown>)[part];
  }
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/** A Go bool field kube writes with `strconv.FormatBool`/`fmt.Sprint` (omitted when false). */
const boolAt = (obj: unknown, path: readonly string[]): string => String(pathValue(obj, path) === 'true');
/** A Go int32 field kube writes with `strconv.Itoa` (omitted when 0). */
const intAt = (obj: unknown, path: readonly string[]): string => pathValue(obj, path) || '0';

type FieldRule = (obj: KubernetesResource) => string;

function firstPodIP(obj: KubernetesResource): string {
  const ips = (obj as { status?: { podIPs?: unknown } }).status?.podIPs;
  return Array.isArray(ips) && ips.length > 0 ? pathValue(ips[0], ['ip']) : '';
}

/**
 * Selectable fields of built-in kinds whose value is not simply the field at that path, by
 * `apiVersion/kind` and field (kube's ToSelectableFields in pkg/registry/.../strategy.go, after the
 * kind's field label conversion). A Pod's `spec.hostNetwork` and a Node's `spec.unschedulable` are
 * "false" when omitted; a Job's `status.successful` is its `status.succeeded` and a ReplicaSet's or
 * ReplicationController's `status.replicas` an integer, "0" when omitted; `spec.host` is an old name
 * of `spec.nodeName`; an Event's `source` is its reporting controller when it has no source
 * component; `status.podIP` is `status.podIPs[0].ip` when `podIP` is empty. `spec.restartPolicy` and
 * `spec.schedulerName` are read with kube's defaults, which the stored object always has.
 */
const FIELD_RULES: Record<string, Record<string, FieldRule>> = {
  'v1/Pod': {
    'spec.host': (o) => pathValue(o, ['spec', 'nodeName']),
    'spec.hostNetwork': (o) => boolAt(o, ['spec', 'hostNetwork']),
    'spec.restartPolicy': (o) => pathValue(o, ['spec', 'restartPolicy']) || 'Always',
    'spec.schedulerName': (o) => pathValue(o, ['spec', 'schedulerName']) || 'default-scheduler',
    // the first of the internal podIPs: kube's v1 conversion takes podIP when set (authoritative
    // over a differing podIPs[0]), else podIPs[0]
    'status.podIP': (o) => pathValue(o, ['status', 'podIP']) || firstPodIP(o),
    // accepted by the field label conversion but not in the field set
    'status.podIPs': () => '',
  },
  'v1/Node': { 'spec.unschedulable': (o) => boolAt(o, ['spec', 'unschedulable']) },
  'v1/ReplicationController': { 'status.replicas': (o) => intAt(o, ['status', 'replicas']) },
  'apps/v1/ReplicaSet': { 'status.replicas': (o) => intAt(o, ['status', 'replicas']) },
  'batch/v1/Job': { 'status.successful': (o) => intAt(o, ['status', 'succeeded']) },
  'v1/Event': {
    source: (o) => pathValue(o, ['source', 'component']) || pathValue(o, ['reportingComponent']),
  },
  // events.k8s.io/v1 selectors are converted to the core Event's field set
  'events.k8s.io/v1/Event': {
    source: (o) => pathValue(o, ['deprecatedSource', 'component']) || pathValue(o, ['reportingController']),
  },
};

function fieldValue(obj: KubernetesResource, path: readonly string[]): string {
  const rule = FIELD_RULES[`${obj.apiVersion ?? ''}/${obj.kind ?? ''}`]?.[path.join('.')];
  return rule ? rule(obj) : pathValue(obj, path);
}

/**
 * A matcher for an informer's label and field selectors, evaluated on the client as the API server
 * does: a built-in kind's field as its field set has it (see {@link FIELD_RULES}), any other field
 * at its path (a missing one is the empty string). Returns a matcher that refuses everything when a
 * selector cannot be parsed here (`unparsable` then names it), so nothing outside the selection
 * can enter a cache by an own write.
 */
export function selectorMatcher(
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): { matches: ObjectMatcher; unparsable?: string } {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : [];
  const fields = fieldSelector ? parseFieldSelector(fieldSelector) : [];
  if (!labels) return { matches: () => false, unparsable: `labelSelector "${labelSelector}"` };
  if (!fields) return { matches: () => false, unparsable: `fieldSelector "${fieldSelector}"` };
  if (labels.length === 0 && fields.length === 0) return { matches: () => true };
  return {
    matches: (obj) => {
      const objLabels = obj.metadata?.labels ?? {};
      return (
        labels.every((r) => labelMatches(r, objLabels)) &&
        fields.every((r) => (fieldValue(obj, r.path) === r.value) === r.equal)
      );
    },
  };
}
