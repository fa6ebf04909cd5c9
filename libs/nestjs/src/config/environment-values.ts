import { EnvironmentConfigurationError } from '../errors.js';

/** Reads typed values out of environment variables, failing with the variable's name. */
export class EnvironmentValues {
  constructor(private readonly env: Record<string, string | undefined>) {}

  /** The raw value, undefined when unset or empty. */
  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  /** An integer >= `min`. */
  integer(name: string, min: number): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(n) || n < min) {
      throw new EnvironmentConfigurationError(name, `expected an integer >= ${min}, got "${v}"`);
    }
    return n;
  }

  /** A positive number. */
  positiveNumber(name: string): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) {
      throw new EnvironmentConfigurationError(name, `expected a positive number, got "${v}"`);
    }
    return n;
  }

  /** `true`/`false` (also `1`/`0`, `yes`/`no`, any case). */
  boolean(name: string): boolean | undefined {
    const v = this.raw(name)?.toLowerCase();
    if (v === undefined) return undefined;
    if (['true', '1', 'yes'].includes(v)) return true;
    if (['false', '0', 'no'].includes(v)) return false;
    throw new EnvironmentConfigurationError(name, `expected true or false, got "${this.raw(name)}"`);
  }

  /** A comma-separated list (blank entries dropped). */
  list(name: string): string[] | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    return v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  }

  /**
   * A duration in ms: a plain number of ms, or a number with a unit `ms`, `s`, `m`, `h`
   * (`500ms`, `30s`, `10m`, `2h`), at most {@link MAX_DURATION_MS}. `allowOff` also accepts
   * `0`/`-1`/`off` (as -1).
   */
  duration(name: string, allowOff = false): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (allowOff && ['off', '-1', '0'].includes(v.toLowerCase())) return -1;
    const ms = parseDuration(v);
    if (ms === undefined || ms <= 0) {
      throw new EnvironmentConfigurationError(
        name,
        `expected a positive duration such as 500ms, 30s, 10m, 2h or a number of ms${allowOff ? ', or off' : ''}, got "${v}"`,
      );
    }
    if (ms > MAX_DURATION_MS) throw new EnvironmentConfigurationError(name, tooLongMessage(v, allowOff));
    return ms;
  }

  /** Names of set variables starting with `prefix`. */
  namesStartingWith(prefix: string): string[] {
    return Object.keys(this.env).filter((k) => k.startsWith(prefix) && this.raw(k) !== undefined);
  }
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The longest duration a variable may give: 2^31-1 ms (about 24.8 days), the longest delay of a Node
 * timer. Node runs a longer `setTimeout` after 1 ms instead (a `TimeoutOverflowWarning`), so e.g. a
 * max reconciliation interval of `720h` would reconcile an unchanged object about every millisecond.
 */
export const MAX_DURATION_MS = 2_147_483_647;

/** The message for a duration above {@link MAX_DURATION_MS}. */
export function tooLongMessage(value: string, allowOff = false): string {
  return `"${value}" is longer than Node's timers can wait: at most ${MAX_DURATION_MS} ms (596h, about 24.8 days)${allowOff ? ', or off' : ''}`;
}

/** Parses `500ms`, `30s`, `10m`, `2h` or a plain number of ms; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']);
}
