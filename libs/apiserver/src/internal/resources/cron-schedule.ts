// The schedule parser kube-apiserver validates a CronJob's schedule with (github.com/robfig/cron/v3
// ParseStandard: five fields minute, hour, day of month, month, day of week, or a descriptor such
// as @daily or @every 1h), giving the same error text, or undefined for a schedule it accepts.

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = new Set([
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
]);

class ScheduleError extends Error {}

/** strconv.Atoi's acceptance and its error, as cron's parser reports it. */
function parseUint(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) {
    throw new ScheduleError(
      `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`,
    );
  }
  const n = Number(expr);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63 - 1) {
    throw new ScheduleError(
      `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`,
    );
  }
  if (n < 0) throw new ScheduleError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, r: Bounds): number {
  const name = expr.toLowerCase();
  // own names only: `constructor` or `__proto__` is no month or weekday
  const named = r.names !== undefined && Object.hasOwn(r.names, name) ? r.names[name] : undefined;
  return named ?? parseUint(expr);
}

/** getRange: `*` or `?`, a number or name, a range `a-b`, each with an optional `/step`. */
function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0] ?? '', r);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] ?? '', r);
    else throw new ScheduleError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseUint(rangeAndStep[1] ?? '');
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) throw new ScheduleError(`too many slashes: ${expr}`);
  if (start < r.min)
    throw new ScheduleError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new ScheduleError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end)
    throw new ScheduleError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new ScheduleError(`step of range should be a positive number: ${expr}`);
}

const DURATION_UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

/** Go's time.ParseDuration's acceptance and its error text. */
function durationProblem(s: string): string | undefined {
  const quoted = `"${s}"`;
  let rest = s.replace(/^[-+]/, '');
  if (rest === '0') return undefined;
  if (rest === '') return `time: invalid duration ${quoted}`;
  while (rest !== '') {
    const num = /^([0-9]*)(\.[0-9]*)?/.exec(rest);
    const digits = num ? num[0] : '';
    if (digits === '' || digits === '.') return `time: invalid duration ${quoted}`;
    rest = rest.slice(digits.length);
    const unit = /^[^0-9.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') return `time: missing unit in duration ${quoted}`;
    if (!DURATION_UNITS.has(unit)) return `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`;
    rest = rest.slice(unit.length);
  }
  return undefined;
}

/** Whether the runtime knows an IANA time zone name (Go's time.LoadLocation, with its tz database). */
export function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** cron.ParseStandard's error for `schedule`, or undefined when it parses. */
export function scheduleProblem(schedule: string): string | undefined {
  try {
    parseStandard(schedule);
    return undefined;
  } catch (e) {
    if (e instanceof ScheduleError) return e.message;
    throw e;
  }
}

function parseStandard(input: string): void {
  let spec = input;
  if (spec.length === 0) throw new ScheduleError('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
    if (zone !== 'Local' && zone !== 'UTC' && zone !== '' && !knownTimeZone(zone))
      throw new ScheduleError(`provided bad location ${zone}: unknown time zone ${zone}`);
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.has(spec)) return;
    if (spec.startsWith('@every ')) {
      const problem = durationProblem(spec.slice('@every '.length));
      if (problem !== undefined) throw new ScheduleError(`failed to parse duration ${spec}: ${problem}`);
      return;
    }
    throw new ScheduleError(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5)
    throw new ScheduleError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  fields.forEach((field, i) => {
    for (const expr of field.split(',').filter((e) => e !== '')) checkRange(expr, FIELDS[i]);
  });
}
