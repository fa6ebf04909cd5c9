import { SelectorError } from './selector-error.js';
import type { LabelOperator, LabelRequirement, LabelSelector } from './label-selector.js';
import { EVERYTHING, NOTHING, newRequirement, sortByKey } from './label-selector.js';

/** One `matchExpressions` entry of a `metav1.LabelSelector`. */
export interface LabelSelectorRequirementObject {
  key: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist`. */
  operator: string;
  values?: string[] | null;
}

/** A `metav1.LabelSelector` as found in object specs (`spec.selector` of a Deployment, a Service's is a plain map). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

const OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

function fail(message: string): never {
  throw new SelectorError('InvalidLabelSelector', message);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Converts a `metav1.LabelSelector` to a selector as apimachinery's `LabelSelectorAsSelector` does:
 * `null`/`undefined` selects nothing, `{}` selects everything, otherwise every `matchLabels` entry
 * (`key=value`) AND every `matchExpressions` entry (`In`, `NotIn`, `Exists`, `DoesNotExist`) must hold.
 *
 * @throws SelectorError (`InvalidLabelSelector`) for an unknown operator (`"Foo" is not a valid label
 *   selector operator`), invalid keys or values, values given to `Exists`/`DoesNotExist`, `In`/`NotIn`
 *   without values, or a value of the wrong JSON type.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return NOTHING;
  if (!isRecord(sel)) fail(`a label selector must be an object, got ${JSON.stringify(sel)}`);
  const { matchLabels, matchExpressions } = sel as { matchLabels?: unknown; matchExpressions?: unknown };
  if (matchLabels !== undefined && matchLabels !== null && !isRecord(matchLabels)) {
    fail('matchLabels: Invalid value: must be a map of label keys to string values');
  }
  if (matchExpressions !== undefined && matchExpressions !== null && !Array.isArray(matchExpressions)) {
    fail('matchExpressions: Invalid value: must be a list of label selector requirements');
  }
  const labels = Object.entries(matchLabels ?? {});
  const exprs: unknown[] = matchExpressions ?? [];
  if (labels.length + exprs.length === 0) return EVERYTHING;

  const reqs: LabelRequirement[] = [];
  for (const [key, value] of labels) {
    if (typeof value !== 'string') fail(`matchLabels[${key}]: Invalid value: must be a string`);
    reqs.push(newRequirement(key, '=', [value]));
  }
  exprs.forEach((expr, i) => {
    if (!isRecord(expr)) fail(`matchExpressions[${i}]: Invalid value: must be an object`);
    const { key, operator, values } = expr;
    if (typeof key !== 'string') fail(`matchExpressions[${i}].key: Invalid value: must be a string`);
    const op = typeof operator === 'string' ? OPERATORS[operator] : undefined;
    if (op === undefined) fail(`${JSON.stringify(operator ?? '')} is not a valid label selector operator`);
    if (
      values !== undefined &&
      values !== null &&
      !(Array.isArray(values) && values.every((v) => typeof v === 'string'))
    ) {
      fail(`matchExpressions[${i}].values: Invalid value: must be a list of strings`);
    }
    reqs.push(newRequirement(key, op, values ?? []));
  });
  return Object.freeze({ requirements: Object.freeze(sortByKey(reqs)), matchesNothing: false });
}
