/**
 * `matchConditions` of admission webhooks and ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1,
 * GA in Kubernetes 1.30): CEL expressions over `object`, `oldObject`, `request` and (for policies)
 * `namespaceObject`, evaluated once the rules and selectors matched. As kube-apiserver's matcher
 * (k8s.io/apiserver admission/plugin/webhook/matchconditions): a condition that is false skips the
 * webhook or policy; otherwise an evaluation error follows the failure policy (Fail refuses the
 * request, Ignore skips); all true calls it. Validation follows k8s.io/kubernetes
 * `validateMatchConditions`: at most 64, names required, qualified and unique, expressions required,
 * compiling in that environment and typed bool.
 *
 * Not supported: the `authorizer` variable (a condition using it is refused when the configuration is
 * written, with a message saying so).
 */
import { isCelError, plan } from '@bufbuild/cel';
import type { CelInput, CelResult } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { StatusCause } from '../types.js';
import { deepEqual, isObject } from '../internal/common/json.js';
import { duplicate, invalid, required, tooMany } from '../crd/field-errors.js';
import type { CelT } from '../crd/internal/cel/cel-types.js';
import { list, map, T, typeName } from '../crd/internal/cel/cel-types.js';
import { kubernetesCelEnv, kubernetesFunctions } from '../crd/internal/cel/environment.js';
import { parseWithLimits } from '../crd/internal/cel/parse-limits.js';
import { checkTypes, formatCelError } from '../crd/internal/cel/type-check.js';
import { toCel } from '../crd/internal/cel/values.js';
import { labelKeyErrors } from '../selectors/index.js';
import type { AdmissionAttributes } from './admission-attributes.js';
import { userInfoOf } from './admission-attributes.js';

type Program = (ctx?: Record<string, CelInput>) => CelResult;

/** One compiled condition; `compileError` when its stored expression does not compile. */
export interface MatchCondition {
  name: string;
  expression: string;
  program?: Program;
  compileError?: string;
}

/** What evaluating the conditions decided: call, skip (naming the false condition), or an error. */
export type MatchOutcome = { matches: true } | { matches: false; condition: string } | { error: string };

/** kube's limit on the conditions of one webhook or policy. */
const MAX_CONDITIONS = 64;

const objectType = (fields: Record<string, CelT>): CelT => ({
  k: 'object',
  fields: new Map(Object.entries(fields)),
});

const GVK = objectType({ group: T.string, version: T.string, kind: T.string });
const GVR = objectType({ group: T.string, version: T.string, resource: T.string });

/** `request` as kube declares it (k8s.io/apiserver admission/plugin/cel BuildRequestType). */
const REQUEST_TYPE = objectType({
  kind: GVK,
  resource: GVR,
  subResource: T.string,
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: T.string,
  name: T.string,
  namespace: T.string,
  operation: T.string,
  userInfo: objectType({
    username: T.string,
    uid: T.string,
    groups: list(T.string),
    extra: map(T.string, list(T.string)),
  }),
  dryRun: T.bool,
  options: T.dyn,
});

/** `namespaceObject` as kube declares it (BuildNamespaceType). */
const NAMESPACE_TYPE = objectType({
  metadata: objectType({
    name: T.string,
    generateName: T.string,
    namespace: T.string,
    labels: map(T.string, T.string),
    annotations: map(T.string, T.string),
    UID: T.string,
    creationTimestamp: T.timestamp,
    deletionGracePeriodSeconds: T.int,
    deletionTimestamp: T.timestamp,
    generation: T.int,
    resourceVersion: T.string,
    finalizers: list(T.string),
  }),
  spec: objectType({ finalizers: list(T.string) }),
  status: objectType({
    conditions: list(
      objectType({
        status: T.string,
        type: T.string,
        lastTransitionTime: T.timestamp,
        message: T.string,
        reason: T.string,
      }),
    ),
    phase: T.string,
  }),
});

/**
 * The variables a condition may name: kube compiles match conditions with `object`, `oldObject`,
 * `request`, `namespaceObject` and `authorizer` (and `params` only for a policy with a paramKind,
 * which this server refuses); never a policy's `variables`.
 */
const DECLARED = new Map<string, CelT>([
  ['object', T.dyn],
  ['oldObject', T.dyn],
  ['request', REQUEST_TYPE],
  ['namespaceObject', NAMESPACE_TYPE],
  ['authorizer', T.dyn],
]);

/** Names that resolve to types rather than variables. */
const TYPE_NAMES = new Set([
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
]);

/** CEL's standard functions and operators, as they appear in a parsed expression. */
const STANDARD_FUNCTIONS = new Set([
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '-_',
  '!_',
  '_&&_',
  '_||_',
  '_?_:_',
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '@in',
  '_[_]',
  '@not_strictly_false',
  'not_strictly_false',
  'size',
  'contains',
  'startsWith',
  'endsWith',
  'matches',
  'int',
  'uint',
  'double',
  'string',
  'bytes',
  'bool',
  'dyn',
  'type',
  'duration',
  'timestamp',
  'getFullYear',
  'getMonth',
  'getDayOfYear',
  'getDayOfMonth',
  'getDate',
  'getDayOfWeek',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
]);

let knownFunctions: Set<string> | undefined;

function isKnownFunction(name: string): boolean {
  knownFunctions ??= new Set([...STANDARD_FUNCTIONS, ...kubernetesFunctions().map((f) => f.name)]);
  return knownFunctions.has(name);
}

/** A reference cel-go's checker refuses: an undeclared variable or function, with the expression at fault. */
interface Undeclared {
  name: string;
  at: Expr;
  call: boolean;
}

/** The first undeclared variable or function of `e`, comprehension variables in scope where they apply. */
function firstUndeclared(e: Expr | undefined, scope: ReadonlySet<string>): Undeclared | undefined {
  if (!e) return undefined;
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr':
      return scope.has(k.value.name) || TYPE_NAMES.has(k.value.name)
        ? undefined
        : { name: k.value.name, at: e, call: false };
    case 'selectExpr':
      return firstUndeclared(k.value.operand, scope);
    case 'callExpr': {
      const target = k.value.target?.exprKind;
      // a namespaced function (`sets.contains(a, b)`) parses as a call on the identifier `sets`
      if (target?.case === 'identExpr' && isKnownFunction(`${target.value.name}.${k.value.function}`))
        return first(k.value.args, scope);
      if (!isKnownFunction(k.value.function)) return { name: k.value.function, at: e, call: true };
      return firstUndeclared(k.value.target, scope) ?? first(k.value.args, scope);
    }
    case 'listExpr':
      return first(k.value.elements, scope);
    case 'structExpr':
      for (const en of k.value.entries) {
        const u =
          (en.keyKind.case === 'mapKey' ? firstUndeclared(en.keyKind.value, scope) : undefined) ??
          firstUndeclared(en.value, scope);
        if (u) return u;
      }
      return undefined;
    case 'comprehensionExpr': {
      const c = k.value;
      const inner = new Set(scope);
      inner.add(c.iterVar);
      if (c.iterVar2) inner.add(c.iterVar2);
      inner.add(c.accuVar);
      return (
        firstUndeclared(c.iterRange, scope) ??
        firstUndeclared(c.accuInit, scope) ??
        first([c.loopCondition, c.loopStep, c.result], inner)
      );
    }
    default:
      return undefined;
  }
}

function first(list: readonly (Expr | undefined)[], scope: ReadonlySet<string>): Undeclared | undefined {
  for (const x of list) {
    const u = firstUndeclared(x, scope);
    if (u) return u;
  }
  return undefined;
}

function usesVariable(e: Expr | undefined, name: string): boolean {
  if (!e) return false;
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr':
      return k.value.name === name;
    case 'selectExpr':
      return usesVariable(k.value.operand, name);
    case 'callExpr':
      return usesVariable(k.value.target, name) || k.value.args.some((a) => usesVariable(a, name));
    case 'listExpr':
      return k.value.elements.some((a) => usesVariable(a, name));
    case 'structExpr':
      return k.value.entries.some(
        (en) =>
          (en.keyKind.case === 'mapKey' && usesVariable(en.keyKind.value, name)) ||
          usesVariable(en.value, name),
      );
    case 'comprehensionExpr': {
      const c = k.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].some((x) =>
        usesVariable(x, name),
      );
    }
    default:
      return false;
  }
}

/**
 * Why an expression is not a valid condition, as kube-apiserver's compiler words it (`compilation
 * failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')` with the source line and
 * a caret, `must evaluate to bool but got dyn`); undefined when it is one.
 */
function conditionProblem(text: string): string | undefined {
  let parsed: ReturnType<typeof parseWithLimits>;
  try {
    parsed = parseWithLimits(text);
  } catch (e) {
    return (e as Error).message;
  }
  // kube declares `authorizer` (and its library); this server has neither, so say that plainly
  if (usesVariable(parsed.expr, 'authorizer'))
    return 'the in-memory API server does not evaluate CEL authorizer checks; write the condition without the authorizer variable';
  const undeclared = firstUndeclared(parsed.expr, new Set(DECLARED.keys()));
  if (undeclared) {
    const message = `undeclared reference to '${undeclared.name}' (in container '')`;
    return `compilation failed: ${formatCelError(parsed, text, undeclared.at.id, message, undeclared.call ? 'call' : 'expr')}`;
  }
  const checked = checkTypes(parsed, text, DECLARED);
  if (checked.error !== undefined) return `compilation failed: ${checked.error}`;
  if (checked.type.k !== 'bool') return `must evaluate to bool but got ${typeName(checked.type)}`;
  return undefined;
}

/**
 * The causes that make a `matchConditions` list invalid, named from `field` (e.g.
 * `webhooks[0].matchConditions`), in kube-apiserver's order and words.
 */
export function validateMatchConditions(value: unknown, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (value === undefined || value === null) return causes;
  const conditions = Array.isArray(value) ? value : [];
  if (conditions.length > MAX_CONDITIONS) causes.push(tooMany(field, conditions.length, MAX_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((c: unknown, i: number) => {
    const o = isObject(c) ? c : {};
    const at = `${field}[${i}]`;
    const expression = typeof o.expression === 'string' ? o.expression.trim() : '';
    if (expression === '') causes.push(required(`${at}.expression`));
    else {
      const problem = conditionProblem(expression);
      if (problem !== undefined) causes.push(invalid(`${at}.expression`, expression, problem));
    }
    const name = typeof o.name === 'string' ? o.name : '';
    if (name === '') causes.push(required(`${at}.name`));
    else for (const m of labelKeyErrors(name)) causes.push(invalid(`${at}.name`, name, m));
    if (name !== '') {
      if (names.has(name)) causes.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
  });
  return causes;
}

/** Whether two `matchConditions` values are the same (kube skips their validation on an update that keeps them). */
export function sameMatchConditions(a: unknown, b: unknown): boolean {
  return deepEqual(a ?? null, b ?? null);
}

/** Compiles stored conditions; one that does not compile evaluates to an error (as kube-apiserver's). */
export function compileMatchConditions(value: unknown): MatchCondition[] {
  return (Array.isArray(value) ? value : []).map((c: unknown) => {
    const o = isObject(c) ? c : {};
    const condition: MatchCondition = {
      name: typeof o.name === 'string' ? o.name : '',
      expression: typeof o.expression === 'string' ? o.expression : '',
    };
    try {
      condition.program = plan(kubernetesCelEnv(), parseWithLimits(condition.expression));
    } catch (e) {
      condition.compileError = (e as Error).message;
    }
    return condition;
  });
}

/** cel-go's wording of the evaluation errors users meet most (@bufbuild/cel words them its own way). */
export function kubeErrorText(message: string): string {
  const noKey = /^field not found: (.*)$/.exec(message);
  if (noKey) return `no such key: ${noKey[1]}`;
  if (message.startsWith('found no matching overload')) return 'no such overload';
  if (/^u?int divide by zero$/.test(message)) return 'division by zero';
  if (/^u?int modulus by zero$/.test(message)) return 'modulus by zero';
  return message;
}

/**
 * Evaluates conditions as kube-apiserver's matcher: any false skips (whatever errors others had),
 * else any error is the outcome (several as `[a, b]`), else the webhook or policy applies.
 */
export function evaluateMatchConditions(
  conditions: readonly MatchCondition[],
  vars: Record<string, CelInput>,
): MatchOutcome {
  const errs: string[] = [];
  for (const c of conditions) {
    if (!c.program) {
      errs.push(`compilation error: ${c.compileError ?? 'the expression does not compile'}`);
      continue;
    }
    const r = c.program(vars);
    if (isCelError(r)) {
      errs.push(`expression '${c.expression}' resulted in error: ${kubeErrorText(r.message)}`);
      continue;
    }
    if (r === false) return { matches: false, condition: c.name };
  }
  if (errs.length === 0) return { matches: true };
  const unique = [...new Set(errs)];
  return { error: unique.length === 1 ? unique[0] : `[${unique.join(', ')}]` };
}

/**
 * The `request` variable (kube's AdmissionRequest without uid and objects): `kind` and `resource` at
 * `version` (the version the webhook or policy matched), `requestKind` and `requestResource` as asked.
 */
export function requestVariable(attrs: AdmissionAttributes, version: string, options: unknown): CelInput {
  return toCel(
    {
      kind: { group: attrs.group, version, kind: attrs.kind },
      resource: { group: attrs.group, version, resource: attrs.resource },
      subResource: attrs.subresource,
      requestKind: { group: attrs.group, version: attrs.version, kind: attrs.kind },
      requestResource: { group: attrs.group, version: attrs.version, resource: attrs.resource },
      requestSubResource: attrs.subresource,
      name: attrs.name,
      namespace: attrs.namespace,
      operation: attrs.operation,
      userInfo: userInfoOf(attrs.user),
      dryRun: attrs.dryRun,
      options: options ?? null,
    },
    undefined,
  );
}
