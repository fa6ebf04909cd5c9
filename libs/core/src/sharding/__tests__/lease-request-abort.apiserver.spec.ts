import { describe, expect, it } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import type { ResourceType } from '../../api/resource-type.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import type { WriteOptions } from '../../client/types.js';
import { LeaseType } from '../../operator/leader-election/internal/lease-lock.js';
import { apiServerSuite, newNamespace, waitFor, Widget } from '../../operator/__tests__/support.js';

const bed = apiServerSuite();

/**
 * A client whose Lease updates hang while `hang` is on, as against an API server that accepted the
 * connection and never answers; each hung request ends only when its signal aborts (as the real
 * client's does, closing the connection).
 */
function hangingLeaseClient() {
  const real = KubernetesClient.fromKubeConfig(bed.server.kubeConfig());
  let hanging = false;
  const hung: Array<{ signal?: AbortSignal }> = [];
  const client = Object.create(real) as KubernetesClient;
  client.update = ((type: ResourceType, obj: never, options?: WriteOptions) => {
    if (!hanging || type !== LeaseType) return real.update(type, obj, options);
    const signal = options?.signal;
    hung.push({ signal });
    return new Promise((_resolve, reject) => {
      signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
  }) as KubernetesClient['update'];
  return { client, real, hung, hang: () => (hanging = true) };
}

describe('sharding: Lease requests past their deadline', () => {
  it('aborts a membership renewal that gets no answer within renewDeadlineMs, and one in flight at stop()', async () => {
    const ns = await newNamespace(bed.admin);
    const lease = hangingLeaseClient();
    const group = `abort-${Date.now().toString(36)}`;
    const r1 = bed.operator({
      // a client instead of a kubeConfig: the membership shares it, so its renewals hang
      kubeConfig: undefined,
      client: lease.client,
      sharding: {
        name: group,
        identity: 'r1',
        leaseNamespace: 'default',
        leaseDurationMs: 3000,
        renewDeadlineMs: 1000,
        retryPeriodMs: 200,
      },
    });
    r1.register(
      { reconcile: () => UpdateControl.noUpdate() },
      { resourceType: Widget, name: 'aborts', namespaces: [ns] },
    );
    try {
      await r1.start();
      await waitFor(() => r1.sharding!.status().settled, 'r1 settled', 30_000);
      lease.hang();
      await waitFor(() => lease.hung.length > 0, 'a renewal hangs', 10_000);
      await waitFor(() => !r1.sharding!.status().member, 'r1 fenced after its renew deadline', 30_000);
      // the renewal that got no answer was aborted (its connection closed), not left in flight
      await waitFor(() => lease.hung[0].signal?.aborted === true, 'the hung renewal aborted', 10_000);
      await r1.stop();
      expect(lease.hung.length).toBeGreaterThan(0);
      expect(lease.hung.filter((h) => h.signal?.aborted !== true)).toEqual([]);
    } finally {
      await r1.stop();
      lease.real.close();
    }
  }, 60_000);
});
