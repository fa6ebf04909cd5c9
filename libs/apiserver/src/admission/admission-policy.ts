/**
 * `ValidatingAdmissionPolicy` and `ValidatingAdmissionPolicyBinding` (admissionregistration.k8s.io/v1,
 * GA in Kubernetes 1.30): CEL validations run in the API server itself, after the mutating webhooks
 * and schema validation and before the validating webhooks. Supported: `matchConstraints`
 * (resource rules with exclusions, namespace and object selectors, matchPolicy), `validations`
 * (`expression`, `message`, `messageExpression`, `reason`), `variables`, `failurePolicy`, bindings
 * with `validationActions` Deny and Warn (Audit is accepted and ignored) and `matchResources`, and
 * `matchConditions` (see match-conditions.ts: a false one means the policy does not apply, an
 * evaluation error follows `failurePolicy`).
 * `auditAnnotations` are validated and evaluated (an error denies under Fail) but not recorded.
 * Not supported: `paramKind`/`paramRef` (`params` is null).
 */
import { isCelError, plan } from '@bufbuild/cel';
import type { CelInput, CelResult } from '@bufbuild/cel';
import type { JsonObject, StatusCause } from '../types.js';
import { ApiError } from '../internal/common/errors.js';
import { isObject, metaOf, str } from '../internal/common/json.js';
import { parseWithLimits } from '../crd/internal/cel/parse-limits.js';
import { toCel } from '../crd/internal/cel/values.js';
import { EVERYTHING, labelSelectorFromObject, matchesLabels, selectsEverything } from '../selectors/index.js';
import type { LabelSelector } from '../selectors/index.js';
import type { AdmissionAttributes } from './admission-attributes.js';
import { labelsOf, operationOptions } from './admission-attributes.js';
import type { WebhookRule } from './webhook-configuration.js';
import type { MatchContext } from './webhook-matching.js';
import { ruleMatches } from './webhook-matching.js';
import type { MatchCondition } from './match-conditions.js';
import { expressionProblem, kubeErrorText, policyScope, requestVariable } from './admission-cel.js';
import { duplicate, invalid, notSupported, required } from '../crd/field-errors.js';
import { validateNamedRuleWithOperations } from './rule-validation.js';
import { labelKeyErrors } from '../selectors/index.js';
import { admissionCelEnv, authorizerVariable, withAuthorizer } from './cel-authorizer.js';
import type { AdmissionAuthorizer } from './cel-authorizer.js';
import type { CelT } from '../crd/internal/cel/cel-types.js';
import { T } from '../crd/internal/cel/cel-types.js';
import {
  compileMatchConditions,
  evaluateMatchConditions,
  sameMatchConditions,
  validateMatchConditions,
} from './match-conditions.js';

/** The resources of the policy kinds in the store. */
export const POLICY_KEY = 'admissionregistration.k8s.io/validatingadmissionpolicies';
export const BINDING_KEY = 'admissionregistration.k8s.io/validatingadmissionpolicybindings';

type Program = (ctx?: Record<string, CelInput>) => CelResult;

interface Matcher {
  rules: WebhookRule[];
  exclude: WebhookRule[];
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  matchPolicy: 'Equivalent' | 'Exact';
}

interface CompiledValidation {
  expression: string;
  program: Program;
  message?: string;
  messageExpression?: Program;
  reason?: string;
}

interface CompiledPolicy {
  name: string;
  match: Matcher | undefined;
  failurePolicy: 'Fail' | 'Ignore';
  matchConditions: MatchCondition[];
  variables: { name: string; expression: string; program: Program }[];
  validations: CompiledValidation[];
  /** `auditAnnotations`: their values are not recorded (no audit log), an evaluation error counts. */
  auditAnnotations: { expression: string; program: Program }[];
}

interface CompiledBinding {
  name: string;
  policyName: string;
  actions: string[];
  match: Matcher | undefined;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function strings(v: unknown): string[] {
  return arr(v).filter((x): x is string => typeof x === 'string');
}

function selector(v: unknown): LabelSelector {
  return v === undefined || v === null ? EVERYTHING : labelSelectorFromObject(v);
}

function rulesOf(v: unknown): WebhookRule[] {
  return arr(v).map((r) => {
    const o = isObject(r) ? r : {};
    return {
      operations: strings(o.operations),
      apiGroups: strings(o.apiGroups),
      apiVersions: strings(o.apiVersions),
      resources: strings(o.resources),
      scope: typeof o.scope === 'string' ? o.scope : '*',
    };
  });
}

function matcherOf(v: unknown): Matcher | undefined {
  if (!isObject(v)) return undefined;
  return {
    rules: rulesOf(v.resourceRules),
    exclude: rulesOf(v.excludeResourceRules),
    namespaceSelector: selector(v.namespaceSelector),
    objectSelector: selector(v.objectSelector),
    matchPolicy: v.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
  };
}

/** Compiles one CEL expression; throws with kube-apiserver's "compilation failed" text. */
function compile(text: string): Program {
  return plan(admissionCelEnv(), parseWithLimits(text));
}

function compilePolicy(obj: JsonObject): CompiledPolicy {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return {
    name: str(metaOf(obj).name),
    match: matcherOf(spec.matchConstraints),
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchConditions: compileMatchConditions(spec.matchConditions),
    variables: arr(spec.variables).map((v) => {
      const o = isObject(v) ? v : {};
      return { name: str(o.name), expression: str(o.expression), program: compile(str(o.expression)) };
    }),
    auditAnnotations: arr(spec.auditAnnotations).map((a) => {
      const expression = str(isObject(a) ? a.valueExpression : undefined);
      return { expression, program: compile(expression) };
    }),
    validations: arr(spec.validations).map((v) => {
      const o = isObject(v) ? v : {};
      const c: CompiledValidation = { expression: str(o.expression), program: compile(str(o.expression)) };
      if (typeof o.message === 'string' && o.message !== '') c.message = o.message;
      if (typeof o.messageExpression === 'string' && o.messageExpression !== '')
        c.messageExpression = compile(o.messageExpression);
      if (typeof o.reason === 'string') c.reason = o.reason;
      return c;
    }),
  };
}

/**
 * The causes that make a policy invalid (expressions that do not compile, missing fields), named
 * by field as kube-apiserver names them. `old` is the stored policy on an update: its
 * `matchConditions` are not checked again when neither they nor `paramKind` changed, as kube does.
 */
export function validatePolicy(obj: JsonObject, old?: JsonObject): StatusCause[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const oldSpec = old && isObject(old.spec) ? old.spec : undefined;
  const causes: StatusCause[] = [];
  if (spec.failurePolicy !== undefined && spec.failurePolicy !== 'Fail' && spec.failurePolicy !== 'Ignore')
    causes.push(notSupported('spec.failurePolicy', spec.failurePolicy, ['Fail', 'Ignore']));
  if (isObject(spec.matchConstraints)) {
    const mc = spec.matchConstraints;
    if (mc.matchPolicy !== undefined && mc.matchPolicy !== 'Equivalent' && mc.matchPolicy !== 'Exact')
      causes.push(notSupported('spec.matchConstraints.matchPolicy', mc.matchPolicy, ['Equivalent', 'Exact']));
    arr(mc.resourceRules).forEach((r, i) =>
      causes.push(...validateNamedRuleWithOperations(r, `spec.matchConstraints.resourceRules[${i}]`)),
    );
    arr(mc.excludeResourceRules).forEach((r, i) =>
      causes.push(...validateNamedRuleWithOperations(r, `spec.matchConstraints.excludeResourceRules[${i}]`)),
    );
  }
  if (!isObject(spec.matchConstraints) || arr(spec.matchConstraints.resourceRules).length === 0) {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.matchConstraints.resourceRules',
      message: 'Required value',
    });
  }
  if (spec.paramKind !== undefined) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.paramKind',
      message: 'Unsupported value: the in-memory API server runs policies without params; remove paramKind',
    });
  }
  const keepsConditions =
    oldSpec !== undefined &&
    sameMatchConditions(spec.paramKind, oldSpec.paramKind) &&
    sameMatchConditions(spec.matchConditions, oldSpec.matchConditions);
  if (!keepsConditions) causes.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions'));
  // kube's validateVariable / validateValidation: each expression type-checked in the admission
  // environment, `variables` typed by the variables before it (all of them for validations)
  const check = (
    field: string,
    text: string,
    scope: ReadonlyMap<string, CelT>,
    want?: 'bool' | 'string' | 'string-or-null',
  ): CelT => {
    const { problem, type } = expressionProblem(text, scope, want);
    if (problem !== undefined) {
      causes.push(invalid(field, text, problem));
      return T.dyn;
    }
    try {
      compile(text);
    } catch (e) {
      causes.push(invalid(field, text, (e as Error).message));
    }
    return type;
  };
  const variableTypes = new Map<string, CelT>();
  arr(spec.variables).forEach((v, i) => {
    const o = isObject(v) ? v : {};
    const at = `spec.variables[${i}]`;
    const name = str(o.name);
    if (name.trim() === '') causes.push(required(`${at}.name`, 'name is not specified'));
    else if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) || CEL_RESERVED.has(name))
      causes.push(invalid(`${at}.name`, name, 'name is not a valid CEL identifier'));
    const text = str(o.expression);
    let type: CelT = T.dyn;
    if (text.trim() === '') causes.push(required(`${at}.expression`, 'expression is not specified'));
    else type = check(`${at}.expression`, text, policyScope(variableTypes));
    if (name !== '') variableTypes.set(name, type);
  });
  const annotations = arr(spec.auditAnnotations);
  if (arr(spec.validations).length === 0 && annotations.length === 0) {
    const why = 'validations or auditAnnotations must contain at least one item';
    causes.push(required('spec.validations', why), required('spec.auditAnnotations', why));
  }
  const validationScope = policyScope(variableTypes);
  const messageScope = policyScope(variableTypes, false);
  arr(spec.validations).forEach((v, i) => {
    const o = isObject(v) ? v : {};
    const at = `spec.validations[${i}]`;
    const text = str(o.expression);
    if (text.trim() === '') causes.push(required(`${at}.expression`, 'expression is not specified'));
    else check(`${at}.expression`, text, validationScope, 'bool');
    if (typeof o.messageExpression === 'string' && o.messageExpression !== '') {
      if (o.messageExpression.trim() === '')
        causes.push(
          invalid(`${at}.messageExpression`, o.messageExpression, 'must be non-empty if specified'),
        );
      else check(`${at}.messageExpression`, o.messageExpression, messageScope, 'string');
    }
    if (typeof o.message === 'string' && o.message !== '') {
      if (o.message.trim() === '')
        causes.push(invalid(`${at}.message`, o.message, 'message must be non-empty if specified'));
      else if (/[\r\n]/.test(o.message.trim()))
        causes.push(invalid(`${at}.message`, o.message, 'message must not contain line breaks'));
    }
    if (o.reason !== undefined && !POLICY_REASONS.some((r) => r === o.reason))
      causes.push(notSupported(`${at}.reason`, o.reason, POLICY_REASONS));
  });
  // kube's validateAuditAnnotation: at most 20, keys qualified as <policy>/<key> and unique, values
  // string or null
  if (annotations.length > MAX_AUDIT_ANNOTATIONS)
    causes.push(
      invalid(
        'spec.auditAnnotations',
        annotations,
        `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      ),
    );
  const policyName = str(metaOf(obj).name);
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    const o = isObject(a) ? a : {};
    const at = `spec.auditAnnotations[${i}]`;
    const key = str(o.key);
    if (policyName !== '')
      for (const m of labelKeyErrors(`${policyName}/${key}`))
        causes.push(invalid(`${at}.key`, `${policyName}/${key}`, m));
    else causes.push(invalid(`${at}.key`, key, 'requires metadata.name be non-empty'));
    const text = str(o.valueExpression);
    if (text.trim() === '')
      causes.push(required(`${at}.valueExpression`, 'valueExpression is not specified'));
    else if (Buffer.byteLength(text.trim()) > MAX_AUDIT_VALUE_EXPRESSION)
      causes.push(
        required(`${at}.valueExpression`, `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION} bytes in length`),
      );
    else {
      const { problem } = expressionProblem(text.trim(), validationScope, 'string-or-null');
      if (problem !== undefined) causes.push(invalid(`${at}.valueExpression`, text, problem));
    }
    if (keys.has(key)) causes.push(duplicate(`${at}.key`, key));
    keys.add(key);
  });
  return causes;
}

/** Words a CEL identifier may not be (kube's celReserved). */
const CEL_RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(
    ' ',
  ),
);

/** kube's limits on a policy's audit annotations. */
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION = 5 * 1024;

/** The reasons a validation may give (kube's supportedValidationPolicyReason). */
const POLICY_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];

/** The causes that make a binding invalid. */
export function validateBinding(obj: JsonObject): StatusCause[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const causes: StatusCause[] = [];
  if (typeof spec.policyName !== 'string' || spec.policyName === '')
    causes.push({ reason: 'FieldValueRequired', field: 'spec.policyName', message: 'Required value' });
  // kube's validateValidationActions: each known and once, not both Deny and Warn, at least one
  const actions = strings(spec.validationActions);
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!['Deny', 'Warn', 'Audit'].includes(a))
      causes.push(notSupported(`spec.validationActions[${i}]`, a, ['Audit', 'Deny', 'Warn']));
    if (seen.has(a)) causes.push(duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.validationActions',
      message:
        'Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    });
  if (seen.size === 0)
    causes.push(required('spec.validationActions', 'at least one validation action is required'));
  if (spec.paramRef !== undefined)
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.paramRef',
      message: 'Unsupported value: the in-memory API server runs policies without params; remove paramRef',
    });
  return causes;
}

const STATUS_OF_REASON: Record<string, number> = {
  Unauthorized: 401,
  Forbidden: 403,
  Invalid: 422,
  RequestEntityTooLarge: 413,
};

/**
 * kube-apiserver's answer to a policy's denial (admission.NewForbidden with the reason and code of
 * the validation): `<resource> "<name>" is forbidden: <text>`, the text also as the one cause.
 */
function denial(attrs: AdmissionAttributes, text: string, reason: string): ApiError {
  const meta = attrs.object ? metaOf(attrs.object) : {};
  // the request's name, else the object's name or generateName (kube's extractResourceName)
  const name = attrs.name || str(meta.name) || str(meta.generateName) || 'Unknown';
  const resource = attrs.group ? `${attrs.resource}.${attrs.group}` : attrs.resource;
  return new ApiError(
    STATUS_OF_REASON[reason] ?? 422,
    reason,
    `${resource} "${name}" is forbidden: ${text}`,
    {
      name,
      // StatusDetails.group is omitted when empty
      ...(attrs.group ? { group: attrs.group } : {}),
      kind: attrs.resource,
      // kube's cause has the message only (reason and field are empty, so omitted on the wire);
      // StatusCause declares them required, hence the cast
      causes: [{ message: text } as StatusCause],
    },
  );
}

/** Where policies read the objects and the cluster from. */
export interface PolicySource extends MatchContext {
  /** Stored policies and bindings. */
  list(key: string): JsonObject[];
  /** The namespace object of a namespaced request (`namespaceObject`), if it exists. */
  namespaceObject(name: string): JsonObject | undefined;
  /** Decides the `authorizer` checks of policy expressions. */
  authorize: AdmissionAuthorizer;
}

/** The policies and bindings of one server, compiled once per change. */
export class AdmissionPolicies {
  private compiled: { policies: Map<string, CompiledPolicy>; bindings: CompiledBinding[] } | undefined;

  constructor(private readonly source: PolicySource) {}

  /** Forgets the compiled policies (call when a policy or binding changed). */
  invalidate(): void {
    this.compiled = undefined;
  }

  private load(): { policies: Map<string, CompiledPolicy>; bindings: CompiledBinding[] } {
    if (!this.compiled) {
      const policies = new Map<string, CompiledPolicy>();
      for (const p of this.source.list(POLICY_KEY)) {
        try {
          const c = compilePolicy(p);
          policies.set(c.name, c);
        } catch {
          // stored before it was checked: skipped, as kube-apiserver skips a policy that does not compile
        }
      }
      const bindings = this.source
        .list(BINDING_KEY)
        .map((b) => {
          const spec = isObject(b.spec) ? b.spec : {};
          return {
            name: str(metaOf(b).name),
            policyName: str(spec.policyName),
            actions: strings(spec.validationActions),
            match: matcherOf(spec.matchResources),
          };
        })
        .sort((a, b) => a.name.localeCompare(b.name));
      this.compiled = { policies, bindings };
    }
    return this.compiled;
  }

  /** Whether any binding refers to an existing policy. */
  get active(): boolean {
    const { policies, bindings } = this.load();
    return bindings.some((b) => policies.has(b.policyName));
  }

  /** The rules of the bound policies (for a quick check whether a write can match at all). */
  rules(): { rules: WebhookRule[]; matchPolicy: 'Equivalent' | 'Exact' }[] {
    const { policies, bindings } = this.load();
    return bindings.flatMap((b) => {
      const m = policies.get(b.policyName)?.match;
      return m ? [{ rules: m.rules, matchPolicy: m.matchPolicy }] : [];
    });
  }

  private matches(m: Matcher | undefined, attrs: AdmissionAttributes): boolean {
    if (!m) return true;
    const versions =
      m.matchPolicy === 'Equivalent'
        ? [attrs.version, ...this.source.equivalentVersions(attrs.group, attrs.resource)]
        : [attrs.version];
    if (m.rules.length > 0 && !m.rules.some((r) => versions.some((v) => ruleMatches(r, attrs, v))))
      return false;
    if (m.exclude.some((r) => ruleMatches(r, attrs, attrs.version))) return false;
    if (!selectsEverything(m.namespaceSelector) && attrs.namespaced && attrs.namespace !== '') {
      if (!matchesLabels(m.namespaceSelector, this.source.namespaceLabels(attrs.namespace) ?? {}))
        return false;
    }
    if (!selectsEverything(m.objectSelector)) {
      const hit =
        (attrs.object !== undefined && matchesLabels(m.objectSelector, labelsOf(attrs.object))) ||
        (attrs.oldObject !== undefined && matchesLabels(m.objectSelector, labelsOf(attrs.oldObject)));
      if (!hit) return false;
    }
    return true;
  }

  /**
   * Runs the bound policies that match the request.
   * @throws ApiError with kube-apiserver's text for the first failed validation of a Deny binding.
   */
  validate(attrs: AdmissionAttributes, warnings: string[]): void {
    const { policies, bindings } = this.load();
    for (const binding of bindings) {
      const policy = policies.get(binding.policyName);
      if (!policy || !this.matches(policy.match, attrs) || !this.matches(binding.match, attrs)) continue;
      const failure = withAuthorizer(this.source.authorize, () => this.evaluate(policy, attrs));
      if (failure === undefined) continue;
      const text = `ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}' denied request: ${failure.message}`;
      if (binding.actions.includes('Warn'))
        warnings.push(
          `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}': ${failure.message}`,
        );
      if (binding.actions.includes('Deny')) throw denial(attrs, text, failure.reason ?? 'Invalid');
    }
  }

  /** The first failed validation of a policy, or undefined when all pass (or errors are ignored). */
  private evaluate(
    policy: CompiledPolicy,
    attrs: AdmissionAttributes,
  ): { message: string; reason?: string } | undefined {
    const vars: Record<string, CelInput> = {
      object: attrs.object === undefined ? null : toCel(attrs.object, undefined),
      oldObject: attrs.oldObject === undefined ? null : toCel(attrs.oldObject, undefined),
      params: null,
      request: requestVariable(attrs, attrs.version, operationOptions(attrs)),
      namespaceObject: null,
      authorizer: authorizerVariable(attrs),
    };
    if (attrs.namespaced && attrs.namespace !== '') {
      const ns = this.source.namespaceObject(attrs.namespace);
      if (ns) vars.namespaceObject = toCel(ns, undefined);
    }
    if (policy.matchConditions.length > 0) {
      // kube-apiserver's policy validator: the conditions first; false means the policy does not
      // apply, an error is the policy's failure (under Fail) or nothing (under Ignore)
      const outcome = evaluateMatchConditions(policy.matchConditions, vars);
      if ('error' in outcome) return policy.failurePolicy === 'Fail' ? { message: outcome.error } : undefined;
      if (!outcome.matches) return undefined;
    }
    // kube-apiserver evaluates variables lazily: one that fails is an error only for the expressions
    // that read it ("composited variable ... fails to evaluate"); here they are evaluated up front and
    // a failed one left out, its error given to an expression whose evaluation then misses it
    const variables = new Map<string, CelInput>();
    const failed = new Map<string, string>();
    const errorText = (message: string, expression: string): string => {
      const missing = /^field not found: (.*)$/.exec(message)?.[1];
      const variable = missing === undefined ? undefined : failed.get(missing);
      if (variable !== undefined && new RegExp(`\\bvariables\\s*\\.\\s*${missing}\\b`).test(expression))
        return variable;
      return kubeErrorText(message);
    };
    for (const v of policy.variables) {
      const r = v.program({ ...vars, variables: variables });
      if (isCelError(r))
        failed.set(
          v.name,
          `composited variable "${v.name}" fails to evaluate: ${errorText(r.message, v.expression)}`,
        );
      else variables.set(v.name, r);
    }
    const ctx = { ...vars, variables };
    for (const v of policy.validations) {
      const r = v.program(ctx);
      if (isCelError(r)) {
        if (policy.failurePolicy === 'Ignore') continue;
        return {
          message: `expression '${v.expression}' resulted in error: ${errorText(r.message, v.expression)}`,
        };
      }
      if (r === true) continue;
      if (r !== false) {
        if (policy.failurePolicy === 'Ignore') continue;
        return {
          message: `expression '${v.expression}' resulted in error: expression must evaluate to bool`,
        };
      }
      let message = v.message ?? `failed expression: ${v.expression}`;
      if (v.messageExpression) {
        const m = v.messageExpression(ctx);
        if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) message = m;
      }
      const out: { message: string; reason?: string } = { message };
      if (v.reason !== undefined) out.reason = v.reason;
      return out;
    }
    // audit annotations are not recorded here, but one that fails to evaluate denies under Fail
    for (const a of policy.auditAnnotations) {
      const r = a.program(ctx);
      if (isCelError(r) && policy.failurePolicy === 'Fail')
        return {
          message: `expression '${a.expression}' resulted in error: ${errorText(r.message, a.expression)}`,
        };
    }
    return undefined;
  }
}
