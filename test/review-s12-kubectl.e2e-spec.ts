import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiServer } from '@tosdk/apiserver';
import { kubectl } from './kubectl-support.js';
import type { KubectlRun as Run } from './kubectl-support.js';

// kubectl is required (.ci/run installs it when missing): a missing binary fails, it never skips.
describe('kubectl workflows against @tosdk/apiserver (review s12, KW)', () => {
  let server: KubeApiServer;
  let dir: string;
  let kc: string;
  const k = (args: string[], opts?: Parameters<typeof kubectl>[2]): Promise<Run> => kubectl(kc, args, opts);

  beforeAll(async () => {
    server = await KubeApiServer.start();
    dir = await mkdtemp(join(tmpdir(), 'tosdk-kubectl-s12-'));
    kc = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kc);
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('[FINDING S12-KW1] kubectl create role, clusterrole, rolebinding, clusterrolebinding and ingress (protobuf bodies) create the objects', async () => {
    const role = await k(['create', 'role', 'r1', '--verb=get,list', '--resource=pods,deployments.apps']);
    expect(role.stderr).toBe('');
    expect(role.stdout).toContain('role.rbac.authorization.k8s.io/r1 created');
    expect(JSON.parse((await k(['get', 'role', 'r1', '-o', 'jsonpath={.rules}'])).stdout)).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
    ]);
    const cr = await k(['create', 'clusterrole', 'cr1', '--verb=get', '--non-resource-url=/logs']);
    expect(cr.stdout).toContain('clusterrole.rbac.authorization.k8s.io/cr1 created');
    expect(JSON.parse((await k(['get', 'clusterrole', 'cr1', '-o', 'jsonpath={.rules}'])).stdout)).toEqual([
      { nonResourceURLs: ['/logs'], verbs: ['get'] },
    ]);
    const rb = await k([
      'create',
      'rolebinding',
      'rb1',
      '--role=r1',
      '--user=bob',
      '--serviceaccount=default:bot',
    ]);
    expect(rb.stdout).toContain('rolebinding.rbac.authorization.k8s.io/rb1 created');
    const rbObj = JSON.parse((await k(['get', 'rolebinding', 'rb1', '-o', 'json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(rbObj.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r1' });
    expect(rbObj.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' },
      { kind: 'ServiceAccount', name: 'bot', namespace: 'default' },
    ]);
    const crb = await k(['create', 'clusterrolebinding', 'crb1', '--clusterrole=cr1', '--group=devs']);
    expect(crb.stdout).toContain('clusterrolebinding.rbac.authorization.k8s.io/crb1 created');
    const ing = await k([
      'create',
      'ingress',
      'ing1',
      '--class=nginx',
      '--rule=foo.com/bar*=svc1:8080,tls=my-cert',
    ]);
    expect(ing.stderr).toBe('');
    expect(ing.stdout).toContain('ingress.networking.k8s.io/ing1 created');
    expect(JSON.parse((await k(['get', 'ingress', 'ing1', '-o', 'jsonpath={.spec}'])).stdout)).toEqual({
      ingressClassName: 'nginx',
      rules: [
        {
          host: 'foo.com',
          http: {
            paths: [
              {
                path: '/bar',
                pathType: 'Prefix',
                backend: { service: { name: 'svc1', port: { number: 8080 } } },
              },
            ],
          },
        },
      ],
      tls: [{ hosts: ['foo.com'], secretName: 'my-cert' }],
    });
    // auth reconcile reads and writes RBAC objects through the typed (protobuf) client too
    await writeFile(
      join(dir, 'reconcile.yaml'),
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: rec, namespace: default}\nrules:\n- {apiGroups: [""], resources: [configmaps], verbs: [get]}\n',
    );
    const rec = await k(['auth', 'reconcile', '-f', join(dir, 'reconcile.yaml')]);
    expect(rec.stdout).toContain('role.rbac.authorization.k8s.io/rec reconciled');
    expect((await k(['get', 'role', 'rec', '-o', 'jsonpath={.rules[0].verbs}'])).stdout).toBe('["get"]');
  });

  it('[FINDING S12-KW2] get events prints LAST SEEN, TYPE, REASON, OBJECT, MESSAGE (wide: SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME); rolebindings print ROLE and their subjects; roles print CREATED AT', async () => {
    const hoursAgo = (h: number): string =>
      new Date(Date.now() - h * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const events = `apiVersion: v1\nkind: Event\nmetadata: {name: seen.1}\ninvolvedObject: {kind: ConfigMap, name: c1, namespace: default, fieldPath: spec.x}\nreason: Synced\nmessage: "all good  "\ntype: Normal\nsource: {component: op, host: node1}\nfirstTimestamp: "${hoursAgo(5)}"\nlastTimestamp: "${hoursAgo(3)}"\ncount: 4\n`;
    expect((await k(['apply', '-f', '-'], { input: events })).code).toBe(0);
    const table = await k(['get', 'events']);
    expect(table.stdout).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
    expect(table.stdout).toMatch(/^3h\s+Normal\s+Synced\s+configmap\/c1\s+all good$/m);
    const wide = await k(['get', 'events', '-o', 'wide']);
    expect(wide.stdout).toMatch(
      /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME$/m,
    );
    expect(wide.stdout).toMatch(
      /^3h\s+Normal\s+Synced\s+configmap\/c1\s+spec\.x\s+op, node1\s+all good\s+5h\s+4\s+seen\.1$/m,
    );
    expect((await k(['create', 'role', 'lister', '--verb=list', '--resource=pods'])).code).toBe(0);
    expect(
      (
        await k([
          'create',
          'rolebinding',
          'listers',
          '--role=lister',
          '--user=bob',
          '--user=al',
          '--group=devs',
          '--serviceaccount=default:bot',
        ])
      ).code,
    ).toBe(0);
    const rb = await k(['get', 'rolebinding', 'listers', '-o', 'wide']);
    expect(rb.stdout).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/m);
    expect(rb.stdout).toMatch(/^listers\s+Role\/lister\s+\S+\s+bob, al\s+devs\s+default\/bot$/m);
    const role = await k(['get', 'role', 'lister']);
    expect(role.stdout).toMatch(/^NAME\s+CREATED AT$/m);
    expect(role.stdout).toMatch(/^lister\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
  });

  it('[FINDING S12-KW3] kubectl create token issues a service account token (TokenRequest) that authenticates as the account until the account is deleted', async () => {
    expect((await k(['create', 'sa', 'robot'])).code).toBe(0);
    const issued = await k(['create', 'token', 'robot', '--audience=vault', '--duration=2h', '-o', 'json']);
    expect(issued.stderr).toBe('');
    const tr = JSON.parse(issued.stdout) as {
      kind: string;
      spec: { audiences: string[]; expirationSeconds: number };
      status: { token: string; expirationTimestamp: string };
    };
    expect(tr.kind).toBe('TokenRequest');
    expect(tr.spec).toMatchObject({ audiences: ['vault'], expirationSeconds: 7200 });
    const claims = JSON.parse(Buffer.from(tr.status.token.split('.')[1], 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({
      aud: ['vault'],
      sub: 'system:serviceaccount:default:robot',
      'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'robot' } },
    });
    expect(Date.parse(tr.status.expirationTimestamp)).toBe((claims.exp as number) * 1000);
    const plain = (await k(['create', 'token', 'robot'])).stdout.trim();
    const who = await k(['--token', plain, 'auth', 'whoami', '-o', 'json']);
    expect(who.stderr).toBe('');
    expect(JSON.parse(who.stdout)).toMatchObject({
      status: {
        userInfo: {
          username: 'system:serviceaccount:default:robot',
          groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        },
      },
    });
    const short = await k(['create', 'token', 'robot', '--duration=5m']);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain(
      'spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes',
    );
    const missing = await k(['create', 'token', 'nobody']);
    expect(missing.stderr).toContain('serviceaccounts "nobody" not found');
    const discovery = JSON.parse((await k(['get', '--raw', '/api/v1'])).stdout) as {
      resources: { name: string; kind: string; verbs: string[] }[];
    };
    expect(discovery.resources.find((r) => r.name === 'serviceaccounts/token')).toMatchObject({
      kind: 'TokenRequest',
      verbs: ['create'],
    });
    expect((await k(['delete', 'sa', 'robot'])).code).toBe(0);
    const after = await k(['--token', plain, 'get', 'cm']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('Unauthorized');
  });

  it('[FINDING S12-KW4] a new namespace gets its default ServiceAccount (re-created when deleted), so kubectl create token default -n <ns> works', async () => {
    expect((await k(['create', 'ns', 'fresh'])).code).toBe(0);
    const waitFor = async (pred: () => Promise<boolean>): Promise<void> => {
      const deadline = Date.now() + 10_000;
      while (!(await pred())) {
        if (Date.now() > deadline) throw new Error('timed out waiting for the default ServiceAccount');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const hasDefault = async (): Promise<boolean> =>
      (await k(['get', 'sa', 'default', '-n', 'fresh', '-o', 'name'])).stdout.trim() ===
      'serviceaccount/default';
    await waitFor(hasDefault);
    const token = await k(['create', 'token', 'default', '-n', 'fresh']);
    expect(token.stderr).toBe('');
    expect(token.stdout.split('.')).toHaveLength(3);
    const uid = (await k(['get', 'sa', 'default', '-n', 'fresh', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    expect((await k(['delete', 'sa', 'default', '-n', 'fresh'])).code).toBe(0);
    await waitFor(async () => {
      const now = await k(['get', 'sa', 'default', '-n', 'fresh', '-o', 'jsonpath={.metadata.uid}']);
      return now.code === 0 && now.stdout !== '' && now.stdout !== uid;
    });
    const system = await k([
      'get',
      'sa',
      '-A',
      '-o',
      'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}',
    ]);
    expect(system.stdout.split(' ')).toEqual(
      expect.arrayContaining(['kube-system/default', 'kube-public/default', 'kube-node-lease/default']),
    );
  });

  it('[FINDING S12-KW5] apply --prune -l with the default allowlist prunes (ReplicationController, PersistentVolume and CronJob are served); create cronjob and create job --from=cronjob work', async () => {
    const two =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept, labels: {set: prune}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: dropped, labels: {set: prune}}\n';
    await writeFile(join(dir, 'two.yaml'), two);
    await writeFile(join(dir, 'one.yaml'), two.split('---\n')[0]);
    expect((await k(['apply', '-f', join(dir, 'two.yaml')])).code).toBe(0);
    const pruned = await k(['apply', '--prune', '-l', 'set=prune', '-f', join(dir, 'one.yaml')]);
    expect(pruned.stderr).not.toContain('error');
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('configmap/dropped pruned');
    expect((await k(['get', 'cm', '-l', 'set=prune', '-o', 'name'])).stdout.trim()).toBe('configmap/kept');

    const cj = await k([
      'create',
      'cronjob',
      'nightly',
      '--image=busybox:1',
      '--schedule=0 3 * * *',
      '--',
      'echo',
      'hi',
    ]);
    expect(cj.stderr).toBe('');
    expect(cj.stdout).toContain('cronjob.batch/nightly created');
    expect(JSON.parse((await k(['get', 'cj', 'nightly', '-o', 'json'])).stdout)).toMatchObject({
      spec: {
        schedule: '0 3 * * *',
        concurrencyPolicy: 'Allow',
        suspend: false,
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: 'OnFailure', dnsPolicy: 'ClusterFirst' } } },
        },
      },
    });
    expect((await k(['get', 'cronjobs'])).stdout).toMatch(
      /^nightly\s+0 3 \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+$/m,
    );
    const manual = await k(['create', 'job', 'nightly-now', '--from=cronjob/nightly']);
    expect(manual.stderr).toBe('');
    expect(manual.stdout).toContain('job.batch/nightly-now created');
    expect(
      (
        await k([
          'get',
          'job',
          'nightly-now',
          '-o',
          'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}',
        ])
      ).stdout,
    ).toBe('CronJob/nightly');

    const rcAndPv =
      'apiVersion: v1\nkind: ReplicationController\nmetadata: {name: legacy}\nspec:\n  template:\n    metadata: {labels: {app: legacy}}\n    spec: {containers: [{name: c, image: "nginx:1"}]}\n---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: disk}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /tmp/disk}\n';
    expect((await k(['apply', '-f', '-'], { input: rcAndPv })).code).toBe(0);
    expect(
      (
        await k([
          'get',
          'rc',
          'legacy',
          '-o',
          'jsonpath={.spec.replicas} {.spec.selector} {.metadata.labels}',
        ])
      ).stdout,
    ).toBe('1 {"app":"legacy"} {"app":"legacy"}');
    expect((await k(['scale', 'rc', 'legacy', '--replicas=2'])).stdout).toContain(
      'replicationcontroller/legacy scaled',
    );
    expect((await k(['get', 'rc', 'legacy'])).stdout).toMatch(/^legacy\s+2\s+0\s+0\s+\S+$/m);
    expect(
      (
        await k([
          'get',
          'pv',
          'disk',
          '-o',
          'jsonpath={.spec.persistentVolumeReclaimPolicy} {.spec.volumeMode} {.status.phase}',
        ])
      ).stdout,
    ).toBe('Retain Filesystem Pending');
    expect((await k(['get', 'pv', 'disk'])).stdout).toMatch(
      /^disk\s+1Gi\s+RWO\s+Retain\s+Pending\s+<unset>\s+\S+$/m,
    );
  });

  // Needs libs/apiserver/src/patch/builtin-patch-schema.ts (another owner): core/v1 ReplicationController
  // has no strategic merge rules there yet, so its containers list is atomic and kubectl's
  // $setElementOrder directive is refused. The fix: give ReplicationController the pod template rules
  // ReplicaSet has (spec.template.spec containers/initContainers/volumes/env/ports merged by key), and
  // PersistentVolume its own (spec.accessModes atomic, spec.mountOptions atomic).
  it('[FINDING S12-KW6] kubectl set image rc/<name> (strategic merge patch of a ReplicationController) changes the image and keeps the ports', async () => {
    const rc =
      'apiVersion: v1\nkind: ReplicationController\nmetadata: {name: imaged}\nspec:\n  template:\n    metadata: {labels: {app: imaged}}\n    spec: {containers: [{name: c, image: "nginx:1", ports: [{containerPort: 80}]}]}\n';
    expect((await k(['apply', '-f', '-'], { input: rc })).code).toBe(0);
    const set = await k(['set', 'image', 'rc/imaged', 'c=nginx:2']);
    expect(set.stderr).toBe('');
    expect(
      (
        await k([
          'get',
          'rc',
          'imaged',
          '-o',
          'jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort}',
        ])
      ).stdout,
    ).toBe('nginx:2 80');
  });

  it('[FINDING S12-KW7] kubectl logs of a pod prints nothing (no node, as kube); exec and attach say the pod has no host instead of "pods/exec not found"', async () => {
    expect((await k(['run', 'idle', '--image=nginx:1'])).code).toBe(0);
    const logs = await k(['logs', 'idle']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toBe('');
    const wrong = await k(['logs', 'idle', '-c', 'nope']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('container nope is not valid for pod idle');
    const exec = await k(['exec', 'idle', '--', 'ls']);
    expect(exec.code).not.toBe(0);
    expect(exec.stderr).toContain('Error from server (BadRequest): pod idle does not have a host assigned');
    const attach = await k(['attach', 'idle']);
    expect(attach.stderr).toContain('pod idle does not have a host assigned');
    expect((await k(['exec', 'ghost', '--', 'ls'])).stderr).toContain('pods "ghost" not found');
  });

  it('[FINDING S12-KW8] service account issuer discovery: /.well-known/openid-configuration and /openid/v1/jwks verify a token from kubectl create token', async () => {
    const config = JSON.parse(
      (await k(['get', '--raw', '/.well-known/openid-configuration'])).stdout,
    ) as Record<string, unknown>;
    expect(config).toEqual({
      issuer: 'https://kubernetes.default.svc.cluster.local',
      jwks_uri: `${server.url}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const token = (await k(['create', 'token', 'default'])).stdout.trim();
    const jwks = JSON.parse((await k(['get', '--raw', '/openid/v1/jwks'])).stdout) as {
      keys: { kid: string; kty: string; alg: string; use: string; n: string; e: string }[];
    };
    expect(jwks.keys).toHaveLength(1);
    const [head, payload, signature] = token.split('.');
    const header = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg: string; kid: string };
    expect(header).toEqual({ alg: 'RS256', kid: jwks.keys[0].kid });
    const key = createPublicKey({ key: { kty: 'RSA', n: jwks.keys[0].n, e: jwks.keys[0].e }, format: 'jwk' });
    expect(
      verify('sha256', Buffer.from(`${head}.${payload}`), key, Buffer.from(signature, 'base64url')),
    ).toBe(true);
    // RBAC: service accounts may read the discovery documents (system:service-account-issuer-discovery)
    const bindings = await k([
      'get',
      'clusterrolebinding',
      'system:service-account-issuer-discovery',
      '-o',
      'jsonpath={.subjects[0].name}',
    ]);
    expect(bindings.stdout).toBe('system:serviceaccounts');
  });

  it('[FINDING S12-KW9] TokenReview authenticates a token for its audiences; a token made for another audience is refused by the API; system:auth-delegator exists', async () => {
    const review = async (token: string, audiences?: string[]): Promise<Record<string, unknown>> => {
      const spec = audiences
        ? `{token: "${token}", audiences: [${audiences.join(', ')}]}`
        : `{token: "${token}"}`;
      const r = await k(['create', '-f', '-', '-o', 'json'], {
        input: `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec: ${spec}\n`,
      });
      expect(r.stderr).toBe('');
      return (JSON.parse(r.stdout) as { status: Record<string, unknown> }).status;
    };
    const api = (await k(['create', 'token', 'default'])).stdout.trim();
    expect(await review(api)).toMatchObject({
      authenticated: true,
      audiences: ['https://kubernetes.default.svc.cluster.local'],
      user: {
        username: 'system:serviceaccount:default:default',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      },
    });
    const vault = (await k(['create', 'token', 'default', '--audience=vault'])).stdout.trim();
    expect(await review(vault, ['vault'])).toMatchObject({ authenticated: true, audiences: ['vault'] });
    expect(await review(vault)).toEqual({ user: {} });
    expect(await review('not-a-token')).toEqual({ user: {} });
    // the API itself accepts only tokens for its own audience
    const refused = await k(['--token', vault, 'get', 'cm']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Unauthorized');
    // the admin's static token is audience-agnostic: it counts for the API audience only
    expect(await review(server.tokenOf())).toMatchObject({
      authenticated: true,
      user: { username: 'admin' },
    });
    expect(await review(server.tokenOf(), ['vault'])).toEqual({ user: {} });
    const empty = await k(['create', '--validate=false', '-f', '-'], {
      input: 'apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec: {audiences: [vault]}\n',
    });
    expect(empty.stderr).toContain('token is required for TokenReview in authentication');
    expect(
      (await k(['get', 'clusterrole', 'system:auth-delegator', '-o', 'jsonpath={.rules[*].resources[0]}']))
        .stdout,
    ).toBe('tokenreviews subjectaccessreviews');
  });

  it('[FINDING S12-KW10] with simulated workloads, kubectl rollout undo rolls a Deployment back to its previous ReplicaSet, and rollout history shows the revisions as kube does', async () => {
    const sim = await KubeApiServer.start({ simulateWorkloads: true });
    const simKc = join(dir, 'sim-kubeconfig');
    try {
      await sim.writeKubeconfig(simKc);
      const s = (args: string[]): Promise<Run> => kubectl(simKc, args);
      expect((await s(['create', 'deploy', 'web', '--image=nginx:1', '--replicas=2'])).code).toBe(0);
      expect((await s(['rollout', 'status', 'deploy/web', '--timeout=20s'])).code).toBe(0);
      expect((await s(['set', 'image', 'deploy/web', 'nginx=nginx:2'])).code).toBe(0);
      expect((await s(['rollout', 'status', 'deploy/web', '--timeout=20s'])).code).toBe(0);
      expect((await s(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.annotations}'])).stdout).toBe(
        '{"deployment.kubernetes.io/revision":"2"}',
      );
      const undo = await s(['rollout', 'undo', 'deploy/web']);
      expect(undo.stderr).toBe('');
      expect(undo.stdout).toContain('deployment.apps/web rolled back');
      expect((await s(['rollout', 'status', 'deploy/web', '--timeout=20s'])).code).toBe(0);
      expect(
        (await s(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']))
          .stdout,
      ).toBe('nginx:1');
      // the first ReplicaSet is reused (no third one), now revision 3 with 1 in its history
      const sets = JSON.parse((await s(['get', 'rs', '-o', 'json'])).stdout) as {
        items: { spec: { replicas: number }; metadata: { annotations: Record<string, string> } }[];
      };
      expect(sets.items).toHaveLength(2);
      const active = sets.items.find((rs) => rs.spec.replicas === 2);
      expect(active?.metadata.annotations).toMatchObject({
        'deployment.kubernetes.io/revision': '3',
        'deployment.kubernetes.io/revision-history': '1',
      });
      const history = await s(['rollout', 'history', 'deploy/web']);
      expect(history.stdout).toMatch(/^REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>$/m);
    } finally {
      await sim.stop();
    }
  });

  it("[FINDING S12-KW11] get -o wide of jobs, daemonsets, ingresses, endpoints and persistentvolumeclaims prints kube-apiserver's columns", async () => {
    const objects =
      'apiVersion: batch/v1\nkind: Job\nmetadata: {name: batch1}\nspec:\n  parallelism: 2\n  template:\n    spec: {restartPolicy: Never, containers: [{name: work, image: "busybox:1"}]}\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec: {nodeSelector: {disk: ssd}, containers: [{name: a, image: "agent:1"}]}\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: front}\nspec:\n  tls: [{hosts: [a.example.com]}]\n  rules:\n  - host: a.example.com\n  - host: b.example.com\n---\napiVersion: v1\nkind: Endpoints\nmetadata: {name: backends}\nsubsets: [{addresses: [{ip: 10.0.0.1}, {ip: 10.0.0.2}], ports: [{name: a, port: 80}, {name: b, port: 81}]}]\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}\n';
    const applied = await k(['apply', '-f', '-'], { input: objects });
    expect(applied.stderr).toBe('');
    const job = await k(['get', 'job', 'batch1', '-o', 'wide']);
    expect(job.stdout).toMatch(
      /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m,
    );
    expect(job.stdout).toMatch(
      /^batch1\s+Running\s+0\/1 of 2\s+\S+\s+work\s+busybox:1\s+batch\.kubernetes\.io\/controller-uid=/m,
    );
    const ds = await k(['get', 'ds', 'agent', '-o', 'wide']);
    expect(ds.stdout).toMatch(
      /^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m,
    );
    expect(ds.stdout).toMatch(/^agent\s+0\s+0\s+0\s+0\s+0\s+disk=ssd\s+\S+\s+a\s+agent:1\s+app=agent$/m);
    const ing = await k(['get', 'ingress', 'front']);
    expect(ing.stdout).toMatch(/^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE$/m);
    expect(ing.stdout).toMatch(/^front\s+<none>\s+a\.example\.com,b\.example\.com\s+80, 443\s+\S+$/m);
    const ep = await k(['get', 'endpoints', 'backends']);
    expect(ep.stdout).toMatch(/^NAME\s+ENDPOINTS\s+AGE$/m);
    expect(ep.stdout).toMatch(
      /^backends\s+10\.0\.0\.1:80,10\.0\.0\.2:80,10\.0\.0\.1:81 \+ 1 more\.\.\.\s+\S+$/m,
    );
    const pvc = await k(['get', 'pvc', 'data', '-o', 'wide']);
    expect(pvc.stdout).toMatch(
      /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\s+VOLUMEMODE$/m,
    );
    expect(pvc.stdout).toMatch(/^data\s+Pending\s+fast\s+<unset>\s+\S+\s+Filesystem$/m);
  });

  // Needs libs/apiserver/src/crd/builtin-columns.ts (another owner), whose Pod, ReplicaSet and
  // StatefulSet printer columns take precedence over the built-in ones: kube-apiserver's printers
  // (pkg/printers/internalversion/printers.go) add NOMINATED NODE and READINESS GATES to pods, and
  // CONTAINERS, IMAGES (and SELECTOR for ReplicaSets) to ReplicaSets and StatefulSets, for -o wide.
  it('[FINDING S12-KW12] get -o wide of pods, replicasets and statefulsets shows the wide columns kube prints', async () => {
    const objects =
      'apiVersion: v1\nkind: Pod\nmetadata: {name: wide-pod}\nspec: {containers: [{name: c, image: "nginx:1"}]}\n---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: wide-sts}\nspec:\n  serviceName: wide-sts\n  selector: {matchLabels: {app: wide-sts}}\n  template:\n    metadata: {labels: {app: wide-sts}}\n    spec: {containers: [{name: c, image: "nginx:1"}]}\n';
    expect((await k(['apply', '-f', '-'], { input: objects })).code).toBe(0);
    expect((await k(['get', 'pod', 'wide-pod', '-o', 'wide'])).stdout).toMatch(
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/m,
    );
    expect((await k(['get', 'sts', 'wide-sts', '-o', 'wide'])).stdout).toMatch(
      /^NAME\s+READY\s+AGE\s+CONTAINERS\s+IMAGES$/m,
    );
  });

  it('[FINDING S12-KW13] create token --bound-object-kind=Pod checks the pod and its service account, and the token ends with the pod', async () => {
    expect((await k(['create', 'sa', 'runner'])).code).toBe(0);
    const pods =
      'apiVersion: v1\nkind: Pod\nmetadata: {name: runs-as-runner}\nspec: {serviceAccountName: runner, containers: [{name: c, image: "nginx:1"}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: runs-as-default}\nspec: {containers: [{name: c, image: "nginx:1"}]}\n';
    expect((await k(['apply', '-f', '-'], { input: pods })).code).toBe(0);
    const missing = await k([
      'create',
      'token',
      'runner',
      '--bound-object-kind=Pod',
      '--bound-object-name=ghost',
    ]);
    expect(missing.stderr).toContain('pods "ghost" not found');
    const other = await k([
      'create',
      'token',
      'runner',
      '--bound-object-kind=Pod',
      '--bound-object-name=runs-as-default',
    ]);
    expect(other.stderr).toContain(
      'cannot bind token for serviceaccount "runner" to pod running with different serviceaccount name.',
    );
    const wrongUid = await k([
      'create',
      'token',
      'runner',
      '--bound-object-kind=Pod',
      '--bound-object-name=runs-as-runner',
      '--bound-object-uid=not-the-uid',
    ]);
    expect(wrongUid.stderr).toContain(
      'the UID in the bound object reference (not-the-uid) does not match the UID in record',
    );
    const token = (
      await k(['create', 'token', 'runner', '--bound-object-kind=Pod', '--bound-object-name=runs-as-runner'])
    ).stdout.trim();
    const podUid = (await k(['get', 'pod', 'runs-as-runner', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims['kubernetes.io']).toMatchObject({ pod: { name: 'runs-as-runner', uid: podUid } });
    const who = JSON.parse((await k(['--token', token, 'auth', 'whoami', '-o', 'json'])).stdout) as {
      status: { userInfo: { extra: Record<string, string[]> } };
    };
    expect(who.status.userInfo.extra).toMatchObject({
      'authentication.kubernetes.io/pod-name': ['runs-as-runner'],
      'authentication.kubernetes.io/pod-uid': [podUid],
    });
    expect((await k(['delete', 'pod', 'runs-as-runner'])).code).toBe(0);
    const after = await k(['--token', token, 'get', 'cm']);
    expect(after.stderr).toContain('Unauthorized');
  });
});
