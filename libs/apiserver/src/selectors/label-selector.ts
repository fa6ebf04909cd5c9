import { SelectorError } from './selector-error.js';
import { aggregate, invalidField, labelKeyErrors, labelValueErrors } from './label-validation.js';

/**
 * A label requirement operator, spelled as apimachinery's `selection.Operator`:
 * `in`, `notin`, `=`, `==`, `!=`, `exists`, `!` (does not exist), `gt`, `lt`.
 */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement of a label selector: a key, an operator and its values. */
export interface LabelRequirement {
  /** The label key, e.g. `app` or `app.kubernetes.io/name`. */
  readonly key: string;
  readonly operator: LabelOperator;
  /** The values: one for `=`, `==`, `!=`, `gt`, `lt`; one or more for `in`/`notin`; none for `exists`/`!`. */
  readonly values: readonly string[];
}

/**
 * A parsed label selector: the AND of its requirements, sorted by key.
 * No requirements selects everything; `matchesNothing` (from a null `metav1.LabelSelector`) selects nothing.
 */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** True only for the selector that matches no object (`labels.Nothing()`). */
  readonly matchesNothing: boolean;
}

/** The selector that matches every object (the empty selector). */
export const EVERYTHING: LabelSelector = Object.freeze({
  requirements: Object.freeze([]),
  matchesNothing: false,
});

/** The selector that matches no object (what a null `metav1.LabelSelector` converts to). */
export const NOTHING: LabelSelector = Object.freeze({
  requirements: Object.freeze([]),
  matchesNothing: true,
});

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's `strconv.ParseInt(s, 10, 64)`: undefined when `s` is not a base-10 int64. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/**
 * Builds a requirement with apimachinery's `NewRequirement` checks (key, value count per operator,
 * integer values for `gt`/`lt`, label value syntax).
 *
 * @param pathPrefix - field path prefix of the messages (none by default, as `labels.Parse` uses).
 * @throws SelectorError (`InvalidLabelSelector`) listing every problem, as an aggregate of field errors.
 */
export function newRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[],
  pathPrefix?: string,
): LabelRequirement {
  const child = (name: string): string => (pathPrefix ? `${pathPrefix}.${name}` : name);
  const errs: string[] = [];
  const keyErrs = labelKeyErrors(key);
  if (keyErrs.length > 0) errs.push(invalidField(child('key'), key, keyErrs.join('; ')));
  const valuesPath = child('values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        errs.push(invalidField(valuesPath, values, "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errs.push(invalidField(valuesPath, values, 'exact-match compatibility requires one single value'));
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errs.push(invalidField(valuesPath, values, 'values set must be empty for exists and does not exist'));
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push(
          invalidField(valuesPath, values, "for 'Gt', 'Lt' operators, exactly one value is required"),
        );
      }
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(
            invalidField(`${valuesPath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"),
          );
        }
      });
      break;
    default: {
      const op: string = operator;
      errs.push(
        `${child('operator')}: Unsupported value: ${JSON.stringify(op)}: supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"`,
      );
    }
  }
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(invalidField(`${valuesPath}[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length > 0) throw new SelectorError('InvalidLabelSelector', aggregate(errs));
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}

/** Sorts requirements by key (stable), as `labels.Parse` and `Selector.Add` do. */
export function sortByKey(reqs: readonly LabelRequirement[]): LabelRequirement[] {
  return [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Whether one requirement holds for a label set (apimachinery `Requirement.Matches`). */
export function matchesRequirement(
  req: LabelRequirement,
  labels: Record<string, string> | undefined,
): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, req.key);
  const value = has ? labels[req.key] : undefined;
  switch (req.operator) {
    case 'in':
    case '=':
    case '==':
      return has && req.values.includes(value!);
    case 'notin':
    case '!=':
      return !has || !req.values.includes(value!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || req.values.length !== 1) return false;
      const actual = parseInt64(value!);
      const wanted = parseInt64(req.values[0]);
      if (actual === undefined || wanted === undefined) return false;
      return req.operator === 'gt' ? actual > wanted : actual < wanted;
    }
    default:
      return false;
  }
}

/**
 * Whether a label selector selects an object with these labels: every requirement holds.
 * The empty selector matches everything (also objects without labels); {@link NOTHING} matches nothing.
 */
export function matchesLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  if (sel.matchesNothing) return false;
  return sel.requirements.every((r) => matchesRequirement(r, labels));
}

/** True when the selector does not restrict anything (no requirements and not {@link NOTHING}). */
export function selectsEverything(sel: LabelSelector): boolean {
  return !sel.matchesNothing && sel.requirements.length === 0;
}

function requirementToString(r: LabelRequirement): string {
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
      return `${r.key} in (${values})`;
    case 'notin':
      return `${r.key} notin (${values})`;
    case 'gt':
      return `${r.key}>${values}`;
    case 'lt':
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

/**
 * The canonical text of a selector, as apimachinery's `Selector.String()` writes it: requirements
 * joined by `,`, set values sorted, e.g. `app=web,tier in (a,b),!legacy`. Empty for everything and nothing.
 */
export function selectorToString(sel: LabelSelector): string {
  if (sel.matchesNothing) return '';
  return sel.requirements.map(requirementToString).join(',');
}
