import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call, waitFor } from '../../__tests__/http-helper.js';

/**
 * Review (session 11) of which field selectors each kind accepts, against kube-apiserver 1.32 (the
 * version this server reports). Sources read: kubernetes pkg/apis/core/v1/conversion.go (the field
 * label conversion functions of Pod, Node, ReplicationController, Event, Namespace, Secret and
 * Service), k8s.io/apimachinery pkg/runtime/conversion.go (DefaultMetaV1FieldSelectorConversion,
 * used by every kind without such a function), apiextensions-apiserver's crConverter.ConvertFieldLabel
 * (custom resources), pkg/fields/selector.go (parseSelector).
 *
 * The parser in this folder agrees with kube; these divergences lay in the list/watch filter
 * (internal/watch/filter.ts) and the per-kind tables (internal/resources/builtin-kinds.ts), fixed there.
 */
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('review s11: field selectors per kind', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function list(path: string, fieldSelector: string): Promise<{ status: number; message?: string }> {
    const r = await call(server, 'GET', `${path}?fieldSelector=${encodeURIComponent(fieldSelector)}`);
    const body = r.json<{ message?: string }>();
    return { status: r.status, message: body.message };
  }

  it('[FINDING S11-SEL5] services?fieldSelector=spec.type=LoadBalancer (or spec.clusterIP=...) is a 400 here; kube (1.31+) selects by both fields', async () => {
    // AddFieldLabelConversionsForService: metadata.namespace, metadata.name, spec.clusterIP, spec.type
    const r = await call(server, 'POST', '/api/v1/namespaces/default/services', {
      metadata: { name: 'lb' },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    });
    expect(r.status).toBe(201);
    const byType = await call(
      server,
      'GET',
      `/api/v1/namespaces/default/services?fieldSelector=${encodeURIComponent('spec.type=LoadBalancer')}`,
    );
    expect(byType.status).toBe(200);
    expect(
      byType.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name),
    ).toEqual(['lb']);
    expect((await list('/api/v1/namespaces/default/services', 'spec.clusterIP=None')).status).toBe(200);
  });

  it('[FINDING S11-SEL6] pods?fieldSelector=spec.host=... and status.podIPs=... are 400s here; kube maps spec.host to spec.nodeName and accepts status.podIPs', async () => {
    const r = await call(server, 'POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'p-on-n1' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox:1' }] },
    });
    expect(r.status).toBe(201);
    const byHost = await call(
      server,
      'GET',
      `/api/v1/namespaces/default/pods?fieldSelector=${encodeURIComponent('spec.host=n1')}`,
    );
    expect(byHost.status).toBe(200);
    expect(
      byHost.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name),
    ).toEqual(['p-on-n1']);
    // accepted by the conversion function, absent from the pod's field set: selects as ""
    expect((await list('/api/v1/namespaces/default/pods', 'status.podIPs=10.0.0.1')).status).toBe(200);
  });

  it('[FINDING S11-SEL7] metadata.namespace is accepted for Namespaces and cluster-scoped custom resources; kube answers 400 "field label not supported: metadata.namespace"', async () => {
    // Namespace's conversion function knows status.phase and metadata.name only; crConverter
    // accepts metadata.namespace only when the CRD is namespaced.
    const ns = await list('/api/v1/namespaces', 'metadata.namespace=x');
    expect(ns).toEqual({ status: 400, message: 'field label not supported: metadata.namespace' });

    const crd = await call(server, 'POST', CRDS, {
      metadata: { name: 'clusterthings.sel.example.com' },
      spec: {
        group: 'sel.example.com',
        scope: 'Cluster',
        names: {
          kind: 'ClusterThing',
          plural: 'clusterthings',
          singular: 'clusterthing',
          listKind: 'ClusterThingList',
        },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    expect(crd.status).toBe(201);
    await waitFor(
      async () => (await call(server, 'GET', '/apis/sel.example.com/v1/clusterthings')).status === 200,
    );
    const cr = await list('/apis/sel.example.com/v1/clusterthings', 'metadata.namespace=');
    expect(cr).toEqual({ status: 400, message: 'field label not supported: metadata.namespace' });
  });

  it('[FINDING S11-SEL8] an unsupported field on a kind without its own field labels (ConfigMap, Deployment) answers "field label not supported: data.x"; kube says "\\"data.x\\" is not a known field selector: only \\"metadata.name\\", \\"metadata.namespace\\""', async () => {
    // runtime.DefaultMetaV1FieldSelectorConversion, used by Scheme.ConvertFieldLabel for every
    // kind that registered no conversion function
    expect(await list('/api/v1/namespaces/default/configmaps', 'data.x=y')).toEqual({
      status: 400,
      message: '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
    expect(await list('/apis/apps/v1/namespaces/default/deployments', 'spec.replicas=1')).toEqual({
      status: 400,
      message: '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
  });

  it("[FINDING S11-SEL9] a field selector of blanks only (fieldSelector=%20) lists everything here; kube's parser refuses the term: \"invalid selector: ' '; can't understand ' '\"", async () => {
    // splitTerms(" ") gives one term " ", which is not empty and has no operator
    expect(await list('/api/v1/namespaces/default/configmaps', ' ')).toEqual({
      status: 400,
      message: "invalid selector: ' '; can't understand ' '",
    });
  });
  it('[FINDING S11-SEL14] events?fieldSelector=source=my-operator misses an Event that has reportingComponent my-operator and no source.component; kube falls back to reportingController', async () => {
    // pkg/registry/core/event strategy's ToSelectableFields: source is event.Source.Component,
    // or event.ReportingController when that is empty (Events written the events.k8s.io way)
    const r = await call(server, 'POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'ev1' },
      involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'cm1', apiVersion: 'v1' },
      reason: 'Synced',
      message: 'synced',
      type: 'Normal',
      action: 'Sync',
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingComponent: 'my-operator',
      reportingInstance: 'my-operator-0',
    });
    expect(r.status).toBe(201);
    const found = await call(
      server,
      'GET',
      `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('source=my-operator')}`,
    );
    expect(found.status).toBe(200);
    expect(
      found.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name),
    ).toEqual(['ev1']);
  });
  it('[FINDING S11-SEL15] jobs?fieldSelector=status.successful=1 never lists a Job with status.succeeded 1, and status.successful=0 / replicasets status.replicas=0 miss new objects; kube formats status.succeeded and status.replicas as integers, 0 when unset', async () => {
    // JobToSelectableFields: "status.successful" = strconv.Itoa(job.Status.Succeeded) (the JSON
    // field is status.succeeded); ReplicaSet ToSelectableFields: "status.replicas" =
    // strconv.Itoa(rs.Status.Replicas)
    const JOBS = '/apis/batch/v1/namespaces/default/jobs';
    const job = (name: string): Record<string, unknown> => ({
      metadata: { name },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } },
      },
    });
    expect((await call(server, 'POST', JOBS, job('done'))).status).toBe(201);
    expect((await call(server, 'POST', JOBS, job('fresh'))).status).toBe(201);
    const status = await call(
      server,
      'PATCH',
      `${JOBS}/done/status`,
      { status: { succeeded: 1 } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(status.status).toBe(200);
    const names = async (path: string, selector: string): Promise<string[]> => {
      const r = await call(server, 'GET', `${path}?fieldSelector=${encodeURIComponent(selector)}`);
      expect(r.status).toBe(200);
      return r.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name);
    };
    expect(await names(JOBS, 'status.successful=1')).toEqual(['done']);
    expect(await names(JOBS, 'status.successful=0')).toEqual(['fresh']);

    const RS = '/apis/apps/v1/namespaces/default/replicasets';
    const rs = await call(server, 'POST', RS, {
      metadata: { name: 'rs0' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'rs0' } },
        template: {
          metadata: { labels: { app: 'rs0' } },
          spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
        },
      },
    });
    expect(rs.status).toBe(201);
    expect(await names(RS, 'status.replicas=0')).toEqual(['rs0']);
  });
});
