import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { loadKubeConfig } from '../../config/kube-config.js';
import { KubernetesClient } from '../kubernetes-client.js';

describe('KubernetesClient with the kubeconfig of a plain-HTTP API server (tosdk-apiserver --no-tls)', () => {
  let server: KubeApiServer;
  let dir: string;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    dir = await mkdtemp(join(tmpdir(), 'tosdk-plain-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the written kubeconfig and reads and writes through it', async () => {
    const file = join(dir, 'kubeconfig');
    await server.writeKubeconfig(file);
    const client = KubernetesClient.fromKubeConfig(loadKubeConfig({ env: { KUBECONFIG: file } }));
    try {
      await client.create(ResourceTypes.ConfigMap, {
        metadata: { name: 'plain', namespace: 'default' },
        data: { a: '1' },
      });
      const got = await client.get(ResourceTypes.ConfigMap, new ResourceID('plain', 'default'));
      expect(got?.data).toEqual({ a: '1' });
    } finally {
      client.close();
    }
  });
});
