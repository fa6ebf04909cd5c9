import { afterAll, describe, expect, it } from '@jest/globals';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import { defineResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { apiServerSuite, newNamespace } from '../../operator/__tests__/support.js';
import { Informer } from '../informer.js';
import { captureLogger } from './capture-logger.js';

/**
 * Review (session 11) of the client-side field selector check: an informer caches an own write only
 * when the object is in its selection, judged on the client. kube-apiserver does not read a field
 * selector's field straight from the JSON: each kind has a field set (ToSelectableFields in
 * pkg/registry/<group>/<kind>/strategy.go) with defaults ("false" for a missing `spec.hostNetwork`,
 * "0" for a Job's unset `status.succeeded`), aliases (`spec.host`) and fallbacks (an Event's
 * `source` is its reporting controller when `source.component` is empty). Where the client read the
 * field differently, an own write the server has in the selection was refused, so reads missed the
 * object until the watch caught up (and a dependent could create it again).
 */
const suite = apiServerSuite();
const Node = defineResource<KubernetesResource>({ group: '', version: 'v1', kind: 'Node', scope: 'Cluster' });
const EventsV1 = defineResource<KubernetesResource>({ group: 'events.k8s.io', version: 'v1', kind: 'Event' });

const informers: Informer<KubernetesResource>[] = [];
afterAll(async () => {
  await Promise.all(informers.map((i) => i.stop()));
});

/**
 * Whether `obj` (as the server answered a write) is in the server's list for `fieldSelector`, and
 * whether an informer with that selector takes it as an own write and then reads it.
 */
async function judged(
  type: ResourceType<KubernetesResource>,
  obj: KubernetesResource,
  fieldSelector: string,
): Promise<{ server: boolean; client: boolean; cached: boolean }> {
  const ns = obj.metadata?.namespace;
  const server = await suite.admin.list(type, { namespace: ns, fieldSelector }).then(
    (listed) => listed.items.some((o) => o.metadata?.uid === obj.metadata?.uid),
    () => false,
  );
  const informer = new Informer<KubernetesResource>({
    client: suite.admin,
    type,
    namespace: ns,
    fieldSelector,
    logger: captureLogger(),
  });
  informers.push(informer);
  const client = informer.cacheIfNewer(obj);
  const cached = informer.get(new ResourceID(obj.metadata!.name!, ns)) !== undefined;
  return { server, client, cached };
}

const inSelection = { server: true, client: true, cached: true };

describe('review s11: client-side field selectors', () => {
  it('[FINDING S11-CQ4] an informer with spec.hostNetwork=false, spec.host=<node>, status.successful=<n> (Job), status.replicas=0 (ReplicaSet) or source=<reporting controller> (Event) refused own writes the server lists under that selector', async () => {
    const ns = await newNamespace(suite.admin);
    const seen: Record<string, object> = {};
    const pod = await suite.admin.create(ResourceTypes.Pod, {
      metadata: { name: 'p', namespace: ns },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox:1' }] },
    });
    // kube omits hostNetwork=false (omitempty); its field set says "false"
    expect(pod.spec?.hostNetwork).toBeUndefined();
    seen['spec.hostNetwork=false'] = await judged(ResourceTypes.Pod, pod, 'spec.hostNetwork=false');
    // old v1 clients' name for spec.nodeName
    seen['spec.host=node-1'] = await judged(ResourceTypes.Pod, pod, 'spec.host=node-1');

    const jobBody = {
      metadata: { name: 'j', namespace: ns },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } },
      },
    };
    const job = await suite.admin.create(ResourceTypes.Job, jobBody);
    // no succeeded pod yet: status.successful is "0"
    seen['status.successful=0'] = await judged(ResourceTypes.Job, job, 'status.successful=0');
    const done = await suite.admin.mergePatch(
      ResourceTypes.Job,
      new ResourceID('j', ns),
      { status: { succeeded: 2 } },
      { subresource: 'status' },
    );
    seen['status.successful=2'] = await judged(ResourceTypes.Job, done, 'status.successful=2');

    const rs = await suite.admin.create(ResourceTypes.ReplicaSet, {
      metadata: { name: 'rs', namespace: ns },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'rs' } },
        template: { metadata: { labels: { app: 'rs' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    seen['status.replicas=0'] = await judged(ResourceTypes.ReplicaSet, rs, 'status.replicas=0');

    // an Event written the events.k8s.io way: no source.component, a reporting controller
    const event = await suite.admin.create(ResourceTypes.Event, {
      metadata: { name: 'e', namespace: ns },
      involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
      reason: 'Started',
      type: 'Normal',
      reportingComponent: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Start',
      eventTime: new Date().toISOString(),
    } as never);
    seen['source=example.com/ctl'] = await judged(ResourceTypes.Event, event, 'source=example.com/ctl');
    // the same written through events.k8s.io/v1: kube converts its selector `source` to the core
    // field set's (apis/events/v1 AddFieldLabelConversionsForEvent); @tosdk/apiserver does not
    // take `source` on events.k8s.io yet, so only the client side is judged here
    const eventV1 = await suite.admin.create(EventsV1, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: ns },
      regarding: { kind: 'Pod', name: 'p', namespace: ns },
      reason: 'Started',
      type: 'Normal',
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Start',
      eventTime: new Date().toISOString(),
    } as KubernetesResource);
    seen['reportingController=example.com/ctl'] = await judged(
      EventsV1,
      eventV1,
      'reportingController=example.com/ctl',
    );
    const { client, cached } = await judged(EventsV1, eventV1, 'source=example.com/ctl');
    seen['source=example.com/ctl (events.k8s.io)'] = { server: true, client, cached };

    // a schedulable Node as kube returns it (unschedulable=false omitted); kube's
    // NodeToSelectableFields says "false" (@tosdk/apiserver does not take this selector yet)
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', uid: 'n-uid', resourceVersion: '7' },
      spec: { podCIDR: '10.0.0.0/24' },
    };
    const nodes = new Informer<KubernetesResource>({
      client: suite.admin,
      type: Node,
      fieldSelector: 'spec.unschedulable=false',
      logger: captureLogger(),
    });
    informers.push(nodes);
    seen['spec.unschedulable=false (Node)'] = {
      server: true,
      client: nodes.cacheIfNewer(node),
      cached: nodes.get(new ResourceID('node-1')) !== undefined,
    };

    expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((k) => [k, inSelection])));
  });
});
