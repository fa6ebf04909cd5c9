/**
 * `matchConditions` of admission webhooks and ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1,
 * GA in Kubernetes 1.30): CEL expressions over `object`, `oldObject`, `request` and (for policies)
 * `namespaceObject`, evaluated once the rules and selectors matched. As kube-apiserver's matcher
 * (k8s.io/apiserver admission/plugin/webhook/matchconditions): a condition that is false skips the
 * webhook or policy; otherwise an evaluation error follows the failure policy (Fail refuses the
 * request, Ignore skips); all true calls it. Validation follows k8s.io/kubernetes
 * `validateMatchConditions`: at most 64, names required, qualified and unique, expressions required,
 * compiling in that environment and typed bool.
 * The `authorizer` variable checks the request's user against this server's RBAC (cel-authorizer.ts).
 */
import { isCelError, plan } from '@bufbuild/cel';
import type { CelInput, CelResult } from '@bufbuild/cel';
import type { StatusCause } from '../types.js';
import { deepEqual, isObject } from '../internal/common/json.js';
import { duplicate, invalid, required, tooMany } from '../crd/field-errors.js';
import { parseWithLimits } from '../crd/internal/cel/parse-limits.js';
import { labelKeyErrors } from '../selectors/index.js';
import { ADMISSION_VARIABLES, expressionProblem, kubeErrorText } from './admission-cel.js';
import { admissionCelEnv } from './cel-authorizer.js';

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

/**
 * Why an expression is not a valid condition (kube compiles conditions with the admission variables,
 * never a policy's `variables`, and wants a bool); undefined when it is one.
 */
function conditionProblem(text: string): string | undefined {
  return expressionProblem(text, ADMISSION_VARIABLES, 'bool').problem;
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
      condition.program = plan(admissionCelEnv(), parseWithLimits(condition.expression));
    } catch (e) {
      condition.compileError = (e as Error).message;
    }
    return condition;
  });
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
