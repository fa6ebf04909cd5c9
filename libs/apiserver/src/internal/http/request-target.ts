/** A request target split into its path and query, as `new URL(target, base)` would give them. */
export interface RequestTarget {
  pathname: string;
  searchParams: URLSearchParams;
}

// the characters a path may hold that the WHATWG URL parser leaves as they are (RFC 3986 pchar
// without percent-escapes), and a query's (the parser only percent-encodes characters outside this
// set, which URLSearchParams decodes back to the same values)
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const PLAIN_QUERY = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;
const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|$)/;

/** The query of a target without one: shared by every such request, so it refuses changes. */
class EmptyQuery extends URLSearchParams {
  override append(): void {
    throw new TypeError('the query of a request without one is shared and read only; copy it first');
  }
  override delete(): void {
    this.append();
  }
  override set(): void {
    this.append();
  }
  override sort(): void {
    // nothing to sort
  }
}

const EMPTY_QUERY: URLSearchParams = new EmptyQuery();

/**
 * Splits a request target without the URL parser for the targets clients send (a plain absolute
 * path without dot segments, a plain query); anything else (escapes, dot segments, fragments,
 * characters the parser rewrites) goes through `new URL` so every target is read as before.
 */
export function splitTarget(raw: string): RequestTarget {
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const query = q < 0 ? '' : raw.slice(q + 1);
  if (
    PLAIN_PATH.test(path) &&
    path.charCodeAt(1) !== 0x2f /* '//host/...' is a network-path reference to the URL parser */ &&
    !DOT_SEGMENT.test(path) &&
    (query === '' || PLAIN_QUERY.test(query))
  )
    // with its `?`: the constructor drops one leading `?` (a query of its own starting with `?` keeps it);
    // no query (most requests): one shared, read-only empty query instead of a new one per request
    return {
      pathname: path,
      searchParams: query === '' ? EMPTY_QUERY : new URLSearchParams(raw.slice(q)),
    };
  try {
    return new URL(raw, 'http://localhost');
  } catch {
    return new URL('http://localhost/');
  }
}
