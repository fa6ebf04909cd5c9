import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpsRequest } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiServer } from '@tosdk/apiserver';
import { kubectl } from './kubectl-support.js';
import type { KubectlRun as Run } from './kubectl-support.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wd], listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        description: A widget.
        properties:
          spec:
            type: object
            description: The widget's desired state.
            properties:
              size: {type: integer, default: 3, description: How big the widget is.}
              color: {type: string}
          status:
            type: object
            properties:
              ready: {type: boolean}
`;

const APP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  labels: {app: web}
data:
  mode: blue
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: "nginx:1", ports: [{containerPort: 80}]}]
`;

// kubectl is required (.ci/run installs it when missing): a missing binary fails, it never skips.
const describeIfKubectl = describe;

describeIfKubectl('kubectl against @tosdk/apiserver', () => {
  let server: KubeApiServer;
  let dir: string;
  let kc: string;
  const k = (args: string[], opts?: Parameters<typeof kubectl>[2]): Promise<Run> => kubectl(kc, args, opts);

  beforeAll(async () => {
    server = await KubeApiServer.start();
    dir = await mkdtemp(join(tmpdir(), 'tosdk-kubectl-'));
    kc = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kc);
    await writeFile(join(dir, 'app.yaml'), APP);
    await writeFile(join(dir, 'crd.yaml'), CRD);
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('[AS-KUBECTL-API] api-resources lists built-ins with short names and namespaced flags', async () => {
    const r = await k(['api-resources']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    expect(r.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    expect(r.stdout).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
  });

  it('[AS-KUBECTL-CREATE] imperative create (protobuf bodies) of namespaces, configmaps, secrets, service accounts, deployments and services; auth can-i', async () => {
    expect((await k(['create', 'ns', 'imperative'])).stdout).toContain('namespace/imperative created');
    expect((await k(['create', 'cm', 'c1', '-n', 'imperative', '--from-literal=a=b'])).stdout).toContain(
      'configmap/c1 created',
    );
    expect(
      (await k(['create', 'secret', 'generic', 's1', '-n', 'imperative', '--from-literal=user=bob'])).stdout,
    ).toContain('secret/s1 created');
    expect((await k(['create', 'sa', 'robot', '-n', 'imperative'])).stdout).toContain(
      'serviceaccount/robot created',
    );
    expect((await k(['get', 'cm', 'c1', '-n', 'imperative', '-o', 'jsonpath={.data.a}'])).stdout).toBe('b');
    const secret = (await k(['get', 'secret', 's1', '-n', 'imperative', '-o', 'jsonpath={.data.user}']))
      .stdout;
    expect(Buffer.from(secret, 'base64').toString()).toBe('bob');
    expect((await k(['auth', 'can-i', 'create', 'pods'])).stdout.trim()).toBe('yes');
    expect(
      (await k(['create', 'deployment', 'imp', '--image=nginx:1.27', '--replicas=2', '-n', 'imperative']))
        .stdout,
    ).toContain('deployment.apps/imp created');
    const spec = JSON.parse(
      (await k(['get', 'deploy', 'imp', '-n', 'imperative', '-o', 'jsonpath={.spec}'])).stdout,
    ) as Record<string, unknown>;
    expect(spec).toMatchObject({
      replicas: 2,
      selector: { matchLabels: { app: 'imp' } },
      strategy: { type: 'RollingUpdate' },
    });
    expect(
      (await k(['create', 'service', 'clusterip', 'imp', '--tcp=80:8080', '-n', 'imperative'])).stdout,
    ).toContain('service/imp created');
    const ports = (
      await k([
        'get',
        'svc',
        'imp',
        '-n',
        'imperative',
        '-o',
        'jsonpath={.spec.ports[0].port}:{.spec.ports[0].targetPort}',
      ])
    ).stdout;
    expect(ports).toBe('80:8080');
  });

  it('[AS-KUBECTL-APPLY] client-side apply creates then configures; get -o yaml and -o wide show the objects', async () => {
    const a = await k(['apply', '-f', join(dir, 'app.yaml')]);
    expect(a.stderr).toBe('');
    expect(a.stdout).toContain('configmap/app-config created');
    expect(a.stdout).toContain('deployment.apps/web created');
    const again = await k(['apply', '-f', join(dir, 'app.yaml')]);
    expect(again.stdout).toContain('configmap/app-config unchanged');
    const y = await k(['get', 'cm', 'app-config', '-o', 'yaml']);
    expect(y.stdout).toContain('mode: blue');
    expect(y.stdout).toContain('kubectl.kubernetes.io/last-applied-configuration');
    const w = await k(['get', 'deploy', '-o', 'wide']);
    expect(w.stdout).toMatch(
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m,
    );
    expect(w.stdout).toMatch(/^web\s+0\/2\s+0\s+0\s+\S+\s+c\s+nginx:1\s+app=web$/m);
  });

  it('[AS-KUBECTL-SSA] apply --server-side records the field manager', async () => {
    const r = await k(['apply', '--server-side', '--field-manager', 'e2e', '-f', join(dir, 'app.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('configmap/app-config serverside-applied');
    const y = await k(['get', 'cm', 'app-config', '-o', 'yaml', '--show-managed-fields']);
    expect(y.stdout).toMatch(/manager: e2e\n\s+operation: Apply/);
  });

  it('[AS-KUBECTL-PATCH] patch --type json, merge and strategic', async () => {
    expect(
      (await k(['patch', 'cm', 'app-config', '--type', 'merge', '-p', '{"data":{"merged":"yes"}}'])).stdout,
    ).toContain('patched');
    expect(
      (
        await k([
          'patch',
          'cm',
          'app-config',
          '--type',
          'json',
          '-p',
          '[{"op":"add","path":"/data/json","value":"yes"}]',
        ])
      ).stdout,
    ).toContain('patched');
    const s = await k([
      'patch',
      'deploy',
      'web',
      '--type',
      'strategic',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}}',
    ]);
    expect(s.stdout).toContain('patched');
    const c = await k([
      'get',
      'deploy',
      'web',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort}',
    ]);
    expect(c.stdout).toBe('nginx:2 80');
    const d = await k(['get', 'cm', 'app-config', '-o', 'jsonpath={.data.merged},{.data.json}']);
    expect(d.stdout).toBe('yes,yes');
  });

  it('[AS-KUBECTL-SCALE] scale through the scale subresource', async () => {
    expect((await k(['scale', 'deploy/web', '--replicas=3'])).stdout).toContain('deployment.apps/web scaled');
    expect((await k(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}'])).stdout).toBe('3');
  });

  it('[AS-KUBECTL-DIFF] diff shows a pending change and exits 1', async () => {
    await writeFile(join(dir, 'changed.yaml'), APP.replace('mode: blue', 'mode: green'));
    const r = await k(['diff', '-f', join(dir, 'changed.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^-\s+mode: blue$/m);
    expect(r.stdout).toMatch(/^\+\s+mode: green$/m);
    const get = await k(['get', 'cm', 'app-config', '-o', 'jsonpath={.data.mode}']);
    expect(get.stdout).toBe('blue');
  });

  it('[AS-KUBECTL-WATCH] get -w streams a new object', async () => {
    const live = { stdout: '' };
    const watching = k(['get', 'cm', '-w', '--no-headers'], {
      untilStdout: /watched-cm/,
      timeoutMs: 15_000,
      live,
    });
    // the watch prints the current objects first; create once it has listed
    const deadline = Date.now() + 10_000;
    while (!live.stdout.includes('app-config') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await k(['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched-cm}\n',
    });
    const r = await watching;
    expect(r.stdout).toMatch(/^app-config\s+/m);
    expect(r.stdout).toMatch(/^watched-cm\s+/m);
  });

  it('[AS-KUBECTL-CRD] a CRD: wait --for=condition=Established, strict field validation or pruning, defaults, printer columns, explain', async () => {
    expect((await k(['apply', '-f', join(dir, 'crd.yaml')])).stdout).toContain('created');
    const w = await k(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=10s']);
    expect(w.stdout).toContain('condition met');
    const widget =
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {color: red, unknown: 1}\n';
    // kubectl validates strictly by default: the server rejects the unknown field
    const strict = await k(['apply', '-f', '-'], { input: widget });
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('strict decoding error: unknown field "spec.unknown"');
    // without validation the server prunes it
    const lax = await k(['apply', '--validate=false', '-f', '-'], { input: widget });
    expect(lax.stdout).toContain('widget.example.com/w1 created');
    const g = await k(['get', 'wd']);
    expect(g.stdout).toMatch(/^NAME\s+SIZE$/m);
    expect(g.stdout).toMatch(/^w1\s+3$/m);
    const y = await k(['get', 'widget', 'w1', '-o', 'jsonpath={.spec}']);
    expect(JSON.parse(y.stdout)).toEqual({ color: 'red', size: 3 });
    const e = await k(['explain', 'widget.spec']);
    expect(e.stdout).toContain("The widget's desired state.");
    expect(e.stdout).toContain('How big the widget is.');
  });

  it('[AS-KUBECTL-DELETE] delete --cascade=foreground removes dependents first; --cascade=orphan keeps them', async () => {
    const uid = (await k(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const rs = (name: string, owner: string, ownerUid: string): string =>
      `apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: ${name}\n  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: ${owner}, uid: ${ownerUid}, controller: true, blockOwnerDeletion: true}]\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n`;
    await k(['apply', '-f', '-'], { input: rs('web-rs', 'web', uid) });
    const del = await k(['delete', 'deploy', 'web', '--cascade=foreground']);
    expect(del.stdout).toContain('deployment.apps "web" deleted');
    const gone = await k(['get', 'rs', 'web-rs']);
    expect(gone.stderr).toContain('NotFound');
    await k(['apply', '-f', join(dir, 'app.yaml')]);
    const uid2 = (await k(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    await k(['apply', '-f', '-'], { input: rs('web-rs2', 'web', uid2) });
    const orphan = await k(['delete', 'deploy', 'web', '--cascade=orphan']);
    expect(orphan.stdout).toContain('deleted');
    const kept = await k([
      'get',
      'rs',
      'web-rs2',
      '-o',
      'jsonpath={.metadata.name}:{.metadata.ownerReferences}',
    ]);
    expect(kept.stdout).toBe('web-rs2:');
  });

  it('[AS-KUBECTL-WAIT-DELETE] wait --for=delete returns once the object is gone', async () => {
    await k(['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: doomed, finalizers: [e2e/hold]}\n',
    });
    await k(['delete', 'cm', 'doomed', '--wait=false']);
    const t0 = Date.now();
    const waiting = k(['wait', '--for=delete', 'cm/doomed', '--timeout=15s']);
    // release the object only once kubectl watches it, or there is nothing left to wait for
    const deadline = Date.now() + 10_000;
    while (
      !server.requests.log.some((r) => r.verb === 'watch' && r.resource === 'configmaps' && r.time >= t0) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await k(['patch', 'cm', 'doomed', '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
    const r = await waiting;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('condition met');
  });
  it('[AS-KUBECTL-EXPLAIN] explain deployment.spec.template reads the built-in schema; create --validate=strict rejects unknown fields of built-ins', async () => {
    const r = await k(['explain', 'deployment.spec.template']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/FIELD:\s+template <PodTemplateSpec>/);
    expect(r.stdout).toContain('PodTemplateSpec describes the data a pod should have');
    expect(r.stdout).toMatch(/^\s+spec\s+<PodSpec>/m);
    const fields = await k(['explain', 'service.spec.ports.nodePort']);
    expect(fields.stdout).toMatch(/FIELD:\s+nodePort <integer>/);
    const strict = await k(['apply', '--validate=strict', '-f', '-'], {
      input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strict-cm}\ndata: {a: b}\nbogus: 1\n',
    });
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('unknown field "bogus"');
  });

  it('[AS-KUBECTL-NODEPORT] a NodePort Service gets a node port in 30000-32767 that survives a re-apply', async () => {
    const svc =
      'apiVersion: v1\nkind: Service\nmetadata: {name: np}\nspec:\n  type: NodePort\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: 80}]\n';
    expect((await k(['apply', '-f', '-'], { input: svc })).code).toBe(0);
    const port = Number((await k(['get', 'svc', 'np', '-o', 'jsonpath={.spec.ports[0].nodePort}'])).stdout);
    expect(port).toBeGreaterThanOrEqual(30000);
    expect(port).toBeLessThanOrEqual(32767);
    const listed = await k(['get', 'svc', 'np']);
    expect(listed.stdout).toMatch(new RegExp(`NodePort\\s+\\S+\\s+<none>\\s+80:${port}/TCP`));
    await k(['apply', '-f', '-'], { input: svc.replace('{app: web}', '{app: web2}') });
    expect(Number((await k(['get', 'svc', 'np', '-o', 'jsonpath={.spec.ports[0].nodePort}'])).stdout)).toBe(
      port,
    );
  });

  it('[AS-KUBECTL-QUANTITY] a CPU request of 2000m and memory of 1024Mi come back as 2 and 1Gi', async () => {
    const pod =
      'apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n  containers:\n  - name: c\n    image: nginx:1\n    resources: {requests: {cpu: 2000m, memory: 1024Mi}, limits: {cpu: "2.5"}}\n';
    expect((await k(['apply', '-f', '-'], { input: pod })).code).toBe(0);
    const got = await k([
      'get',
      'pod',
      'q',
      '-o',
      'jsonpath={.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.requests.memory} {.spec.containers[0].resources.limits.cpu}',
    ]);
    expect(got.stdout).toBe('2 1Gi 2500m');
    // applying the same manifest again sends 2000m once more, which is the stored value: no new version
    const rv = (await k(['get', 'pod', 'q', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;
    expect((await k(['apply', '-f', '-'], { input: pod })).code).toBe(0);
    expect((await k(['get', 'pod', 'q', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout).toBe(rv);
  });

  it('[AS-KUBECTL-METADATA] a metadata-only list (as=PartialObjectMetadataList) of what kubectl created has no data', async () => {
    expect((await k(['create', 'cm', 'meta-only', '--from-literal=secret=value'])).code).toBe(0);
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(
        new URL('/api/v1/namespaces/default/configmaps', server.url),
        {
          ca: server.caPem,
          headers: {
            authorization: `Bearer ${server.tokenOf()}`,
            accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
    const list = JSON.parse(body) as { kind: string; items: { kind: string; metadata: { name: string } }[] };
    expect(list.kind).toBe('PartialObjectMetadataList');
    const item = list.items.find((i) => i.metadata.name === 'meta-only');
    expect(item?.kind).toBe('PartialObjectMetadata');
    expect(body).not.toContain('"value"');
  });

  it('[AS-KUBECTL-LIST] a kind: List file (Deployment + ConfigMap) applies client-side and server-side; kubectl validates its items against the built-in schemas of /openapi/v2 (protobuf)', async () => {
    const list = (deploymentSpecExtra: string): string =>
      `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: listed-cm}\n  data: {a: b}\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: listed-dep}\n  spec:\n    replicas: 1${deploymentSpecExtra}\n    selector: {matchLabels: {app: listed}}\n    template:\n      metadata: {labels: {app: listed}}\n      spec:\n        containers: [{name: c, image: "nginx:1"}]\n`;
    const file = join(dir, 'list.yaml');
    await writeFile(file, list(''));
    const created = await k(['apply', '-f', file]);
    expect(created.stderr).toBe('');
    expect(created.stdout).toContain('configmap/listed-cm created');
    expect(created.stdout).toContain('deployment.apps/listed-dep created');
    const ssa = await k(['apply', '--server-side', '-f', file]);
    expect(ssa.stderr).toBe('');
    expect(ssa.stdout).toContain('configmap/listed-cm serverside-applied');
    expect(ssa.stdout).toContain('deployment.apps/listed-dep serverside-applied');
    // the items are validated by kubectl itself, from the v2 schema: refused before any request
    await writeFile(join(dir, 'bad-list.yaml'), list('\n    bogus: 1'));
    const t0 = Date.now();
    const bad = await k(['apply', '-f', join(dir, 'bad-list.yaml')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(
      /ValidationError\(Deployment\.spec\): unknown field "bogus" in io\.k8s\.api\.apps\.v1\.DeploymentSpec/,
    );
    expect(server.requests.log.filter((r) => r.time >= t0 && r.name?.startsWith('listed-'))).toEqual([]);
    const missing = await k(['apply', '-f', '-'], {
      input: list('').replace('{name: c, image: "nginx:1"}', '{image: "nginx:1"}'),
    });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('missing required field "name" in io.k8s.api.core.v1.Container');
    const explain = await k(['explain', 'deployment.spec']);
    expect(explain.code).toBe(0);
    expect(explain.stdout).toMatch(/FIELD:\s+spec <DeploymentSpec>/);
  });

  it('[AS-KUBECTL-APPLY-DIFF] client-side apply then diff of a Deployment: a container removed from the manifest shows as removed and goes on apply', async () => {
    const dep = (containers: string): string =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: two}\nspec:\n  selector: {matchLabels: {app: two}}\n  template:\n    metadata: {labels: {app: two}}\n    spec:\n      containers:\n${containers}`;
    const both =
      '      - {name: a, image: "nginx:1", env: [{name: X, value: "1"}]}\n      - {name: b, image: "busybox:1"}\n';
    const one = '      - {name: a, image: "nginx:2", env: [{name: X, value: "1"}]}\n';
    await writeFile(join(dir, 'two.yaml'), dep(both));
    await writeFile(join(dir, 'one.yaml'), dep(one));
    expect((await k(['apply', '-f', join(dir, 'two.yaml')])).stdout).toContain('deployment.apps/two created');
    const diff = await k(['diff', '-f', join(dir, 'one.yaml')]);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toMatch(/^-\s+image: nginx:1$/m);
    expect(diff.stdout).toMatch(/^\+\s+image: nginx:2$/m);
    expect(diff.stdout).toMatch(/^-\s+name: b$/m);
    const applied = await k(['apply', '-f', join(dir, 'one.yaml')]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('deployment.apps/two configured');
    const names = await k([
      'get',
      'deploy',
      'two',
      '-o',
      'jsonpath={.spec.template.spec.containers[*].name}',
    ]);
    expect(names.stdout).toBe('a');
    const env = await k([
      'get',
      'deploy',
      'two',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].env[0].value}',
    ]);
    expect(env.stdout).toBe('1');
    const none = await k(['diff', '-f', join(dir, 'one.yaml')]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
  });

  it('[AS-KUBECTL-EXPLAIN-V2] explain --output=plaintext-openapiv2 reads built-in and custom kinds from /openapi/v2; a List item of a custom kind is validated client-side too', async () => {
    const dep = await k(['explain', 'deployment.spec.replicas', '--output=plaintext-openapiv2']);
    expect(dep.code).toBe(0);
    expect(dep.stdout).toMatch(/FIELD:\s+replicas <integer>/);
    expect(dep.stdout).toContain('Number of desired pods');
    // the widgets CRD of [AS-KUBECTL-CRD] is in the same document as the built-ins
    const widget = await k(['explain', 'widget.spec.size', '--output=plaintext-openapiv2']);
    expect(widget.code).toBe(0);
    expect(widget.stdout).toContain('How big the widget is.');
    const list =
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: listed-w}\n  spec: {size: 2, bogus: 1}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: listed-with-widget}\n';
    const bad = await k(['apply', '-f', '-'], { input: list });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('unknown field "bogus" in com.example.v1.Widget.spec');
  });

  it('[AS-KUBECTL-CEL-TYPES] a CRD whose rule compares a string with an int is refused with the type error; a rule using a.?b guards an absent field', async () => {
    const crd = (name: string, rule: string): string =>
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ${name}s.example.com}\nspec:\n  group: example.com\n  names: {kind: ${name[0].toUpperCase()}${name.slice(1)}, plural: ${name}s, singular: ${name}}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties: {size: {type: integer}, name: {type: string}}\n            x-kubernetes-validations:\n            - rule: ${JSON.stringify(rule)}\n              message: size must be positive\n`;
    const typed = await k(['apply', '-f', '-'], { input: crd('gizmo', 'self.name == 1') });
    expect(typed.code).not.toBe(0);
    expect(typed.stderr).toContain(
      "compilation failed: ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(string, int)'",
    );
    expect(typed.stderr).toContain(' | self.name == 1\n | ..........^');
    expect((await k(['get', 'crd', 'gizmos.example.com'])).stderr).toContain('NotFound');
    expect(
      (await k(['apply', '-f', '-'], { input: crd('sprocket', 'self.?size.orValue(1) > 0') })).code,
    ).toBe(0);
    expect(
      (await k(['wait', '--for=condition=Established', 'crd/sprockets.example.com', '--timeout=10s'])).code,
    ).toBe(0);
    const sprocket = (spec: string): string =>
      `apiVersion: example.com/v1\nkind: Sprocket\nmetadata: {name: s${spec.length}}\nspec: ${spec}\n`;
    expect((await k(['apply', '-f', '-'], { input: sprocket('{}') })).code).toBe(0);
    const zero = await k(['apply', '-f', '-'], { input: sprocket('{size: 0}') });
    expect(zero.code).not.toBe(0);
    expect(zero.stderr).toContain('size must be positive');
  });

  it('[FINDING S11-RB2] auth whoami (SelfSubjectReview) names the user and groups, as impersonated with --as, --as-group and --as-uid', async () => {
    const me = await k(['auth', 'whoami', '-o', 'json']);
    expect(me.stderr).toBe('');
    expect(JSON.parse(me.stdout)).toMatchObject({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      status: { userInfo: { username: 'admin', groups: ['system:masters', 'system:authenticated'] } },
    });
    const as = await k([
      'auth',
      'whoami',
      '--as=system:serviceaccount:team:op',
      '--as-group=devs',
      '--as-uid=u-1',
      '-o',
      'json',
    ]);
    expect(as.stderr).toBe('');
    expect(JSON.parse(as.stdout)).toMatchObject({
      status: {
        userInfo: {
          username: 'system:serviceaccount:team:op',
          uid: 'u-1',
          groups: ['devs', 'system:authenticated'],
        },
      },
    });
    const table = await k(['auth', 'whoami', '--as=carol']);
    expect(table.stdout).toMatch(/^Username\s+carol$/m);
    expect(table.stdout).toMatch(/^Groups\s+\[system:authenticated\]$/m);
  });
});
