/**
 * Webhook configurations as the admission chain uses them: a stored
 * `ValidatingWebhookConfiguration` or `MutatingWebhookConfiguration` (admissionregistration.k8s.io/v1)
 * read once, with every default kube-apiserver fills in.
 */
import type { JsonObject, StatusCause } from '../types.js';
import { str } from '../internal/common/json.js';
import { EVERYTHING, labelSelectorFromObject } from '../selectors/index.js';
import type { LabelSelector } from '../selectors/index.js';
import type { MatchCondition } from './match-conditions.js';
import { compileMatchConditions, sameMatchConditions, validateMatchConditions } from './match-conditions.js';
import { validateRuleWithOperations } from './rule-validation.js';
import { validateWebhookService, validateWebhookUrl } from './client-config-validation.js';

/** Where a webhook is reached. */
export interface WebhookClientConfig {
  /** `https://host:port/path`; the in-memory server calls only URLs. */
  url?: string;
  /** A Service reference; not reachable from the in-memory server (calling it fails). */
  service?: { namespace: string; name: string; path?: string; port?: number };
  /** PEM CA bundle (decoded from base64) that signs the webhook's serving certificate. */
  caBundle?: string;
}

/** One rule of a webhook: which operations on which resources it is called for. */
export interface WebhookRule {
  operations: readonly string[];
  apiGroups: readonly string[];
  apiVersions: readonly string[];
  resources: readonly string[];
  /** `*` (default), `Cluster` or `Namespaced`. */
  scope: string;
}

/** A webhook with kube-apiserver's defaults filled in. */
export interface ResolvedWebhook {
  /** `validating` or `mutating`. */
  type: 'validating' | 'mutating';
  /** The configuration object's name (webhooks run ordered by it, then by position). */
  configurationName: string;
  /** The webhook's own name (`webhooks[].name`), used in every message. */
  name: string;
  clientConfig: WebhookClientConfig;
  rules: readonly WebhookRule[];
  /** `Fail` (default) or `Ignore`. */
  failurePolicy: 'Fail' | 'Ignore';
  /** `Equivalent` (default) or `Exact`. */
  matchPolicy: 'Equivalent' | 'Exact';
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  /** `None`, `NoneOnDryRun`, `Some` or `Unknown`. */
  sideEffects: string;
  /** Defaults to 10 seconds. */
  timeoutSeconds: number;
  /** Mutating only: `Never` (default) or `IfNeeded`. */
  reinvocationPolicy: 'Never' | 'IfNeeded';
  /** `matchConditions`, compiled: the webhook is called only when all are true. */
  matchConditions: readonly MatchCondition[];
}

/** The resources of the two configuration kinds in the store. */
export const VALIDATING_KEY = 'admissionregistration.k8s.io/validatingwebhookconfigurations';
export const MUTATING_KEY = 'admissionregistration.k8s.io/mutatingwebhookconfigurations';

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function obj(v: unknown): JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

/** Decodes `caBundle` (base64 of PEM) to PEM text; undefined when unset. */
function decodeCaBundle(v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  return Buffer.from(v, 'base64').toString('utf8');
}

/** Reads a `clientConfig` (admission or CRD conversion) with its CA bundle decoded. */
export function readClientConfig(v: unknown): WebhookClientConfig {
  const cc = obj(v);
  const out: WebhookClientConfig = {};
  if (typeof cc.url === 'string') out.url = cc.url;
  if (cc.service !== undefined) {
    const s = obj(cc.service);
    const svc: WebhookClientConfig['service'] = {
      namespace: str(s.namespace),
      name: str(s.name),
    };
    if (typeof s.path === 'string') svc.path = s.path;
    if (typeof s.port === 'number') svc.port = s.port;
    out.service = svc;
  }
  const ca = decodeCaBundle(cc.caBundle);
  if (ca !== undefined) out.caBundle = ca;
  return out;
}

/** A webhook's selector; unset selects everything, as in kube-apiserver. */
function selectorOf(v: unknown): LabelSelector {
  if (v === undefined || v === null) return EVERYTHING;
  return labelSelectorFromObject(v);
}

/** The webhooks of one stored configuration object, defaults filled. */
export function resolveWebhooks(config: JsonObject, type: 'validating' | 'mutating'): ResolvedWebhook[] {
  const configurationName = str(obj(config.metadata).name);
  const hooks = Array.isArray(config.webhooks) ? config.webhooks : [];
  return hooks.map((h: unknown) => {
    const w = obj(h);
    const rules = (Array.isArray(w.rules) ? w.rules : []).map((r: unknown) => {
      const rule = obj(r);
      return {
        operations: strings(rule.operations),
        apiGroups: strings(rule.apiGroups),
        apiVersions: strings(rule.apiVersions),
        resources: strings(rule.resources),
        scope: typeof rule.scope === 'string' ? rule.scope : '*',
      };
    });
    return {
      type,
      configurationName,
      name: str(w.name),
      clientConfig: readClientConfig(w.clientConfig),
      rules,
      failurePolicy: w.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
      matchPolicy: w.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
      namespaceSelector: selectorOf(w.namespaceSelector),
      objectSelector: selectorOf(w.objectSelector),
      sideEffects: typeof w.sideEffects === 'string' ? w.sideEffects : 'Unknown',
      timeoutSeconds: typeof w.timeoutSeconds === 'number' ? w.timeoutSeconds : 10,
      reinvocationPolicy: w.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
      matchConditions: compileMatchConditions(w.matchConditions),
    } satisfies ResolvedWebhook;
  });
}

/**
 * Whether an update keeps every webhook's `matchConditions` (and the number of webhooks): kube-apiserver
 * then does not validate them again (`ignoreValidatingWebhookMatchConditions`).
 */
function keepsMatchConditions(hooks: unknown[], old: JsonObject | undefined): boolean {
  if (!old) return false;
  const before = Array.isArray(old.webhooks) ? old.webhooks : [];
  return (
    before.length === hooks.length &&
    hooks.every((h, i) => sameMatchConditions(obj(h).matchConditions, obj(before[i]).matchConditions))
  );
}

/**
 * Checks a configuration object as kube-apiserver's validation does for the fields the chain
 * relies on; the causes name the field (`webhooks[0].sideEffects`) and the allowed values. `old` is
 * the stored object on an update.
 */
export function validateWebhookConfiguration(
  config: JsonObject,
  type: 'validating' | 'mutating',
  old?: JsonObject,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const hooks = Array.isArray(config.webhooks) ? config.webhooks : [];
  const checkConditions = !keepsMatchConditions(hooks, old);
  const names = new Set<string>();
  const notSupported = (field: string, value: unknown, allowed: string[]): void => {
    causes.push({
      reason: 'FieldValueNotSupported',
      field,
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}`,
    });
  };
  const required = (field: string, detail = ''): void => {
    causes.push({
      reason: 'FieldValueRequired',
      field,
      message: `Required value${detail ? ': ' + detail : ''}`,
    });
  };
  hooks.forEach((h: unknown, i: number) => {
    const w = obj(h);
    const at = `webhooks[${i}]`;
    const name = typeof w.name === 'string' ? w.name : '';
    if (name === '') required(`${at}.name`);
    else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(name)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${at}.name`,
        message: `Invalid value: ${JSON.stringify(name)}: should be a domain with at least three segments separated by dots`,
      });
    } else if (names.has(name)) {
      causes.push({
        reason: 'FieldValueDuplicate',
        field: `${at}.name`,
        message: `Duplicate value: ${JSON.stringify(name)}`,
      });
    }
    names.add(name);
    const cc = obj(w.clientConfig);
    const hasUrl = typeof cc.url === 'string' && cc.url !== '';
    const hasService = cc.service !== undefined;
    if (hasUrl === hasService) required(`${at}.clientConfig`, 'exactly one of url or service is required');
    if (hasUrl && !hasService) causes.push(...validateWebhookUrl(String(cc.url), `${at}.clientConfig.url`));
    else if (hasService && !hasUrl)
      causes.push(...validateWebhookService(cc.service, `${at}.clientConfig.service`));
    if (!Array.isArray(w.admissionReviewVersions) || w.admissionReviewVersions.length === 0)
      required(`${at}.admissionReviewVersions`, 'must specify one of v1, v1beta1');
    else if (!strings(w.admissionReviewVersions).includes('v1'))
      notSupported(`${at}.admissionReviewVersions`, w.admissionReviewVersions, ['v1', 'v1beta1']);
    if (w.sideEffects === undefined) required(`${at}.sideEffects`, 'must specify one of None, NoneOnDryRun');
    else if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun')
      notSupported(`${at}.sideEffects`, w.sideEffects, ['None', 'NoneOnDryRun']);
    if (w.failurePolicy !== undefined && w.failurePolicy !== 'Fail' && w.failurePolicy !== 'Ignore')
      notSupported(`${at}.failurePolicy`, w.failurePolicy, ['Fail', 'Ignore']);
    if (w.matchPolicy !== undefined && w.matchPolicy !== 'Exact' && w.matchPolicy !== 'Equivalent')
      notSupported(`${at}.matchPolicy`, w.matchPolicy, ['Exact', 'Equivalent']);
    if (
      type === 'mutating' &&
      w.reinvocationPolicy !== undefined &&
      w.reinvocationPolicy !== 'Never' &&
      w.reinvocationPolicy !== 'IfNeeded'
    )
      notSupported(`${at}.reinvocationPolicy`, w.reinvocationPolicy, ['Never', 'IfNeeded']);
    if (w.timeoutSeconds !== undefined) {
      const t = w.timeoutSeconds;
      if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > 30) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: `${at}.timeoutSeconds`,
          message: `Invalid value: ${JSON.stringify(t)}: the timeout value must be between 1 and 30 seconds`,
        });
      }
    }
    (Array.isArray(w.rules) ? w.rules : []).forEach((r: unknown, j: number) =>
      causes.push(...validateRuleWithOperations(r, `${at}.rules[${j}]`)),
    );
    (['namespaceSelector', 'objectSelector'] as const).forEach((key) => {
      try {
        selectorOf(w[key]);
      } catch (e) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: `${at}.${key}`,
          message: `Invalid value: ${(e as Error).message}`,
        });
      }
    });
    if (checkConditions) causes.push(...validateMatchConditions(w.matchConditions, `${at}.matchConditions`));
  });
  return causes;
}
