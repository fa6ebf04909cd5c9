/**
 * `x-kubernetes-validations`: compiles each node's CEL rules once (with @bufbuild/cel and the
 * Kubernetes libraries) and evaluates them over an object, with `oldSelf` for transition rules on
 * update, reporting failures, compile errors and cost overruns as kube-apiserver words them.
 */
import { isCelError, plan } from '@bufbuild/cel';
import type { CelInput, CelResult } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { JsonObject, StatusCause } from '../../../types.js';
import { duplicate, forbidden, invalid, required } from '../../field-errors.js';
import { isObject } from '../../json-util.js';
import type { JsonSchemaProps } from '../../schema-types.js';
import { asSchema, mapValueSchema } from '../../schema-types.js';
import type { LocatedCause } from '../located-cause.js';
import { renderPath } from '../schema-validator.js';
import type { Shape } from './cost.js';
import {
  CRD_COST_LIMIT,
  PER_CALL_LIMIT,
  RULE_COST_LIMIT,
  RUNTIME_BUDGET,
  costOf,
  costErrorMessage,
  rootShape,
  shapeOfSchema,
  shapeOfValue,
} from './cost.js';
import { kubernetesCelEnv, kubernetesFunctions } from './environment.js';
import { CompileError, parseWithLimits } from './parse-limits.js';
import { none, some } from './opaque.js';
import { toCel } from './values.js';
import type { CelT } from './cel-types.js';
import { STANDARD_CEL_FUNCTIONS, T, typeOfSchema } from './cel-types.js';
import { checkTypes, formatCelError } from './type-check.js';
import type { FieldPathStep } from '../../simple-path.js';
import { parseRuleFieldPath, renderRuleFieldPath } from '../../simple-path.js';

type Program = (ctx?: Record<string, CelInput>) => CelResult;

interface CompiledRule {
  rule: string;
  program: Program;
  expr: Expr;
  parsed: ParsedExpr;
  transition: boolean;
  optionalOldSelf: boolean;
  message?: string;
  messageExpression?: { program: Program; expr: Expr; parsed: ParsedExpr };
  reason?: string;
  fieldPath?: FieldPathStep[];
}

/** A rule this server does not evaluate, with where it is (kept for callers; rules that do not compile are now rejected with the CRD). */
export interface SkippedRule {
  /** Schema path of the node, e.g. `spec.replicas` (`` for the root). */
  path: string;
  rule: string;
  why: string;
}

/** A rule or message expression that does not compile. */

let known: Set<string> | undefined;

/** The first call to a function the environment does not declare: its name and call expression. */
function unknownFunction(e: Expr | undefined): { name: string; call: Expr } | undefined {
  if (!e) return undefined;
  known ??= new Set([...STANDARD_CEL_FUNCTIONS, ...kubernetesFunctions().map((f) => f.name)]);
  const k = e.exprKind;
  switch (k.case) {
    case 'callExpr': {
      // a namespaced function (`format.dns1123Label()`) parses as a call on the identifier `format`
      const target = k.value.target?.exprKind;
      const qualified = target?.case === 'identExpr' ? `${target.value.name}.${k.value.function}` : undefined;
      if (qualified !== undefined && known.has(qualified))
        return k.value.args.map(unknownFunction).find((x) => x !== undefined);
      if (!known.has(k.value.function)) return { name: k.value.function, call: e };
      return [k.value.target, ...k.value.args].map(unknownFunction).find((x) => x !== undefined);
    }
    case 'selectExpr':
      return unknownFunction(k.value.operand);
    case 'listExpr':
      return k.value.elements.map(unknownFunction).find((x) => x !== undefined);
    case 'structExpr':
      for (const en of k.value.entries) {
        const f =
          (en.keyKind.case === 'mapKey' ? unknownFunction(en.keyKind.value) : undefined) ??
          unknownFunction(en.value);
        if (f) return f;
      }
      return undefined;
    case 'comprehensionExpr': {
      const c = k.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]
        .map(unknownFunction)
        .find((x) => x !== undefined);
    }
    default:
      return undefined;
  }
}

function usesVar(e: Expr | undefined, name: string): boolean {
  if (!e) return false;
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr':
      return k.value.name === name;
    case 'selectExpr':
      return usesVar(k.value.operand, name);
    case 'callExpr':
      return usesVar(k.value.target, name) || k.value.args.some((a) => usesVar(a, name));
    case 'listExpr':
      return k.value.elements.some((a) => usesVar(a, name));
    case 'structExpr':
      return k.value.entries.some(
        (en) => (en.keyKind.case === 'mapKey' && usesVar(en.keyKind.value, name)) || usesVar(en.value, name),
      );
    case 'comprehensionExpr': {
      const c = k.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].some((x) => usesVar(x, name));
    }
    default:
      return false;
  }
}

function compileExpression(text: string): { program: Program; expr: Expr; parsed: ParsedExpr } {
  const parsed = parseWithLimits(text);
  const fn = unknownFunction(parsed.expr);
  if (fn !== undefined) {
    // cel-go's checker: at the call's opening parenthesis, the container is empty in kube's environment
    const message = `undeclared reference to '${fn.name}' (in container '')`;
    throw new CompileError(
      `compilation failed: ${formatCelError(parsed, text, fn.call.id, message, 'call')}`,
    );
  }
  const program: Program = plan(kubernetesCelEnv(), parsed);
  return { program, expr: parsed.expr, parsed };
}

type ParsedExpr = ReturnType<typeof parseWithLimits>;

/**
 * A rule as kube-apiserver prints it in a compile error: the `Invalid value` is the whole
 * `apiextensions.ValidationRule` in Go's `%#v` form (set pointers shown as an address, as Go does).
 */
export function formatValidationRule(raw: Record<string, unknown>): string {
  const str = (v: unknown): string => JSON.stringify(typeof v === 'string' ? v : '');
  const ptr = (type: string, set: boolean): string => `(*${type})(${set ? '0xc000000000' : 'nil'})`;
  return (
    `apiextensions.ValidationRule{Rule:${str(raw.rule)}, Message:${str(raw.message)}, ` +
    `MessageExpression:${str(raw.messageExpression)}, ` +
    `Reason:${ptr('apiextensions.FieldValueErrorReason', typeof raw.reason === 'string')}, ` +
    `FieldPath:${str(raw.fieldPath)}, OptionalOldSelf:${ptr('bool', typeof raw.optionalOldSelf === 'boolean')}}`
  );
}

/** kube-apiserver's field error for a rule that does not compile (`field.Invalid(path, rule, detail)`). */
function ruleInvalid(field: string, raw: Record<string, unknown>, detail: string): StatusCause {
  return {
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${formatValidationRule(raw)}: ${detail}`,
    field,
  };
}

/**
 * kube-apiserver's type check of a rule (and its messageExpression) against the node's schema;
 * the first problem as the field error kube reports, or undefined.
 */
function typeErrorOf(
  raw: Record<string, unknown>,
  rule: { parsed: ParsedExpr; text: string },
  message: { parsed: ParsedExpr; text: string } | undefined,
  s: JsonSchemaProps,
  root: boolean,
  field: string,
): StatusCause | undefined {
  // a node CEL cannot type never gets here (its rules are refused as a whole, see below)
  const self = typeOfSchema(s, root) ?? T.dyn;
  const vars = new Map<string, CelT>([['self', self]]);
  const transition = usesVar(rule.parsed.expr, 'oldSelf');
  if (transition) vars.set('oldSelf', raw.optionalOldSelf === true ? { k: 'optional', inner: self } : self);
  const checked = checkTypes(rule.parsed, rule.text, vars);
  if (checked.error !== undefined)
    return ruleInvalid(`${field}.rule`, raw, `compilation failed: ${checked.error}`);
  if (checked.type.k !== 'bool' && checked.type.k !== 'dyn')
    return ruleInvalid(`${field}.rule`, raw, 'cel expression must evaluate to a bool');
  if (message) {
    const m = checkTypes(message.parsed, message.text, vars);
    if (m.error !== undefined)
      return ruleInvalid(
        `${field}.messageExpression`,
        raw,
        `messageExpression compilation failed: ${m.error}`,
      );
    if (m.type.k !== 'string' && m.type.k !== 'dyn')
      return ruleInvalid(`${field}.messageExpression`, raw, 'messageExpression must evaluate to a string');
  }
  return undefined;
}

const compiledByNode = new WeakMap<JsonSchemaProps, CompiledRule[]>();

function compileRule(raw: Record<string, unknown>, node?: JsonSchemaProps): CompiledRule {
  const rule = String(raw.rule);
  const { program, expr, parsed } = compileExpression(rule);
  const c: CompiledRule = {
    rule,
    program,
    expr,
    parsed,
    transition: usesVar(expr, 'oldSelf'),
    optionalOldSelf: raw.optionalOldSelf === true,
  };
  if (typeof raw.message === 'string' && raw.message !== '') c.message = raw.message;
  if (typeof raw.messageExpression === 'string' && raw.messageExpression.trim() !== '')
    c.messageExpression = compileExpression(raw.messageExpression);
  if (typeof raw.reason === 'string') c.reason = raw.reason;
  if (node && typeof raw.fieldPath === 'string' && raw.fieldPath !== '') {
    const steps = parseRuleFieldPath(raw.fieldPath, node);
    if (steps) c.fieldPath = steps;
  }
  return c;
}

function compileNode(s: JsonSchemaProps, node: JsonSchemaProps): CompiledRule[] {
  const cached = compiledByNode.get(s);
  if (cached) return cached;
  const out: CompiledRule[] = [];
  const rules = Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'] : [];
  for (const raw of rules) {
    if (!isObject(raw) || typeof raw.rule !== 'string') continue;
    try {
      out.push(compileRule(raw, node));
    } catch (err) {
      if (!(err instanceof CompileError)) throw err;
      // rejected when the CRD is written (see ruleErrors); an old stored CRD just skips it
    }
  }
  compiledByNode.set(s, out);
  return out;
}

/** Lists the rules of a schema that do not compile (they are not evaluated). */
export function unsupportedRules(schema: JsonSchemaProps): SkippedRule[] {
  const skipped: SkippedRule[] = [];
  walkSchema(schema, '', 1, (s, path) => {
    for (const raw of s['x-kubernetes-validations'] ?? []) {
      if (!isObject(raw) || typeof raw.rule !== 'string') continue;
      try {
        compileRule(raw);
      } catch (err) {
        if (!(err instanceof CompileError)) throw err;
        skipped.push({ path, rule: raw.rule, why: err.message });
      }
    }
  });
  return skipped;
}

/**
 * Visits every schema node that can carry rules, with the structural node that types its values:
 * the node itself, or for an `allOf` entry (whose rules kube-apiserver runs against the same value)
 * the node the entry belongs to.
 */
function walkSchema(
  s: JsonSchemaProps,
  path: string,
  cardinality: number,
  visit: (
    s: JsonSchemaProps,
    path: string,
    cardinality: number,
    schemaPath: string,
    node: JsonSchemaProps,
    uncorrelatable: string | undefined,
  ) => void,
  schemaPath = '',
  node: JsonSchemaProps = s,
  uncorrelatable: string | undefined = undefined,
): void {
  visit(s, path, cardinality, schemaPath, node, uncorrelatable);
  (s.allOf ?? []).forEach((entry, i) => {
    const a = asSchema(entry);
    if (a) walkSchema(a, path, cardinality, visit, `${schemaPath}.allOf[${i}]`, node, uncorrelatable);
  });
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    const sub = asSchema(v);
    const subNode = s === node ? sub : (asSchema(node.properties?.[k]) ?? mapValueSchema(node));
    if (sub && subNode)
      walkSchema(
        sub,
        path ? `${path}.${k}` : k,
        cardinality,
        visit,
        `${schemaPath}.properties[${k}]`,
        subNode,
        uncorrelatable,
      );
  }
  const ap = mapValueSchema(s);
  const apNode = s === node ? ap : mapValueSchema(node);
  if (ap && apNode) {
    const n = shapeOfSchema(node).max;
    walkSchema(
      ap,
      `${path}[*]`,
      cardinality * n,
      visit,
      `${schemaPath}.additionalProperties`,
      apNode,
      uncorrelatable,
    );
  }
  const items = asSchema(s.items);
  const itemsNode = s === node ? items : asSchema(node.items);
  if (items && itemsNode) {
    const n = shapeOfSchema(node).max;
    // only map lists correlate their items with the old object (by key)
    const below =
      uncorrelatable ?? (node['x-kubernetes-list-type'] === 'map' ? undefined : `${schemaPath}.items`);
    walkSchema(items, `${path}[*]`, cardinality * n, visit, `${schemaPath}.items`, itemsNode, below);
  }
}

/**
 * What kube-apiserver rejects a CRD for in its rules: rules that do not compile and estimated costs
 * over the limits. `base` is the field path of the schema (`spec.versions[0].schema.openAPIV3Schema`).
 */
export function ruleErrors(schema: JsonSchemaProps, base: string): StatusCause[] {
  const errs: StatusCause[] = [];
  let total = 0;
  const contributors: { field: string; cost: number }[] = [];
  walkSchema(schema, '', 1, (s, _path, cardinality, schemaPath, node, uncorrelatable) => {
    const rules = s['x-kubernetes-validations'];
    if (!Array.isArray(rules)) return;
    const root = node === schema;
    if (rules.length > 0 && typeOfSchema(node, root) === undefined) {
      // apiextensions-apiserver's Compile: no CEL type for the node (a schema without a type, or a
      // list or map of such), so none of its rules can compile; one internal field error for them all
      errs.push({
        reason: 'InternalError',
        field: `${base}${schemaPath}.x-kubernetes-validations`,
        message: 'Internal error: failed to convert to declType for CEL validation rules',
      });
      return;
    }
    const shape = root ? rootShape(node) : shapeOfSchema(node);
    rules.forEach((raw, i) => {
      if (!isObject(raw) || typeof raw.rule !== 'string' || raw.rule.trim() === '') return;
      const field = `${base}${schemaPath}.x-kubernetes-validations[${i}]`;
      let c: CompiledRule;
      try {
        compileExpression(raw.rule);
      } catch (err) {
        if (!(err instanceof CompileError)) throw err;
        errs.push(ruleInvalid(`${field}.rule`, raw, err.message));
        return;
      }
      try {
        c = compileRule(raw);
      } catch (err) {
        if (!(err instanceof CompileError)) throw err;
        errs.push(ruleInvalid(`${field}.messageExpression`, raw, `messageExpression ${err.message}`));
        return;
      }
      const vars = new Map<string, Shape>([
        ['self', shape],
        ['oldSelf', shape],
      ]);
      const typeError = typeErrorOf(
        raw,
        { parsed: c.parsed, text: raw.rule },
        c.messageExpression && typeof raw.messageExpression === 'string'
          ? { parsed: c.messageExpression.parsed, text: raw.messageExpression }
          : undefined,
        node,
        root,
        field,
      );
      if (typeError) {
        errs.push(typeError);
        return;
      }
      if (c.transition && uncorrelatable !== undefined)
        errs.push(
          invalid(
            `${field}.rule`,
            raw.rule,
            `oldSelf cannot be used on the uncorrelatable portion of the schema within ${base}${uncorrelatable}`,
          ),
        );
      else if (!c.transition && raw.optionalOldSelf !== undefined)
        errs.push(
          invalid(
            `${field}.optionalOldSelf`,
            raw.optionalOldSelf,
            'may not be set if oldSelf is not used in rule',
          ),
        );
      // the rule and its messageExpression are costed, limited and blamed separately, as in kube
      const costed: [string, string, number][] = [
        ['rule', 'estimated rule cost', costOf(c.expr, vars) * cardinality],
      ];
      if (c.messageExpression)
        costed.push([
          'messageExpression',
          'estimated messageExpression cost',
          costOf(c.messageExpression.expr, vars) * cardinality,
        ]);
      for (const [part, what, cost] of costed) {
        if (cost > RULE_COST_LIMIT)
          errs.push(forbidden(`${field}.${part}`, costErrorMessage(what, cost, RULE_COST_LIMIT)));
        total += cost;
        contributors.push({ field: `${field}.${part}`, cost });
      }
    });
  });
  if (total > CRD_COST_LIMIT) {
    // kube names the (at most four) most expensive expressions over 1% of the limit, costliest first
    const expensive = contributors
      .filter((c) => c.cost >= CRD_COST_LIMIT / 100)
      .sort((a, b) => b.cost - a.cost)
      .slice(0, 4);
    for (const c of expensive)
      errs.push(
        forbidden(
          c.field,
          'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
        ),
      );
    errs.push(
      forbidden(
        base,
        costErrorMessage(
          'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
          total,
          CRD_COST_LIMIT,
        ),
      ),
    );
  }
  return errs;
}

interface Budget {
  remaining: number;
  exhausted: boolean;
}

/** Evaluates every rule over `obj` (and `old` for transition rules); returns the failures. */
export function evaluateRules(
  obj: JsonObject,
  schema: JsonSchemaProps,
  old: JsonObject | undefined,
): LocatedCause[] {
  const out: LocatedCause[] = [];
  const budget: Budget = { remaining: RUNTIME_BUDGET, exhausted: false };
  walk(obj, old, schema, schema, [], true, out, budget);
  return out;
}

/**
 * Runs the rules of `rules` over `value` and recurses into its children. `node` is the structural
 * schema that types the value; it is `rules` itself except for an `allOf` entry, whose rules (and
 * its properties' rules) kube-apiserver runs against the same value.
 */
function walk(
  value: unknown,
  old: unknown,
  rules: JsonSchemaProps,
  node: JsonSchemaProps,
  segs: (string | number)[],
  root: boolean,
  out: LocatedCause[],
  budget: Budget,
): void {
  // kube-apiserver validates only non-null values: a rule about a nullable field's null sits on its parent
  if (value === undefined || value === null || budget.exhausted) return;
  const compiled = compileNode(rules, node);
  if (compiled.length > 0) {
    const self = toCel(value, node, root);
    const oldSelf = old === undefined || old === null ? undefined : toCel(old, node, root);
    // an allOf entry's errors ratchet on the parent's value, as kube-apiserver's (nearestParentCorrelation)
    const ratchetAt = rules === node ? segs : segs.slice(0, -1);
    for (const rule of compiled) {
      if (budget.exhausted) return;
      check(rule, value, old, self, oldSelf, node, segs, ratchetAt, out, budget);
    }
  }
  for (const entry of rules.allOf ?? []) {
    const a = asSchema(entry);
    if (a) walk(value, old, a, node, segs, root, out, budget);
  }
  if (Array.isArray(value)) {
    const items = asSchema(rules.items);
    const itemsNode = rules === node ? items : asSchema(node.items);
    if (!items || !itemsNode) return;
    const keys =
      node['x-kubernetes-list-type'] === 'map' ? (node['x-kubernetes-list-map-keys'] ?? []) : undefined;
    value.forEach((item, i) => {
      // Only map lists correlate items with the old list (by their keys), as in Kubernetes.
      const before =
        keys && Array.isArray(old)
          ? (old as unknown[]).find(
              (o) => isObject(o) && isObject(item) && keys.every((k) => o[k] === item[k]),
            )
          : undefined;
      walk(item, before, items, itemsNode, [...segs, i], false, out, budget);
    });
    return;
  }
  if (!isObject(value)) return;
  const oldObj = isObject(old) ? old : undefined;
  const mapValues = mapValueSchema(rules);
  const nodeMapValues = rules === node ? mapValues : mapValueSchema(node);
  for (const [k, v] of Object.entries(value)) {
    if (root && k === 'metadata') continue;
    const sub = asSchema(rules.properties?.[k]) ?? mapValues;
    const subNode = rules === node ? sub : (asSchema(node.properties?.[k]) ?? nodeMapValues);
    if (sub && subNode) walk(v, oldObj?.[k], sub, subNode, [...segs, k], false, out, budget);
  }
}

function typeNameOf(s: JsonSchemaProps): string {
  return s.type ?? (s['x-kubernetes-int-or-string'] === true ? 'string' : 'object');
}

function check(
  rule: CompiledRule,
  value: unknown,
  old: unknown,
  self: CelInput,
  oldSelf: CelInput | undefined,
  s: JsonSchemaProps,
  segs: (string | number)[],
  ratchetAt: (string | number)[],
  out: LocatedCause[],
  budget: Budget,
): void {
  // A transition rule runs only with an old value, unless optionalOldSelf makes oldSelf an optional.
  if (rule.transition && old === undefined && !rule.optionalOldSelf) return;
  const vars: Record<string, CelInput> = { self };
  if (rule.optionalOldSelf && rule.transition) vars.oldSelf = oldSelf === undefined ? none() : some(oldSelf);
  else if (oldSelf !== undefined) vars.oldSelf = oldSelf;
  const typeName = typeNameOf(s);
  const field = rule.fieldPath ? renderRuleFieldPath(renderPath(segs), rule.fieldPath) : renderPath(segs);
  const located = (cause: StatusCause): LocatedCause => ({
    cause,
    segments: ratchetAt,
    noRatchet: rule.transition,
  });
  const shapes = new Map<string, Shape>([['self', shapeOfValue(value)]]);
  if (old !== undefined) shapes.set('oldSelf', shapeOfValue(old));
  const cost = costOf(rule.expr, shapes);
  if (cost > PER_CALL_LIMIT) {
    // kube-apiserver stops validating the object once one rule passes the per-call limit
    budget.exhausted = true;
    out.push(
      located(
        invalid(
          field,
          typeName,
          `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
        ),
      ),
    );
    return;
  }
  budget.remaining -= cost;
  if (budget.remaining < 0) {
    budget.exhausted = true;
    out.push(
      located(
        invalid(
          field,
          typeName,
          'validation failed due to running out of cost budget, no further validation rules will be run',
        ),
      ),
    );
    return;
  }
  const result = rule.program(vars);
  if (isCelError(result)) {
    out.push(located(invalid(field, typeName, evaluationError(kubeErrorText(result.message), rule))));
    return;
  }
  if (result === true) return;
  const detail = result === false ? messageOf(rule, vars) : `rule did not evaluate to a bool: ${rule.rule}`;
  out.push(located(causeFor(rule.reason, field, typeName, detail)));
}

/**
 * kube-apiserver's wording of a rule that fails to evaluate: `<error> evaluating rule: <rule>`, and for
 * an overload error (only `dyn` values such as int-or-string get past the type check) its longer text.
 */
function evaluationError(error: string, rule: CompiledRule): string {
  if (error.startsWith('no such overload'))
    return `'${error}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`;
  return `${error} evaluating rule: ${ruleErrorString(rule)}`;
}

/** The rule as kube-apiserver names it in errors: its message when set, else its text (both trimmed). */
function ruleErrorString(rule: CompiledRule): string {
  return (rule.message ?? rule.rule).trim();
}

/** kube-apiserver's limit on a messageExpression's result (celconfig.MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

/** cel-go's wording of the errors users see most. */
function kubeErrorText(message: string): string {
  const noKey = /^field not found: (.*)$/.exec(message);
  if (noKey) return `no such key: ${noKey[1]}`;
  if (message.startsWith('found no matching overload')) return `no such overload`;
  // @bufbuild/cel says 'int divide by zero', 'uint modulus by zero', 'int overflow during _*_'
  if (/^u?int divide by zero$/.test(message)) return 'division by zero';
  if (/^u?int modulus by zero$/.test(message)) return 'modulus by zero';
  if (message.startsWith('int overflow')) return 'integer overflow';
  if (message.startsWith('uint overflow')) return 'unsigned integer overflow';
  return message;
}

function messageOf(rule: CompiledRule, vars: Record<string, CelInput>): string {
  if (rule.messageExpression) {
    const m = rule.messageExpression.program(vars);
    const text = typeof m === 'string' ? m.trim() : '';
    if (text !== '' && !text.includes('\n') && Buffer.byteLength(text) <= MAX_MESSAGE_EXPRESSION_BYTES)
      return text;
    // an error, a non-string or an empty, multi-line or too long message falls back, as kube-apiserver does
  }
  // kube-apiserver trims both (a YAML block scalar `rule: |` ends in a newline)
  return rule.message !== undefined ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;
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
