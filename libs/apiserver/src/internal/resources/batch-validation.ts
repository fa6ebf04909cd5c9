import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { invalid, nonNegative, notSupported, objects, required } from './field-causes.js';
import { goValue } from './field-causes.js';
import { knownTimeZone, scheduleProblem } from './cron-schedule.js';

// What kube-apiserver 1.32 refuses in Jobs' counts and CronJobs beyond their schema types
// (pkg/apis/batch/validation validateJobSpec, validateCronJobSpec, ValidateJobTemplateSpec,
// ValidateCronJobCreate), with kube's paths and wording. The pod template and its restart policy
// are checked by jobSpecCauses (workload-validation.ts).

const MAX_PARALLELISM_INDEXED = 100000;

/** validateJobSpec's counts, limits and completion mode at `path`. */
export function jobCountCauses(spec: JsonObject | undefined, path: string): StatusCause[] {
  if (!spec) return [];
  const causes: StatusCause[] = [
    ...nonNegative(spec.parallelism, `${path}.parallelism`),
    ...nonNegative(spec.completions, `${path}.completions`),
    ...nonNegative(spec.activeDeadlineSeconds, `${path}.activeDeadlineSeconds`),
    ...nonNegative(spec.backoffLimit, `${path}.backoffLimit`),
    ...nonNegative(spec.ttlSecondsAfterFinished, `${path}.ttlSecondsAfterFinished`),
    ...nonNegative(spec.backoffLimitPerIndex, `${path}.backoffLimitPerIndex`),
  ];
  const perIndex = spec.backoffLimitPerIndex;
  const maxFailed = spec.maxFailedIndexes;
  if (maxFailed !== undefined && maxFailed !== null) {
    causes.push(...nonNegative(maxFailed, `${path}.maxFailedIndexes`));
    if (perIndex === undefined || perIndex === null)
      causes.push(required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  }
  const mode = spec.completionMode;
  if (mode !== undefined && mode !== null) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed')
      causes.push(notSupported(`${path}.completionMode`, mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (spec.completions === undefined || spec.completions === null)
        causes.push(required(`${path}.completions`, 'when completion mode is Indexed'));
      if (typeof spec.parallelism === 'number' && spec.parallelism > MAX_PARALLELISM_INDEXED)
        causes.push(
          invalid(
            `${path}.parallelism`,
            spec.parallelism,
            `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`,
          ),
        );
      if (
        typeof spec.completions === 'number' &&
        typeof maxFailed === 'number' &&
        maxFailed > spec.completions
      )
        causes.push(
          invalid(`${path}.maxFailedIndexes`, maxFailed, 'must be less than or equal to completions'),
        );
    }
  }
  if (mode === undefined || mode === null || mode === 'NonIndexed') {
    if (typeof perIndex === 'number')
      causes.push(invalid(`${path}.backoffLimitPerIndex`, perIndex, 'requires indexed completion mode'));
    if (typeof maxFailed === 'number')
      causes.push(invalid(`${path}.maxFailedIndexes`, maxFailed, 'requires indexed completion mode'));
  }
  causes.push(...podFailurePolicyCauses(spec, path));
  return causes;
}

const ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
/** Go's %q of a list of strings: `["a" "b"]`. */
const quotedList = (l: string[]): string => `[${l.map((x) => JSON.stringify(x)).join(' ')}]`;
/** field.Invalid with field.OmitValueType: the message has no value. */
const invalidNoValue = (field: string, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${detail}`,
});

/**
 * validatePodFailurePolicy and its rules (validatePodFailurePolicyRule, ...OnExitCodes,
 * ...OnPodConditions), and validateJobSpec's rule that such a Job's pods restart Never.
 */
function podFailurePolicyCauses(spec: JsonObject, path: string): StatusCause[] {
  const policy = spec.podFailurePolicy;
  if (!isObject(policy)) return [];
  const causes: StatusCause[] = [];
  const template = isObject(spec.template) ? spec.template : {};
  const podSpec = isObject(template.spec) ? template.spec : {};
  const names = new Set(
    [...objects(podSpec.containers), ...objects(podSpec.initContainers)].map((c) =>
      typeof c.name === 'string' ? c.name : '',
    ),
  );
  const at = `${path}.podFailurePolicy`;
  const rules = objects(policy.rules);
  if (rules.length > 20)
    causes.push({
      reason: 'FieldValueTooMany',
      field: `${at}.rules`,
      message: `Too many: ${rules.length}: must have at most 20 items`,
    });
  rules.forEach((rule, i) => {
    const ruleAt = `${at}.rules[${i}]`;
    const action = typeof rule.action === 'string' ? rule.action : '';
    if (action === '') causes.push(required(`${ruleAt}.action`, `valid values: ${quotedList(ACTIONS)}`));
    else if (action === 'FailIndex') {
      if (spec.backoffLimitPerIndex === undefined || spec.backoffLimitPerIndex === null)
        causes.push(invalid(`${ruleAt}.action`, action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!ACTIONS.includes(action)) causes.push(notSupported(`${ruleAt}.action`, action, ACTIONS));
    const onExit = isObject(rule.onExitCodes) ? rule.onExitCodes : undefined;
    const onConditions = objects(rule.onPodConditions);
    if (onExit) {
      const exitAt = `${ruleAt}.onExitCodes`;
      const operator = typeof onExit.operator === 'string' ? onExit.operator : '';
      if (operator === '')
        causes.push(required(`${exitAt}.operator`, `valid values: ${quotedList(OPERATORS)}`));
      else if (!OPERATORS.includes(operator))
        causes.push(notSupported(`${exitAt}.operator`, operator, OPERATORS));
      if (typeof onExit.containerName === 'string' && !names.has(onExit.containerName))
        causes.push(
          invalid(
            `${exitAt}.containerName`,
            onExit.containerName,
            'must be one of the container or initContainer names in the pod template',
          ),
        );
      const values = Array.isArray(onExit.values)
        ? onExit.values.filter((v): v is number => typeof v === 'number')
        : [];
      if (values.length === 0)
        causes.push(invalid(`${exitAt}.values`, values, 'at least one value is required'));
      else if (values.length > 255)
        causes.push({
          reason: 'FieldValueTooMany',
          field: `${exitAt}.values`,
          message: `Too many: ${values.length}: must have at most 255 items`,
        });
      const seen = new Set<number>();
      let ordered = true;
      values.forEach((v, j) => {
        if (operator === 'In' && v === 0)
          causes.push(invalid(`${exitAt}.values[${j}]`, v, 'must not be 0 for the In operator'));
        if (seen.has(v))
          causes.push({
            reason: 'FieldValueDuplicate',
            field: `${exitAt}.values[${j}]`,
            message: `Duplicate value: ${goValue(v)}`,
          });
        seen.add(v);
        if (j > 0 && (values[j - 1] ?? 0) > v) ordered = false;
      });
      if (!ordered) causes.push(invalid(`${exitAt}.values`, values, 'must be ordered'));
    }
    onConditions.forEach((pattern, j) => {
      const status = typeof pattern.status === 'string' ? pattern.status : '';
      const statusAt = `${ruleAt}.onPodConditions[${j}].status`;
      if (status === '') causes.push(required(statusAt, `valid values: ${quotedList(CONDITION_STATUSES)}`));
      else if (!CONDITION_STATUSES.includes(status))
        causes.push(notSupported(statusAt, status, CONDITION_STATUSES));
    });
    if (onExit && onConditions.length > 0)
      causes.push(invalidNoValue(ruleAt, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    if (!onExit && onConditions.length === 0)
      causes.push(invalidNoValue(ruleAt, 'specifying one of OnExitCodes and OnPodConditions is required'));
  });
  if (podSpec.restartPolicy === 'OnFailure')
    causes.push(
      invalid(
        `${path}.template.spec.restartPolicy`,
        'OnFailure',
        'only "Never" is supported when podFailurePolicy is specified',
      ),
    );
  return causes;
}

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
/** The characters kube allows in each part of a time zone name (validTimeZoneCharacters). */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** validateTimeZone: a name Go's time.LoadLocation knows, not Local, not empty. */
function timeZoneCauses(tz: unknown, path: string): StatusCause[] {
  if (tz === undefined || tz === null || typeof tz !== 'string') return [];
  if (tz === '') return [invalid(path, tz, 'timeZone must be nil or non-empty string')];
  for (const part of tz.split('/'))
    if (part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part))
      return [invalid(path, tz, `unknown time zone ${tz}`)];
  const causes: StatusCause[] = [];
  if (tz.toLowerCase() === 'local')
    causes.push(
      invalid(
        path,
        tz,
        'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
      ),
    );
  if (tz !== 'UTC' && tz !== 'Local' && !knownTimeZone(tz))
    causes.push(invalid(path, tz, `unknown time zone ${tz}`));
  return causes;
}

/**
 * validateCronJobSpec (and ValidateCronJobCreate's name length): the schedule (required, parsed as
 * cron does, no TZ prefix unless the stored one has it), the time zone, the concurrency policy, the
 * job template's counts, no selector in the template, and non-negative limits. `old` is the stored
 * CronJob on updates. The job template's pod template is checked by jobSpecCauses.
 */
export function cronJobCauses(o: JsonObject, old: JsonObject | undefined): StatusCause[] {
  const spec = isObject(o.spec) ? o.spec : {};
  const oldSpec = old && isObject(old.spec) ? old.spec : undefined;
  const causes: StatusCause[] = [];
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  if (schedule === '') causes.push(required('spec.schedule'));
  else {
    const problem = scheduleProblem(schedule);
    if (problem !== undefined) causes.push(invalid('spec.schedule', schedule, problem));
    const allowTz = typeof oldSpec?.schedule === 'string' && oldSpec.schedule.includes('TZ');
    const hasTimeZone = spec.timeZone !== undefined && spec.timeZone !== null;
    if (allowTz && schedule.includes('TZ') && hasTimeZone)
      causes.push(
        invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'),
      );
    else if (!allowTz && schedule.includes('TZ'))
      causes.push(
        invalid(
          'spec.schedule',
          schedule,
          'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
        ),
      );
  }
  causes.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  if (oldSpec === undefined || oldSpec.timeZone !== spec.timeZone)
    causes.push(...timeZoneCauses(spec.timeZone, 'spec.timeZone'));
  const policy = spec.concurrencyPolicy;
  if (policy === '' || policy === undefined || policy === null)
    causes.push(required('spec.concurrencyPolicy'));
  else if (typeof policy !== 'string' || !CONCURRENCY_POLICIES.includes(policy))
    causes.push(notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  const template = isObject(spec.jobTemplate) ? spec.jobTemplate : {};
  const jobSpec = isObject(template.spec) ? template.spec : undefined;
  causes.push(...jobCountCauses(jobSpec, 'spec.jobTemplate.spec'));
  if (jobSpec && jobSpec.selector !== undefined && jobSpec.selector !== null)
    causes.push(
      invalid('spec.jobTemplate.spec.selector', jobSpec.selector, '`selector` will be auto-generated'),
    );
  if (jobSpec?.manualSelector === true)
    causes.push(notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  causes.push(
    ...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'),
    ...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'),
  );
  const meta = isObject(o.metadata) ? o.metadata : {};
  if (old === undefined && typeof meta.name === 'string' && meta.name.length > 52)
    causes.push(invalid('metadata.name', meta.name, 'must be no more than 52 characters'));
  return causes;
}
