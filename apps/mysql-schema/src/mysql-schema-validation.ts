import type { MySQLSchema } from './mysql-schema.resource.js';

/**
 * The schema's encoding is not a character set the server supports (or not a character set name
 * at all). Not retried: only a change of `spec.encoding` can fix it, and that change reconciles
 * again.
 */
export class UnsupportedEncodingError extends Error {
  /** Stable error code. */
  readonly code = 'UnsupportedEncoding';
  constructor(
    /** The encoding asked for. */
    readonly encoding: string,
    /** Why (which server refused it, or that the name is malformed). */
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `spec.encoding "${encoding}" is not supported: ${detail}; use a character set of SHOW CHARACTER SET, e.g. utf8mb4`,
      options,
    );
    this.name = 'UnsupportedEncodingError';
  }
}

/**
 * The encoding of a resource, checked to be a possible character set name (letters, digits, `_`);
 * whether the server knows it is the server's call.
 * @throws UnsupportedEncodingError for a missing or malformed encoding.
 */
export function encodingOf(resource: MySQLSchema): string {
  const encoding = resource.spec?.encoding;
  if (typeof encoding !== 'string' || encoding.trim() === '')
    throw new UnsupportedEncodingError(String(encoding ?? ''), 'it is empty');
  if (!/^[A-Za-z0-9_]{1,32}$/.test(encoding))
    throw new UnsupportedEncodingError(encoding, 'a character set name has only letters, digits and _');
  return encoding;
}

// MariaDB reports `utf8` as `utf8mb3`; they are one character set
const ALIASES: Readonly<Record<string, string>> = { utf8: 'utf8mb3' };

/** Whether two character set names mean the same set (case and the `utf8` alias aside). */
export function sameEncoding(a: string, b: string): boolean {
  const canonical = (e: string) => ALIASES[e.toLowerCase()] ?? e.toLowerCase();
  return canonical(a) === canonical(b);
}
