import type { AnswerHeaders } from './transport.js';

// The `Warning` header fields an API server sends with an answer (a deprecated API version, an
// unknown field it dropped under fieldValidation=Warn, an admission webhook's warning), in the
// format of RFC 7234 section 5.5: `299 - "text"`, optionally followed by a quoted date, several
// warnings separated by commas, in one field or several.

/** The warn-code kube-apiserver uses; client-go reports only this one (others are HTTP caching's). */
const MISCELLANEOUS_PERSISTENT = '299';
/** Control characters a warning's text may not hold (client-go refuses such a warning). */
const CONTROL = /\p{Cc}/u;

/**
 * The texts of the 299 warnings in a `Warning` header value. A malformed warning ends the parse of
 * its field (as client-go's ParseWarningHeaders does), keeping what was read before it.
 */
export function parseWarnings(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const texts: string[] = [];
  for (const field of Array.isArray(value) ? value : [value]) parseField(field, texts);
  return texts;
}

function parseField(field: string, out: string[]): void {
  let at = 0;
  const n = field.length;
  const skipSpaces = () => {
    while (at < n && (field[at] === ' ' || field[at] === '\t')) at++;
  };
  // bounded: every round consumes at least the code, the agent and a quoted text
  while (at < n) {
    skipSpaces();
    const codeEnd = field.indexOf(' ', at);
    if (codeEnd < 0) return;
    const code = field.slice(at, codeEnd);
    if (!/^[0-9]{3}$/.test(code)) return;
    at = codeEnd + 1;
    const agentEnd = field.indexOf(' ', at);
    if (agentEnd <= at) return;
    at = agentEnd + 1;
    if (field[at] !== '"') return;
    at++;
    let text = '';
    let closed = false;
    while (at < n) {
      const c = field[at++];
      if (c === '\\' && at < n) text += field[at++];
      else if (c === '"') {
        closed = true;
        break;
      } else text += c;
    }
    if (!closed || CONTROL.test(text)) return;
    if (code === MISCELLANEOUS_PERSISTENT && text.length > 0) out.push(text);
    skipSpaces();
    if (field[at] === '"') {
      // the optional warn-date: no quotes inside
      const dateEnd = field.indexOf('"', at + 1);
      if (dateEnd < 0) return;
      at = dateEnd + 1;
      skipSpaces();
    }
    if (at >= n) return;
    if (field[at] !== ',') return;
    at++;
  }
}

/** Distinct warnings a client remembers having reported (then it starts over). */
const MAX_REMEMBERED = 1024;

/**
 * Reports each distinct warning once per client (controller-runtime's deduplicating
 * KubeAPIWarningLogger; an operator repeating a write would otherwise log the same deprecation on
 * every reconcile).
 */
export class WarningReporter {
  private readonly seen = new Set<string>();

  constructor(private readonly report: (text: string, request: { method: string; path: string }) => void) {}

  /** Reports the new warnings of an answer's headers. */
  check(headers: AnswerHeaders, request: { method: string; path: string }): void {
    const value = headers['warning'];
    if (value === undefined) return;
    for (const text of parseWarnings(value)) {
      if (this.seen.has(text)) continue;
      if (this.seen.size >= MAX_REMEMBERED) this.seen.clear();
      this.seen.add(text);
      this.report(text, request);
    }
  }
}
