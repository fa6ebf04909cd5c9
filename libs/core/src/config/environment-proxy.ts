import { isIP } from 'node:net';
import { BlockList } from 'node:net';

/**
 * The proxy the environment names for requests to `server`, read as Go's `http.ProxyFromEnvironment`
 * (golang.org/x/net/http/httpproxy) reads it, which client-go's transport uses when a cluster has no
 * `proxy-url`: `HTTPS_PROXY` (or `https_proxy`) for an https: server, `HTTP_PROXY` (or
 * `http_proxy`) for an http: one, none for `localhost` and loopback addresses, none for a host
 * `NO_PROXY` (or `no_proxy`) lists. Undefined when no proxy applies.
 *
 * `NO_PROXY` is a comma-separated list of `*` (every host), IP addresses, CIDR ranges, and domain
 * names (matching the name and its subdomains; with a leading `.` or `*.`, only subdomains), each
 * optionally with a `:port`. A proxy variable that is not a URL is ignored, as Go ignores it.
 */
export function proxyFromEnvironment(
  server: string,
  env: Record<string, string | undefined>,
): string | undefined {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return undefined;
  }
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') return undefined;
  const [upper, lower] = secure ? ['HTTPS_PROXY', 'https_proxy'] : ['HTTP_PROXY', 'http_proxy'];
  const name = env[upper] ? upper : lower;
  const proxy = env[name];
  if (!proxy) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (secure ? '443' : '80');
  if (host === 'localhost' || isLoopback(host)) return undefined;
  if (excluded(host, port, env['NO_PROXY'] || env['no_proxy'] || '')) return undefined;
  return proxyUrlOf(proxy);
}

/**
 * As Go's httpproxy: a value without a scheme Go takes (http, https, socks5) is read as
 * `http://<value>`; one that is no URL either way is no proxy.
 */
function proxyUrlOf(value: string): string | undefined {
  for (const candidate of [value, `http://${value}`]) {
    try {
      const protocol = new URL(candidate).protocol;
      if (protocol === 'http:' || protocol === 'https:' || protocol === 'socks5:') return candidate;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

function isLoopback(host: string): boolean {
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) {
    const list = new BlockList();
    list.addAddress('::1', 'ipv6');
    list.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');
    return list.check(host, 'ipv6');
  }
  return false;
}

/** Whether `NO_PROXY` lists the host (see {@link proxyFromEnvironment}). */
function excluded(host: string, port: string, noProxy: string): boolean {
  const family = isIP(host);
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const slash = entry.indexOf('/');
    if (slash > 0) {
      const base = entry.slice(0, slash);
      const bits = Number(entry.slice(slash + 1));
      const baseFamily = isIP(base);
      if (baseFamily && family === baseFamily && Number.isInteger(bits)) {
        const list = new BlockList();
        const type = family === 4 ? 'ipv4' : 'ipv6';
        try {
          list.addSubnet(base, bits, type);
          if (list.check(host, type)) return true;
        } catch {
          // not a CIDR range Go would read either
        }
      }
      continue;
    }
    const [hostPart, entryPort] = splitHostPort(entry);
    let entryHost = hostPart;
    if (!entryHost) continue;
    if (entryPort && entryPort !== port) continue;
    if (isIP(entryHost)) {
      if (family && sameAddress(entryHost, host)) return true;
      continue;
    }
    if (entryHost.startsWith('*.')) entryHost = entryHost.slice(1);
    if (entryHost.startsWith('.')) {
      if (host.endsWith(entryHost)) return true;
    } else if (host === entryHost || host.endsWith(`.${entryHost}`)) {
      return true;
    }
  }
  return false;
}

/** `host:port`, `[v6]:port`, or a host alone (a bare IPv6 address has colons but no port). */
function splitHostPort(entry: string): [string, string] {
  if (entry.startsWith('[')) {
    const end = entry.indexOf(']');
    if (end < 0) return [entry, ''];
    const rest = entry.slice(end + 1);
    return [entry.slice(1, end), rest.startsWith(':') ? rest.slice(1) : ''];
  }
  const colon = entry.lastIndexOf(':');
  if (colon < 0 || entry.indexOf(':') !== colon) return [entry, ''];
  return [entry.slice(0, colon), entry.slice(colon + 1)];
}

function sameAddress(a: string, b: string): boolean {
  const type = isIP(a) === 4 ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  list.addAddress(a, type);
  return list.check(b, isIP(b) === 4 ? 'ipv4' : 'ipv6');
}
