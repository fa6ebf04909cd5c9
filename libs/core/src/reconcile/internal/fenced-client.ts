import type { KubernetesClient } from '../../client/kubernetes-client.js';

/** The client methods that write. */
const WRITES = [
  'create',
  'update',
  'updateStatus',
  'apply',
  'mergePatch',
  'jsonPatch',
  'strategicMergePatch',
  'delete',
] as const;

type Write = (typeof WRITES)[number];

/**
 * The client a reconciliation gets (`context.client`, dependents, `resourceOperations()`): reads
 * pass through; every write first asks `allowed()` and, when refused, rejects with `refuse(write)`
 * (a `ReconcileAbandonedError`) without sending anything, and so does a retry the client would
 * send after the fence closed. Raw `request` calls that are not GET are refused the same way. Made once per write ticket, not per reconciliation.
 */
export function fencedClient(
  client: KubernetesClient,
  allowed: () => boolean,
  refuse: (write: string) => Error,
): KubernetesClient {
  const fenced = Object.create(client) as KubernetesClient;
  for (const name of WRITES) {
    const methods = client as unknown as Record<
      Write,
      ((...args: unknown[]) => Promise<unknown>) | undefined
    >;
    const original = methods[name];
    if (typeof original !== 'function') continue;
    (fenced as unknown as Record<Write, unknown>)[name] = (...args: unknown[]): Promise<unknown> => {
      if (!allowed()) return Promise.reject(refuse(describe(name, args)));
      return original.apply(fenced, args);
    };
  }
  const request = (client as unknown as { request?: (...args: unknown[]) => Promise<unknown> }).request;
  if (typeof request === 'function') {
    (fenced as unknown as { request: unknown }).request = (...args: unknown[]): Promise<unknown> => {
      const method = ((args[1] as { method?: string } | undefined)?.method ?? 'GET').toUpperCase();
      if (method !== 'GET' && !allowed()) return Promise.reject(refuse(`${method} ${String(args[0])}`));
      return request.apply(fenced, args);
    };
  }
  // the client's own retries of a write are attempts too: one sent after the fence closed (a
  // 500 retried after leadership moved) would write over the new owner's writes
  const attempt = (client as unknown as { attempt?: (...args: unknown[]) => Promise<unknown> }).attempt;
  if (typeof attempt === 'function') {
    (fenced as unknown as { attempt: unknown }).attempt = (...args: unknown[]): Promise<unknown> => {
      const spec = args[0] as { method?: string; path?: string } | undefined;
      const method = (spec?.method ?? 'GET').toUpperCase();
      if (method !== 'GET' && !allowed()) return Promise.reject(refuse(`${method} ${spec?.path ?? ''}`));
      return attempt.apply(fenced, args);
    };
  }
  return fenced;
}

function describe(name: Write, args: unknown[]): string {
  const type = args[0] as { kind?: string } | undefined;
  const target = args[1] as { key?: string; metadata?: { name?: string; namespace?: string } } | undefined;
  const key =
    target?.key ??
    (target?.metadata?.name
      ? `${target.metadata.namespace ? `${target.metadata.namespace}/` : ''}${target.metadata.name}`
      : '');
  return `${name} ${type?.kind ?? ''} ${key}`.trim();
}
