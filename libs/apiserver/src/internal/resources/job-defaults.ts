import type { JsonObject } from '../../types.js';
import { isObject } from '../common/json.js';

/**
 * batch/v1 Job defaults. {@link defaultJobSpec} is kube's SetDefaults_Job (pkg/apis/batch/v1/defaults.go,
 * with the feature gates of 1.32: JobPodReplacementPolicy and JobBackoffLimitPerIndex are beta and
 * on); {@link generateJobSelector} is the Job registry's generateSelector, run once when a Job is
 * created (pkg/registry/batch/job/strategy.go PrepareForCreate), after the object is decoded and its
 * managedFields computed, so the creator does not own what it generates.
 */

/** kube's `math.MaxInt32`: the backoffLimit of a Job with a backoff limit per index. */
const MAX_INT32 = 2147483647;

function set(obj: JsonObject, key: string, value: unknown): void {
  if (obj[key] === undefined) obj[key] = value;
}

function labelsOf(holder: unknown): JsonObject | undefined {
  if (!isObject(holder) || !isObject(holder.metadata)) return undefined;
  return isObject(holder.metadata.labels) ? holder.metadata.labels : undefined;
}

/** SetDefaults_Job's copy of the template's labels to a Job that has none. */
function defaultJobLabels(job: JsonObject, spec: JsonObject): void {
  const templateLabels = labelsOf(spec.template);
  if (!templateLabels || !isObject(job.metadata)) return;
  const own = job.metadata.labels;
  if (isObject(own) && Object.keys(own).length > 0) return;
  job.metadata.labels = { ...templateLabels };
}

/** SetDefaults_Job on `job` (its spec is `spec`). */
export function defaultJobSpec(job: JsonObject, spec: JsonObject): void {
  // both unset: a single pod; parallelism alone (a work queue) leaves completions unset
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  set(spec, 'parallelism', 1);
  if (spec.backoffLimit === undefined)
    spec.backoffLimit = spec.backoffLimitPerIndex !== undefined ? MAX_INT32 : 6;
  defaultJobLabels(job, spec);
  set(spec, 'completionMode', 'NonIndexed');
  set(spec, 'suspend', false);
  // SetDefaults_PodFailurePolicyOnPodConditionsPattern: a pattern's status is True
  const policy = spec.podFailurePolicy;
  const rules = isObject(policy) && Array.isArray(policy.rules) ? policy.rules : [];
  for (const rule of rules) {
    const patterns = isObject(rule) && Array.isArray(rule.onPodConditions) ? rule.onPodConditions : [];
    for (const p of patterns)
      if (isObject(p) && (p.status === undefined || p.status === '')) p.status = 'True';
  }
  set(spec, 'podReplacementPolicy', spec.podFailurePolicy !== undefined ? 'Failed' : 'TerminatingOrFailed');
  set(spec, 'manualSelector', false);
}

/**
 * The selector and template labels kube generates for a new Job without `manualSelector: true`:
 * the template gets `job-name`, `batch.kubernetes.io/job-name` (the name) and `controller-uid`,
 * `batch.kubernetes.io/controller-uid` (the uid) where it has none of them, and the selector's
 * matchLabels `batch.kubernetes.io/controller-uid`. The stored Job is decoded (and so defaulted)
 * again when kube reads it back, so a Job without labels of its own then gets the template's.
 */
export function generateJobSelector(job: JsonObject): void {
  const spec = job.spec;
  const meta = job.metadata;
  if (!isObject(spec) || !isObject(meta) || spec.manualSelector === true) return;
  const name = typeof meta.name === 'string' ? meta.name : '';
  const uid = typeof meta.uid === 'string' ? meta.uid : '';
  if (!isObject(spec.template)) spec.template = {};
  const template = spec.template as JsonObject;
  if (!isObject(template.metadata)) template.metadata = {};
  const tmeta = template.metadata as JsonObject;
  if (!isObject(tmeta.labels)) tmeta.labels = {};
  const labels = tmeta.labels as JsonObject;
  set(labels, 'job-name', name);
  set(labels, 'batch.kubernetes.io/job-name', name);
  set(labels, 'controller-uid', uid);
  set(labels, 'batch.kubernetes.io/controller-uid', uid);
  if (!isObject(spec.selector)) spec.selector = {};
  const selector = spec.selector as JsonObject;
  if (!isObject(selector.matchLabels)) selector.matchLabels = {};
  set(selector.matchLabels as JsonObject, 'batch.kubernetes.io/controller-uid', uid);
  defaultJobLabels(job, spec);
}
