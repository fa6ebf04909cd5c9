// The widgets benchmark's floor: a bare node:http(s) keep-alive client that lists the Widgets once
// and sends exactly the scenario's writes (per widget one server-side apply of its ConfigMap, then
// one merge patch of its status), 50 in flight; no watch, no cache, no retries. And its
// list-and-compare: list Widgets and ConfigMaps, compare with the desired state, write nothing
// (the least a restarted operator must do to find that nothing changed).
import http from 'node:http';
import https from 'node:https';
import type { Connection, ContenderRun, Widget } from './widgets-common.js';
import {
  CONCURRENCY,
  desiredConfigMap,
  desiredStatus,
  FIELD_MANAGER,
  NAMESPACE,
  WIDGET,
} from './widgets-common.js';

interface Raw {
  request(method: string, path: string, body?: string, contentType?: string): Promise<string>;
  close(): void;
}

function rawClient(conn: Connection): Raw {
  const url = new URL(conn.url);
  const secure = url.protocol === 'https:';
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: conn.ca })
    : new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const send = secure ? https.request : http.request;
  const auth = `Bearer ${conn.token}`;
  return {
    request: (method, path, body, contentType) =>
      new Promise<string>((resolve, reject) => {
        const headers: Record<string, string | number> = { authorization: auth, accept: 'application/json' };
        if (body !== undefined) {
          headers['content-type'] = contentType ?? 'application/json';
          headers['content-length'] = Buffer.byteLength(body);
        }
        const req = send({ agent, hostname: url.hostname, port: url.port, method, path, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 0) >= 300)
              reject(
                new Error(`${method} ${path} answered ${String(res.statusCode)}: ${text.slice(0, 300)}`),
              );
            else resolve(text);
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

const widgetsPath = `/apis/${WIDGET.group}/${WIDGET.version}/namespaces/${NAMESPACE}/${WIDGET.plural}`;
const configMapsPath = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

/** The floor: the scenario's writes and nothing else. */
export function floorRaw(conn: Connection): ContenderRun {
  const raw = rawClient(conn);
  return {
    async go() {
      const list = JSON.parse(await raw.request('GET', widgetsPath)) as { items: Widget[] };
      const items = list.items;
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < items.length) {
            const w = items[next++];
            const cm = desiredConfigMap(w);
            await raw.request(
              'PATCH',
              `${configMapsPath}/${cm.metadata.name}?fieldManager=${FIELD_MANAGER}&force=true`,
              JSON.stringify(cm),
              'application/apply-patch+yaml',
            );
            await raw.request(
              'PATCH',
              `${widgetsPath}/${w.metadata!.name!}/status`,
              JSON.stringify({ status: desiredStatus(w) }),
              'application/merge-patch+json',
            );
          }
        }),
      );
      return { listed: items.length };
    },
    async stop() {
      raw.close();
    },
  };
}

/** The restart floor: list Widgets and ConfigMaps, compare with the desired state, write nothing. */
export function floorListCompare(conn: Connection): ContenderRun {
  const raw = rawClient(conn);
  return {
    async go() {
      const [widgets, configMaps] = await Promise.all([
        raw.request('GET', widgetsPath).then((t) => (JSON.parse(t) as { items: Widget[] }).items),
        raw.request('GET', configMapsPath).then(
          (t) =>
            (
              JSON.parse(t) as {
                items: Array<{ metadata: { name: string }; data?: Record<string, string> }>;
              }
            ).items,
        ),
      ]);
      const byName = new Map(configMaps.map((cm) => [cm.metadata.name, cm]));
      let differing = 0;
      for (const w of widgets) {
        const want = desiredConfigMap(w);
        const have = byName.get(want.metadata.name);
        const status = desiredStatus(w);
        if (
          have?.data?.value !== want.data.value ||
          w.status?.configMap !== status.configMap ||
          w.status.observed !== status.observed
        )
          differing++;
      }
      return { compared: widgets.length, differing };
    },
    async stop() {
      raw.close();
    },
  };
}
