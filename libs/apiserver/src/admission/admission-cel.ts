/**
 * The CEL environment of admission expressions (matchConditions, and a ValidatingAdmissionPolicy's
 * variables, validations and messages) as kube-apiserver declares it (k8s.io/apiserver
 * admission/plugin/cel compile.go): `object` and `oldObject` dyn, `request` and `namespaceObject`
 * typed, `authorizer`, and a policy's `variables` typed by their expressions. The check refuses what
 * cel-go's checker refuses and words it the same way (`undeclared reference to 'x' (in container '')`,
 * `undefined field 'x'`, `must evaluate to bool but got dyn`), through the CRD rules' type checker.
 */
import type { CelInput } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { CelT } from '../crd/internal/cel/cel-types.js';
import {
  CEL_TYPE_NAMES,
  list,
  map,
  STANDARD_CEL_FUNCTIONS,
  T,
  typeName,
} from '../crd/internal/cel/cel-types.js';
import { kubernetesFunctions } from '../crd/internal/cel/environment.js';
import { parseWithLimits } from '../crd/internal/cel/parse-limits.js';
import { checkTypes, formatCelError } from '../crd/internal/cel/type-check.js';
import { toCel } from '../crd/internal/cel/values.js';
import type { AdmissionAttributes } from './admission-attributes.js';
import { userInfoOf } from './admission-attributes.js';
import { AUTHORIZER_FUNCTIONS } from './cel-authorizer.js';

/** An object type with the given fields (selecting another field is `undefined field`). */
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
 * The variables every admission expression may name (match conditions and policy expressions); a
 * policy's `variables` and messages add to or take from them (see {@link policyScope}).
 */
export const ADMISSION_VARIABLES: ReadonlyMap<string, CelT> = new Map<string, CelT>([
  ['object', T.dyn],
  ['oldObject', T.dyn],
  ['request', REQUEST_TYPE],
  ['namespaceObject', NAMESPACE_TYPE],
  ['authorizer', T.dyn],
]);

/**
 * The variables of a policy expression: the admission ones, `variables` (an object with the policy's
 * variables so far, by type), and without `authorizer` for a messageExpression (kube compiles those
 * without it).
 */
export function policyScope(variables: ReadonlyMap<string, CelT>, authorizer = true): Map<string, CelT> {
  const scope = new Map(ADMISSION_VARIABLES);
  if (!authorizer) scope.delete('authorizer');
  scope.set('variables', { k: 'object', fields: new Map(variables) });
  return scope;
}

/** Names that resolve to types rather than variables. */
const TYPE_NAMES: ReadonlySet<string> = new Set([...CEL_TYPE_NAMES, 'dyn']);

let knownFunctions: Set<string> | undefined;

function isKnownFunction(name: string): boolean {
  knownFunctions ??= new Set([
    ...STANDARD_CEL_FUNCTIONS,
    ...kubernetesFunctions().map((f) => f.name),
    ...AUTHORIZER_FUNCTIONS,
  ]);
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

/**
 * Why `text` is not a valid admission expression over `declared`, as kube-apiserver's compiler words
 * it (`compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')` with
 * the source line and a caret; `must evaluate to bool but got dyn` when `want` is set), and its type.
 */
export function expressionProblem(
  text: string,
  declared: ReadonlyMap<string, CelT>,
  want?: 'bool' | 'string' | 'string-or-null',
): { problem?: string; type: CelT } {
  let parsed: ReturnType<typeof parseWithLimits>;
  try {
    parsed = parseWithLimits(text);
  } catch (e) {
    return { problem: (e as Error).message, type: T.dyn };
  }
  const undeclared = firstUndeclared(parsed.expr, new Set(declared.keys()));
  if (undeclared) {
    const message = `undeclared reference to '${undeclared.name}' (in container '')`;
    const at = undeclared.call ? 'call' : 'expr';
    return {
      problem: `compilation failed: ${formatCelError(parsed, text, undeclared.at.id, message, at)}`,
      type: T.dyn,
    };
  }
  const checked = checkTypes(parsed, text, declared);
  if (checked.error !== undefined) return { problem: `compilation failed: ${checked.error}`, type: T.dyn };
  const wanted = want === 'string-or-null' ? ['string', 'null'] : want === undefined ? [] : [want];
  if (
    wanted.length > 0 &&
    !wanted.includes(checked.type.k) &&
    !(checked.type.k === 'dyn' && untypedCall(parsed.expr))
  ) {
    // cel-go names one type, or lists several as [string null_type]
    const expected = want === 'string-or-null' ? 'one of [string null_type]' : want;
    return { problem: `must evaluate to ${expected} but got ${typeName(checked.type)}`, type: checked.type };
  }
  return { type: checked.type };
}

/**
 * Whether `e` is a call of a library function (`isURL(x)`, `quantity(q).isGreaterThan(r)`,
 * `sets.contains(a, b)`): the type checker does not know their result types and says dyn, where
 * cel-go knows them; such an expression is not refused for being dyn (one-sided, as the check is).
 */
function untypedCall(e: Expr | undefined): boolean {
  if (e?.exprKind.case !== 'callExpr') return false;
  const call = e.exprKind.value;
  const target = call.target?.exprKind;
  if (target?.case === 'identExpr' && isKnownFunction(`${target.value.name}.${call.function}`)) return true;
  return !STANDARD_CEL_FUNCTIONS.has(call.function);
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
 * The `request` variable (kube's AdmissionRequest without uid and objects): `kind` and `resource` at
 * `version` (the version the webhook or policy matched), `requestKind` and `requestResource` as asked.
 * As kube-apiserver builds it (pkg/cel/common SchemalessTypedToVal), fields that are empty and
 * `omitempty` are absent: no `namespace` for a cluster-scoped object, no `name` before one is
 * generated, no `subResource` for the main resource, no `userInfo.groups`/`uid`/`extra` when empty;
 * reading one is `no such key`, `has()` is false.
 */
export function requestVariable(attrs: AdmissionAttributes, version: string, options: unknown): CelInput {
  const request: Record<string, unknown> = {
    kind: { group: attrs.group, version, kind: attrs.kind },
    resource: { group: attrs.group, version, resource: attrs.resource },
    requestKind: { group: attrs.group, version: attrs.version, kind: attrs.kind },
    requestResource: { group: attrs.group, version: attrs.version, resource: attrs.resource },
    operation: attrs.operation,
    userInfo: userInfoOf(attrs.user),
    dryRun: attrs.dryRun,
    options: options ?? null,
  };
  if (attrs.subresource !== '') {
    request.subResource = attrs.subresource;
    request.requestSubResource = attrs.subresource;
  }
  if (attrs.name !== '') request.name = attrs.name;
  if (attrs.namespace !== '') request.namespace = attrs.namespace;
  const userInfo = request.userInfo as { groups?: string[] };
  if (userInfo.groups?.length === 0) delete userInfo.groups;
  return toCel(request, undefined);
}
