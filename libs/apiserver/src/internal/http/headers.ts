import type { IncomingMessage } from 'node:http';

/**
 * A request header Node keeps the first of when it repeats (`authorization`, `content-type`,
 * `content-length`, `user-agent`, ...), exactly as `req.headers[name]` gives it, read from
 * `req.rawHeaders` so that Node need not build the whole headers object for a request that only
 * needs these (it builds it on first access). `name` is lowercase. A request without raw headers
 * (a replayed one) is read through `req.headers`.
 */
export function firstHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders as string[] | undefined;
  if (!Array.isArray(raw)) return req.headers[name] as string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i];
    if (key.length === name.length && (key === name || key.toLowerCase() === name)) return raw[i + 1];
  }
  return undefined;
}
