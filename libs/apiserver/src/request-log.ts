/** One served request, as recorded by {@link RequestAccounting}. */
export interface RequestRecord {
  /** Milliseconds since the epoch when the request arrived. */
  time: number;
  user: string;
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection; or the HTTP method for non-resource paths. */
  verb: string;
  /** API group ('' for core). */
  group: string;
  /** Resource plural ('' for non-resource paths). */
  resource: string;
  subresource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  path: string;
  /** HTTP status code of the answer. */
  code: number;
}

/** A filter of request records; every given field must match. */
export type RequestFilter = Partial<
  Pick<RequestRecord, 'user' | 'verb' | 'group' | 'resource' | 'subresource' | 'namespace' | 'name' | 'code'>
>;

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Request accounting: a bounded log that tests read to count what clients did. */
export class RequestAccounting {
  private entries: RequestRecord[] = [];

  constructor(private readonly limit: number) {}

  /** The recorded requests, oldest first. */
  get log(): readonly RequestRecord[] {
    return this.kept();
  }

  /** Number of requests matching `filter` (all when omitted). */
  count(filter: RequestFilter = {}): number {
    return this.kept().filter((r) => matches(r, filter)).length;
  }

  /** Number of write requests (create, update, patch, delete, deletecollection) matching `filter`. */
  writes(filter: RequestFilter = {}): number {
    return this.kept().filter((r) => WRITE_VERBS.has(r.verb) && matches(r, filter)).length;
  }

  /** Counts grouped by `user|verb|resource[/subresource]`. */
  summary(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.kept()) {
      const k = `${r.user}|${r.verb}|${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  }

  /** Forgets every record. */
  reset(): void {
    this.entries = [];
  }

  /** @internal */
  record(r: RequestRecord): void {
    this.entries.push(r);
    // trim in batches (a quarter of the limit over it): dropping the oldest entry on every request
    // would move the whole log each time once it is full
    if (this.entries.length > this.limit + Math.ceil(this.limit / 4)) this.kept();
  }

  /** The entries, first trimmed to the newest `limit` (every read sees exactly those). */
  private kept(): RequestRecord[] {
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    return this.entries;
  }
}

function matches(r: RequestRecord, f: RequestFilter): boolean {
  for (const [k, v] of Object.entries(f))
    if (v !== undefined && r[k as keyof RequestRecord] !== v) return false;
  return true;
}
