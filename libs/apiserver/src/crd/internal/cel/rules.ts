/**
 * `x-kubernetes-validations`: compiles each node's CEL rules once and evaluates them over an object,
 * with `oldSelf` for transition rules on update, reporting failures as kube-apiserver does.
 */
import type { JsonObject, StatusCause } from '../../../types.js';
import { duplicate, forbidden, invalid, required } from '../../field-errors.js';
import { isObject } from '../../json-util.js';
import type { JsonSchemaProps } from '../../schema-types.js';
import { asSchema, mapValueSchema } from '../../schema-types.js';
import type { LocatedCause } from '../located-cause.js';
import { renderPath } from '../schema-validator.js';
import type { Expr } from './ast.js';
import { unsupportedFunction, usesOldSelf } from './ast.js';
import { CelEvalError, CelOptional, CelUnsupportedError, evaluate } from './evaluate.js';
import { CelSyntaxError, parseCel } from './parser.js';

interface CompiledRule {
  rule: string;
  expr: Expr;
  transition: boolean;
  optionalOldSelf: boolean;
  message?: string;
  messageExpression?: Expr;
  reason?: string;
  fieldPath?: string[];
}

/** A rule this server does not evaluate (outside its CEL subset), with where it is. */
export interface SkippedRule {
  /** Schema path of the node, e.g. `spec.replicas` (`` for the root). */
  path: string;
  rule: string;
  why: string;
}

const compiledByNode = new WeakMap<JsonSchemaProps, CompiledRule[]>();

function compileNode(s: JsonSchemaProps, path: string, skipped: SkippedRule[] | undefined): CompiledRule[] {
  const cached = compiledByNode.get(s);
  if (cached && !skipped) return cached;
  const out: CompiledRule[] = [];
  const rules = Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'] : [];
  for (const raw of rules) {
    if (!isObject(raw) || typeof raw.rule !== 'string') continue;
    try {
      const expr = parseCel(raw.rule);
      const fn = unsupportedFunction(expr);
      if (fn) {
        skipped?.push({ path, rule: raw.rule, why: `function ${fn} is not supported` });
        continue;
      }
      const c: CompiledRule = {
        rule: raw.rule,
        expr,
        transition: usesOldSelf(expr),
        optionalOldSelf: raw.optionalOldSelf === true,
      };
      if (typeof raw.message === 'string' && raw.message !== '') c.message = raw.message;
      if (typeof raw.messageExpression === 'string' && raw.messageExpression !== '') {
        try {
          c.messageExpression = parseCel(raw.messageExpression);
        } catch {
          // an unparsable message expression falls back to the message or the default text
        }
      }
      if (typeof raw.reason === 'string') c.reason = raw.reason;
      if (typeof raw.fieldPath === 'string' && raw.fieldPath.startsWith('.')) {
        c.fieldPath = raw.fieldPath.slice(1).split('.').filter(Boolean);
      }
      out.push(c);
    } catch (err) {
      if (!(err instanceof CelSyntaxError)) throw err;
      skipped?.push({ path, rule: raw.rule, why: err.message });
    }
  }
  compiledByNode.set(s, out);
  return out;
}

/** Lists the rules of a schema that this server cannot parse (they are not evaluated). */
export function unsupportedRules(schema: JsonSchemaProps): SkippedRule[] {
  const skipped: SkippedRule[] = [];
  const walk = (s: JsonSchemaProps, path: string): void => {
    compileNode(s, path, skipped);
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      const sub = asSchema(v);
      if (sub) walk(sub, path ? `${path}.${k}` : k);
    }
    const ap = mapValueSchema(s);
    if (ap) walk(ap, `${path}[*]`);
    const items = asSchema(s.items);
    if (items) walk(items, `${path}[*]`);
  };
  walk(schema, '');
  return skipped;
}

/** Evaluates every rule over `obj` (and `old` for transition rules); returns the failures. */
export function evaluateRules(
  obj: JsonObject,
  schema: JsonSchemaProps,
  old: JsonObject | undefined,
): LocatedCause[] {
  const out: LocatedCause[] = [];
  walk(obj, old, schema, [], true, out);
  return out;
}

function walk(
  value: unknown,
  old: unknown,
  s: JsonSchemaProps,
  segs: (string | number)[],
  root: boolean,
  out: LocatedCause[],
): void {
  if (value === undefined) return;
  for (const rule of compileNode(s, '', undefined)) check(rule, value, old, s, segs, out);
  if (Array.isArray(value)) {
    const items = asSchema(s.items);
    if (!items) return;
    const keys = s['x-kubernetes-list-type'] === 'map' ? (s['x-kubernetes-list-map-keys'] ?? []) : undefined;
    value.forEach((item, i) => {
      // Only map lists correlate items with the old list (by their keys), as in Kubernetes.
      const before =
        keys && Array.isArray(old)
          ? (old as unknown[]).find(
              (o) => isObject(o) && isObject(item) && keys.every((k) => o[k] === item[k]),
            )
          : undefined;
      walk(item, before, items, [...segs, i], false, out);
    });
    return;
  }
  if (!isObject(value)) return;
  const oldObj = isObject(old) ? old : undefined;
  const mapValues = mapValueSchema(s);
  for (const [k, v] of Object.entries(value)) {
    if (root && k === 'metadata') continue;
    const sub = asSchema(s.properties?.[k]) ?? mapValues;
    if (sub) walk(v, oldObj?.[k], sub, [...segs, k], false, out);
  }
}

function check(
  rule: CompiledRule,
  value: unknown,
  old: unknown,
  s: JsonSchemaProps,
  segs: (string | number)[],
  out: LocatedCause[],
): void {
  // A transition rule runs only with an old value, unless optionalOldSelf makes oldSelf an optional.
  if (rule.transition && old === undefined && !rule.optionalOldSelf) return;
  const vars = new Map<string, unknown>([['self', value]]);
  if (rule.optionalOldSelf && rule.transition) vars.set('oldSelf', new CelOptional(old !== undefined, old));
  else if (old !== undefined) vars.set('oldSelf', old);
  const typeName = s.type ?? (s['x-kubernetes-int-or-string'] === true ? 'string' : 'object');
  const at = rule.fieldPath ? [...segs, ...rule.fieldPath] : segs;
  const field = renderPath(at);
  let result: unknown;
  try {
    result = evaluate(rule.expr, vars);
  } catch (err) {
    if (err instanceof CelUnsupportedError) return;
    if (err instanceof CelEvalError) {
      out.push({
        cause: invalid(field, typeName, `${rule.rule}: ${err.message}`),
        segments: segs,
        noRatchet: rule.transition,
      });
      return;
    }
    throw err;
  }
  if (result === true) return;
  const detail = result === false ? messageOf(rule, vars) : `rule did not evaluate to a bool: ${rule.rule}`;
  out.push({
    cause: causeFor(rule.reason, field, typeName, detail),
    segments: segs,
    noRatchet: rule.transition,
  });
}

function messageOf(rule: CompiledRule, vars: ReadonlyMap<string, unknown>): string {
  if (rule.messageExpression) {
    try {
      const m = evaluate(rule.messageExpression, vars);
      if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) return m;
    } catch {
      // fall back to the static message, as kube-apiserver does
    }
  }
  return rule.message ?? `failed rule: ${rule.rule}`;
}

function causeFor(reason: string | undefined, field: string, typeName: string, detail: string): StatusCause {
  switch (reason) {
    case 'FieldValueRequired':
      return required(field, detail);
    case 'FieldValueForbidden':
      return forbidden(field, detail);
    case 'FieldValueDuplicate':
      return duplicate(field, typeName);
    default:
      return invalid(field, typeName, detail);
  }
}
