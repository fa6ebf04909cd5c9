/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review S14: pod specs (of Pods and of every workload's pod template) that kube-apiserver 1.32
 * refuses with a 422 were stored here (pkg/apis/core/validation ValidatePodSpec: validateProbe,
 * ValidateEnv, ValidateVolumes, ValidateSecurityContext, validateAffinity,
 * validateTopologySpreadConstraints, ValidateTolerations): an operator whose Deployment has a
 * liveness probe with successThreshold 2, an env var reading a secret without a key, a configMap
 * volume item escaping with `..`, or a toleration with `Exists` and a value passed its tests here and
 * failed on a cluster.
 */
const NS = '/namespaces/default';
const PODS = `/api/v1${NS}/pods`;
const DEPLOYMENTS = `/apis/apps/v1${NS}/deployments`;

const pod = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec });
const app = (more: Record<string, unknown> = {}) => ({ name: 'app', image: 'nginx:1.27', ...more });

describe('review s14: pod spec validation', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  /** The `field: message` of each cause of a 422 (or the status when it is not one). */
  const refused = async (path: string, body: unknown): Promise<string[]> => {
    const r = await call(server, 'POST', path, body);
    if (r.status !== 422) return [`status ${r.status}`];
    return r.json<any>().details.causes.map((c: any) => `${c.field}: ${c.message}`);
  };

  it('[FINDING S14-PV1] probes need exactly one handler, valid ports, thresholds of 0 or more and successThreshold 1 for liveness and startup; init containers have none unless sidecars', async () => {
    const c = 'spec.containers[0]';
    expect(
      await refused(
        PODS,
        pod('probes', {
          containers: [
            app({
              lifecycle: { preStop: { httpGet: { port: 70000, scheme: 'FTP' } } },
              livenessProbe: {
                httpGet: { port: 'http-port-too-long' },
                tcpSocket: { port: 8080 },
                periodSeconds: -1,
                successThreshold: 2,
              },
              readinessProbe: { initialDelaySeconds: 5 },
              startupProbe: { exec: { command: [] }, failureThreshold: -3 },
            }),
          ],
        }),
      ),
    ).toEqual([
      `${c}.lifecycle.preStop.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive`,
      `${c}.lifecycle.preStop.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`,
      `${c}.livenessProbe.httpGet.port: Invalid value: "http-port-too-long": must be no more than 15 characters`,
      `${c}.livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type`,
      `${c}.livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0`,
      `${c}.livenessProbe.successThreshold: Invalid value: 2: must be 1`,
      `${c}.readinessProbe: Required value: must specify a handler type`,
      `${c}.startupProbe.exec.command: Required value`,
      `${c}.startupProbe.failureThreshold: Invalid value: -3: must be greater than or equal to 0`,
    ]);
    expect(
      await refused(
        PODS,
        pod('init-probe', {
          initContainers: [
            { name: 'init', image: 'busybox', livenessProbe: { exec: { command: ['true'] } } },
            { name: 'sidecar', image: 'envoy', restartPolicy: 'OnFailure' },
          ],
          containers: [app()],
        }),
      ),
    ).toEqual([
      'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      'spec.initContainers[1].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]);
    // a workload's template is checked the same way, at its own path
    expect(
      await refused(DEPLOYMENTS, {
        metadata: { name: 'liveness' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              containers: [app({ livenessProbe: { exec: { command: ['true'] }, successThreshold: 3 } })],
            },
          },
        },
      }),
    ).toEqual([
      'spec.template.spec.containers[0].livenessProbe.successThreshold: Invalid value: 3: must be 1',
    ]);
    // minimal probes pass: kube's defaults (periodSeconds 10, successThreshold 1, path /) come first
    const ok = await call(
      server,
      'POST',
      PODS,
      pod('probes-ok', {
        initContainers: [
          {
            name: 'sidecar',
            image: 'envoy',
            restartPolicy: 'Always',
            readinessProbe: { tcpSocket: { port: 'admin' } },
          },
        ],
        containers: [
          app({
            livenessProbe: { httpGet: { port: 8080 } },
            readinessProbe: {
              httpGet: { port: 'http', path: '/ready', scheme: 'HTTPS' },
              successThreshold: 2,
            },
            startupProbe: { grpc: { port: 9090 } },
            lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
          }),
        ],
      }),
    );
    expect(ok.status).toBe(201);
    expect(ok.json<any>().spec.containers[0].livenessProbe).toMatchObject({
      httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
      periodSeconds: 10,
      successThreshold: 1,
    });
  });

  it('[FINDING S14-PV2] env vars need a name without `=` and one valueFrom source with its required fields; envFrom needs a source', async () => {
    const e = 'spec.containers[0].env';
    expect(
      await refused(
        PODS,
        pod('env', {
          containers: [
            app({
              env: [
                { name: 'GOOD', value: 'x' },
                { name: 'HAS=EQUALS', value: 'x' },
                { name: '1 relaxed.name-ok', value: 'kube 1.32 allows printable ASCII' },
                { name: 'FROM_NOTHING', valueFrom: {} },
                { name: 'BOTH', value: 'v', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } },
                {
                  name: 'TWO',
                  valueFrom: {
                    fieldRef: { fieldPath: 'metadata.name' },
                    secretKeyRef: { name: 's', key: 'k' },
                  },
                },
                { name: 'NO_KEY', valueFrom: { secretKeyRef: { name: 'Bad_Name' } } },
                { name: 'LABELS', valueFrom: { fieldRef: { fieldPath: 'metadata.labels' } } },
                { name: 'UNKNOWN', valueFrom: { fieldRef: { fieldPath: 'spec.containers' } } },
                { name: 'GPU', valueFrom: { resourceFieldRef: { resource: 'limits.gpu' } } },
              ],
              envFrom: [{ prefix: 'A=', configMapRef: { name: 'cm' } }, { prefix: 'B_' }],
            }),
          ],
        }),
      ),
    ).toEqual([
      `${e}[1].name: Invalid value: "HAS=EQUALS": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      `${e}[3].valueFrom: Invalid value: "": must specify one of: \`fieldRef\`, \`resourceFieldRef\`, \`configMapKeyRef\` or \`secretKeyRef\``,
      `${e}[4].valueFrom: Invalid value: "": may not be specified when \`value\` is not empty`,
      `${e}[5].valueFrom: Invalid value: "": may not have more than one field specified at a time`,
      `${e}[6].valueFrom.secretKeyRef.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `${e}[6].valueFrom.secretKeyRef.key: Required value`,
      `${e}[7].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
      `${e}[8].valueFrom.fieldRef.fieldPath: Invalid value: "spec.containers": error converting fieldPath: field label not supported: spec.containers`,
      `${e}[9].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"`,
      `spec.containers[0].envFrom[0].prefix: Invalid value: "A=": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      'spec.containers[0].envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`',
    ]);
    const ok = await call(
      server,
      'POST',
      PODS,
      pod('env-ok', {
        containers: [
          app({
            env: [
              { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
              { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
              { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'config', key: 'log.level' } } },
              { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token', optional: true } } },
            ],
            envFrom: [{ prefix: 'DB_', secretRef: { name: 'db' } }, { configMapRef: { name: 'settings' } }],
          }),
        ],
      }),
    );
    expect(ok.status).toBe(201);
  });

  it('[FINDING S14-PV3] volumes need one source with its required fields, relative item paths and modes up to 0777; mounts need unique paths and relative subPaths', async () => {
    expect(
      await refused(
        PODS,
        pod('volumes', {
          volumes: [
            { name: 'two', configMap: { name: 'c' }, secret: { secretName: 's' } },
            {
              name: 'cm',
              configMap: {
                defaultMode: 0o1000,
                items: [
                  { key: '', path: '../etc/passwd' },
                  { key: 'k', path: '/abs', mode: 0o1000 },
                ],
              },
            },
            { name: 'claim', persistentVolumeClaim: { readOnly: true } },
            { name: 'scratch', emptyDir: { sizeLimit: '-1Gi' } },
            { name: 'Bad_Name', emptyDir: {} },
            { name: 'ok', emptyDir: {} },
          ],
          containers: [
            app({
              volumeMounts: [
                { name: 'cm', mountPath: '/etc/cm' },
                { name: 'ok', mountPath: '/data', subPath: '../x' },
                { name: 'ok', mountPath: '/data' },
              ],
            }),
          ],
        }),
      ),
    ).toEqual([
      'spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[1].configMap.name: Required value',
      'spec.volumes[1].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive',
      'spec.volumes[1].configMap.items[0].key: Required value',
      `spec.volumes[1].configMap.items[0].path: Invalid value: "../etc/passwd": must not contain '..'`,
      'spec.volumes[1].configMap.items[1].path: Invalid value: "/abs": must be a relative path',
      'spec.volumes[1].configMap.items[1].mode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive',
      'spec.volumes[2].persistentVolumeClaim.claimName: Required value',
      'spec.volumes[3].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity',
      `spec.volumes[4].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      // kube leaves a volume with errors out of the ones that can be mounted
      'spec.containers[0].volumeMounts[0].name: Not found: "cm"',
      `spec.containers[0].volumeMounts.subPath: Invalid value: "../x": must not contain '..'`,
      'spec.containers[0].volumeMounts[2].mountPath: Invalid value: "/data": must be unique',
    ]);
    const ok = await call(
      server,
      'POST',
      PODS,
      pod('volumes-ok', {
        volumes: [
          {
            name: 'config',
            configMap: { name: 'c', items: [{ key: 'app.yaml', path: 'conf/app.yaml', mode: 0o400 }] },
          },
          { name: 'tls', secret: { secretName: 'tls', defaultMode: 0o440 } },
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
          {
            name: 'bundle',
            projected: {
              sources: [
                { serviceAccountToken: { path: 'token', audience: 'vault' } },
                { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
                { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
              ],
            },
          },
          { name: 'plain' },
        ],
        containers: [
          app({
            volumeMounts: [
              { name: 'config', mountPath: '/etc/app', readOnly: true },
              { name: 'tls', mountPath: '/etc/tls', readOnly: true },
              { name: 'data', mountPath: '/var/data', subPath: 'app' },
              { name: 'scratch', mountPath: '/tmp' },
              { name: 'bundle', mountPath: '/var/run/bundle' },
              { name: 'plain', mountPath: '/plain' },
            ],
          }),
        ],
      }),
    );
    expect(ok.status).toBe(201);
  });

  it('[FINDING S14-PV4] security contexts need user and group ids in 0..2147483647, consistent seccomp and AppArmor profiles, and no privileged container without privilege escalation', async () => {
    const c = 'spec.containers[0].securityContext';
    const containerContext = {
      runAsGroup: -5,
      privileged: true,
      allowPrivilegeEscalation: false,
      seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'p.json' },
      appArmorProfile: { type: 'Custom' },
    };
    expect(
      await refused(
        PODS,
        pod('security', {
          securityContext: {
            runAsUser: -1,
            fsGroup: 3000000000,
            seccompProfile: { type: 'Localhost' },
            sysctls: [
              { name: 'net.ipv4.ip_forward', value: '1' },
              { name: 'Bad Sysctl', value: '1' },
            ],
          },
          containers: [app({ securityContext: containerContext })],
        }),
      ),
    ).toEqual([
      `${c}.runAsGroup: Invalid value: -5: must be between 0 and 2147483647, inclusive`,
      // kube prints its internal Go structs here; we print their JSON
      `${c}.seccompProfile.localhostProfile: Invalid value: {"localhostProfile":"p.json","type":"RuntimeDefault"}: can only be set when seccomp type is Localhost`,
      `${c}: Invalid value: {"allowPrivilegeEscalation":false,"appArmorProfile":{"type":"Custom"},"privileged":true,"runAsGroup":-5,"seccompProfile":{"localhostProfile":"p.json","type":"RuntimeDefault"}}: cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true`,
      `${c}.appArmorProfile.type: Unsupported value: "Custom": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
      'spec.securityContext.fsGroup: Invalid value: 3000000000: must be between 0 and 2147483647, inclusive',
      'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
      'spec.securityContext.sysctls[1].name: Invalid value: "Bad Sysctl": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$',
      'spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost',
    ]);
    const ok = await call(
      server,
      'POST',
      PODS,
      pod('security-ok', {
        securityContext: {
          runAsUser: 1000,
          runAsGroup: 1000,
          fsGroup: 2000,
          runAsNonRoot: true,
          seccompProfile: { type: 'RuntimeDefault' },
          fsGroupChangePolicy: 'OnRootMismatch',
        },
        containers: [
          app({
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
              appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-nginx' },
            },
          }),
        ],
      }),
    );
    expect(ok.status).toBe(201);
  });

  it('[FINDING S14-PV5] affinity terms, topology spread constraints and tolerations need valid operators, weights of 1..100, topology keys and effects', async () => {
    const na = 'spec.affinity.nodeAffinity';
    const anti = 'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]';
    const t = 'spec.tolerations';
    expect(
      await refused(
        PODS,
        pod('scheduling', {
          containers: [app()],
          nodeSelector: { 'disk type': 'ssd' },
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'zone', operator: 'Equals', values: ['a'] }] },
                ],
              },
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 0, preference: { matchExpressions: [{ key: 'ssd', operator: 'Exists' }] } },
              ],
            },
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 200, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } } } },
              ],
            },
          },
          topologySpreadConstraints: [
            {
              maxSkew: 0,
              topologyKey: 'topology.kubernetes.io/zone',
              whenUnsatisfiable: 'Sometimes',
              labelSelector: { matchLabels: { app: 'web' } },
            },
            { maxSkew: 1, topologyKey: '', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 },
          ],
          tolerations: [
            { key: 'dedicated', operator: 'Exists', value: 'gpu', effect: 'NoSchedule' },
            { operator: 'Equal', value: 'x' },
            { key: 'k', value: 'v', effect: 'Sometimes', tolerationSeconds: 60 },
          ],
        }),
      ),
    ).toEqual([
      `spec.nodeSelector: Invalid value: "disk type": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `${na}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator`,
      `${na}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100`,
      `${anti}.weight: Invalid value: 200: must be in the range 1-100`,
      `${anti}.podAffinityTerm.topologyKey: Required value: can not be empty`,
      `${anti}.podAffinityTerm.topologyKey: Invalid value: "": name part must be non-empty`,
      `${anti}.podAffinityTerm.topologyKey: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
      'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"',
      'spec.topologySpreadConstraints[1].topologyKey: Required value: can not be empty',
      'spec.topologySpreadConstraints[1].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway',
      `${t}[0].operator: Invalid value: core.Toleration{Key:"dedicated", Operator:"Exists", Value:"gpu", Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}: value must be empty when \`operator\` is 'Exists'`,
      `${t}[1].operator: Invalid value: "Equal": operator must be Exists when \`key\` is empty, which means "match all values and all keys"`,
      `${t}[2].effect: Invalid value: "Sometimes": effect must be 'NoExecute' when \`tolerationSeconds\` is set`,
      `${t}[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
    ]);
    const ok = await call(server, 'POST', DEPLOYMENTS, {
      metadata: { name: 'scheduling-ok' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [app()],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [
                    {
                      matchExpressions: [
                        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5'] },
                      ],
                    },
                  ],
                },
              },
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  {
                    weight: 100,
                    podAffinityTerm: {
                      labelSelector: { matchLabels: { app: 'web' } },
                      topologyKey: 'kubernetes.io/hostname',
                    },
                  },
                ],
              },
            },
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: 'topology.kubernetes.io/zone',
                whenUnsatisfiable: 'DoNotSchedule',
                minDomains: 3,
                labelSelector: { matchLabels: { app: 'web' } },
                matchLabelKeys: ['pod-template-hash'],
              },
            ],
            tolerations: [
              { operator: 'Exists' },
              {
                key: 'node.kubernetes.io/not-ready',
                operator: 'Exists',
                effect: 'NoExecute',
                tolerationSeconds: 30,
              },
              { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
            ],
          },
        },
      },
    });
    expect(ok.status).toBe(201);
  });

  it('[FINDING S14-PV6] container resources need standard or qualified names, quantities of 0 or more, and extended resources whole, with a limit equal to the request', async () => {
    const r = 'spec.template.spec.containers[0].resources';
    expect(
      await refused(DEPLOYMENTS, {
        metadata: { name: 'resources' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              containers: [
                app({
                  resources: {
                    limits: { cpus: '1', memory: '-1Gi', 'nvidia.com/gpu': '1' },
                    requests: { 'nvidia.com/gpu': '2', 'example.com/dongle': '500m' },
                  },
                }),
              ],
            },
          },
        },
      }),
    ).toEqual([
      `${r}.limits[cpus]: Invalid value: "cpus": must be a standard resource type or fully qualified`,
      `${r}.limits[cpus]: Invalid value: "cpus": must be a standard resource for containers`,
      `${r}.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0`,
      `${r}.requests: Invalid value: "2": must be equal to nvidia.com/gpu limit of 1`,
      `${r}.requests[example.com/dongle]: Invalid value: "500m": must be an integer`,
      `${r}.limits: Required value: Limit must be set for non overcommitable resources`,
    ]);
    const ok = await call(
      server,
      'POST',
      PODS,
      pod('resources-ok', {
        containers: [
          app({
            resources: {
              limits: { cpu: '2', memory: '1Gi', 'nvidia.com/gpu': '1', 'ephemeral-storage': '1Gi' },
              requests: { cpu: '500m', memory: '512Mi', 'nvidia.com/gpu': '1' },
            },
          }),
        ],
      }),
    );
    expect(ok.status).toBe(201);
  });

  it("[FINDING S14-PV7] pull and termination message policies, host ports, readiness gates and the pod's names and deadline are validated", async () => {
    const t = 'spec.template.spec';
    const subdomain =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    expect(
      await refused(DEPLOYMENTS, {
        metadata: { name: 'fields' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              hostNetwork: true,
              containers: [
                app({
                  imagePullPolicy: 'Sometimes',
                  terminationMessagePolicy: 'Log',
                  ports: [{ containerPort: 8080, hostPort: 9090 }],
                }),
                { name: 'b', image: 'busybox', ports: [{ containerPort: 9090, hostPort: 9090 }] },
              ],
              readinessGates: [{ conditionType: 'bad gate' }],
              serviceAccountName: 'My_SA',
              activeDeadlineSeconds: 0,
              hostname: 'Web.1',
              priorityClassName: 'High Priority',
            },
          },
        },
      }),
    ).toEqual([
      `${t}.containers[0].terminationMessagePolicy: Unsupported value: "Log": supported values: "File", "FallbackToLogsOnError"`,
      `${t}.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
      `${t}.containers[1].ports[0].hostPort: Duplicate value: "TCP//9090"`,
      `${t}.containers[0].ports[0].hostPort: Invalid value: 9090: must match \`containerPort\` when \`hostNetwork\` is true`,
      `${t}.readinessGates[0].conditionType: Invalid value: "bad gate": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `${t}.serviceAccountName: Invalid value: "My_SA": ${subdomain}`,
      `${t}.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive`,
      `${t}.hostname: Invalid value: "Web.1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `${t}.priorityClassName: Invalid value: "High Priority": ${subdomain}`,
    ]);
    const ok = await call(
      server,
      'POST',
      PODS,
      pod('fields-ok', {
        hostNetwork: true,
        initContainers: [{ name: 'init', image: 'busybox', ports: [{ containerPort: 8080 }] }],
        containers: [
          app({
            imagePullPolicy: 'Always',
            terminationMessagePolicy: 'FallbackToLogsOnError',
            ports: [{ containerPort: 8080 }],
          }),
        ],
        readinessGates: [{ conditionType: 'example.com/ready' }],
        serviceAccountName: 'web',
        activeDeadlineSeconds: 600,
        hostname: 'web-0',
        subdomain: 'web',
        priorityClassName: 'system-cluster-critical',
      }),
    );
    expect(ok.status).toBe(201);
  });

  it('[FINDING S14-PV8] dnsPolicy None needs a dnsConfig with nameservers; nameservers are IPs, searches DNS names; os is linux or windows', async () => {
    expect(await refused(PODS, pod('dns-none', { containers: [app()], dnsPolicy: 'None' }))).toEqual([
      'spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None',
    ]);
    expect(
      await refused(
        PODS,
        pod('dns', {
          containers: [app()],
          dnsConfig: {
            nameservers: ['10.0.0.10', 'dns.example.com'],
            searches: ['svc.cluster.local.', 'Bad_Domain'],
            options: [{ name: 'ndots', value: '2' }, { value: '1' }],
          },
          os: { name: 'Linux' },
        }),
      ),
    ).toEqual([
      'spec.dnsConfig.nameservers[1]: Invalid value: "dns.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      `spec.dnsConfig.searches[1]: Invalid value: "Bad_Domain": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'spec.dnsConfig.options[1]: Required value: must not be empty',
      'spec.os: Unsupported value: "Linux": supported values: "linux", "windows"',
    ]);
    const ok = await call(
      server,
      'POST',
      PODS,
      pod('dns-ok', {
        containers: [app()],
        dnsPolicy: 'None',
        dnsConfig: { nameservers: ['1.1.1.1', '2001:4860:4860::8888'], searches: ['example.com.'] },
        os: { name: 'linux' },
      }),
    );
    expect(ok.status).toBe(201);
  });

  it('[FINDING S14-PV9] a container port needs a containerPort, and only valid port names are compared for duplicates', async () => {
    expect(
      await refused(
        PODS,
        pod('ports', {
          containers: [
            app({
              ports: [
                { name: 'http' },
                { name: 'Bad_Name', containerPort: 8080 },
                { name: 'Bad_Name', containerPort: 8081 },
                { name: 'http', containerPort: 8082 },
              ],
            }),
          ],
        }),
      ),
    ).toEqual([
      'spec.containers[0].ports[0].containerPort: Required value',
      'spec.containers[0].ports[1].name: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[2].name: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[3].name: Duplicate value: "http"',
    ]);
  });

  it("[FINDING S14-PV10] a resourceFieldRef divisor must suit its resource, a CSI volume needs a driver name, and a Pod's image has no surrounding whitespace", async () => {
    expect(
      await refused(
        PODS,
        pod('divisor-csi-image', {
          volumes: [{ name: 'secrets', csi: { driver: 'Secrets Store' } }],
          containers: [
            app({
              image: 'nginx:1.27\n',
              env: [
                { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1Mi' } } },
                { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '3' } } },
              ],
            }),
          ],
        }),
      ),
    ).toEqual([
      `spec.volumes[0].csi.driver: Invalid value: "Secrets Store": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor\'s values 1m and 1 are supported with the cpu resource',
      'spec.containers[0].env[1].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.memory": only divisor\'s values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource',
      'spec.containers[0].image: Invalid value: "nginx:1.27\\n": must not have leading or trailing whitespace',
    ]);
    // a template's image is checked only when its pods are created
    const template = await call(server, 'POST', DEPLOYMENTS, {
      metadata: { name: 'image-space' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [app({ image: ' nginx' })] } },
      },
    });
    expect(template.status).toBe(201);
    const ok = await call(
      server,
      'POST',
      PODS,
      pod('divisor-csi-ok', {
        volumes: [{ name: 'secrets', csi: { driver: 'secrets-store.csi.k8s.io', readOnly: true } }],
        containers: [
          app({
            env: [
              { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
              { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
            ],
          }),
        ],
      }),
    );
    expect(ok.status).toBe(201);
  });
});
