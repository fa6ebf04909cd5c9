// API server benchmark: creates/s, patches/s and server-side applies/s from one client with 16
// requests in flight; listing 10,000 objects; watch fan-out of 10,000 events to 10 watchers (with a
// loss check); heap bytes per stored object against its JSON size; start-up time. Each figure is
// printed with a baseline measured in the same run on the same machine: a bare node:http echo
// server for requests and lists, the objects' JSON size for memory, a bare listen for start-up.
// The API server runs with plain HTTP here (tls: false) so both sides pay the same transport.
// The write rates use one client in a worker thread (its own core, as a separate client process would
// be), identical for the echo baseline and the API server: a lean one on raw sockets with every
// request built before the timed phase (bench/lib/apiserver-load.ts), since the node:http client
// used before cost as much CPU per request as the server and so measured itself as much as the
// server on two cores; its rates are still printed beside, for comparison. A write answered with
// another status than expected fails the bench, and after the writes every created object is listed
// and a sample read back for the patch's and the apply's data. Each figure also gives the CPU time
// per request of the server's thread and of the client's, which the machine's load does not inflate.
// Both sides first serve 5,000 unmeasured writes of each kind, so the figures are of compiled code
// (with 1,000 the server still got faster over the measured runs: the later, the cheaper per write).
// Each write rate is printed with issue 17's target (8,000/s) and the server's CPU per request with
// the budget that target leaves on one core (125 us), the figure that does not depend on how busy
// the machine is, and the server's and the client's CPU together against the same budget (on this
// shared 2-core machine they do not run side by side: the rate is about one over their sum); the
// load average of the run is printed beside the echo baseline. The client is one worker thread kept
// for the whole run, so the unmeasured writes warm its code too (bench/lib/apiserver-load.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { Readable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  configMapJson,
  runLoad,
  stopLoadWorker,
  type LoadClient,
  type WriteKind,
} from './lib/apiserver-load.js';

const IN_FLIGHT = 16;
const WRITES = 5_000;
/** Unmeasured writes of each kind each side serves first (see the warm-up in `run`). */
const WARM_UP = 5_000;
const LIST_SIZE = 10_000;
const WATCHERS = 10;
/** Writes of each kind for the in-process figure (after as many unmeasured ones). */
const IN_PROCESS_WRITES = 3_000;

function gcFunction(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

async function settledHeap(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

interface Target {
  port: number;
  token: string;
  agent: http.Agent;
}

function send(
  t: Target,
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${t.token}`,
      accept: 'application/json',
    };
    if (body !== undefined) {
      headers['content-type'] = contentType;
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const req = http.request(
      { host: '127.0.0.1', port: t.port, method, path, headers, agent: t.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `count` requests with `IN_FLIGHT` in flight; returns requests per second. */
async function rate(
  count: number,
  one: (i: number) => Promise<{ status: number }>,
  okStatus: number[],
): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const r = await one(i);
      if (!okStatus.includes(r.status)) throw new Error(`request ${i} answered ${r.status}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const secs = Number(process.hrtime.bigint() - started) / 1e9;
  return count / secs;
}

interface LoadResult {
  /** Requests per second. */
  rate: number;
  /** CPU microseconds per request of the serving thread (this one). */
  serverCpuUs: number;
  /** CPU microseconds per request of the client thread. */
  clientCpuUs: number;
}

/**
 * Runs `count` writes of one kind into namespace `ns` (ConfigMaps `cm-<from>`...) from a worker-thread
 * client against `t`, the lean raw-socket one unless told otherwise; fails the bench on any write
 * not answered with its expected status.
 */
async function load(
  t: Target,
  kind: WriteKind,
  ns: string,
  count = WRITES,
  client: LoadClient = 'raw',
): Promise<LoadResult> {
  const r = await runLoad({
    port: t.port,
    token: t.token,
    kind,
    ns,
    from: 0,
    count,
    inFlight: IN_FLIGHT,
    client,
  });
  if (r.failures > 0)
    throw new Error(
      `${r.failures} of ${count} ${kind} writes (${client} client, namespace ${ns}) failed: ${r.failureSamples.join('; ')}`,
    );
  return { rate: r.rate, serverCpuUs: r.serverCpuUs, clientCpuUs: r.cpuUs };
}

/**
 * Checks that the measured writes did what they say: every ConfigMap `cm-0`...`cm-<count-1>` of
 * `ns` exists (one list), and a sample of them carries the merge patch's and the apply's data and
 * the apply's field manager. Throws, naming what is missing, otherwise.
 */
async function verifyWrites(api: Target, ns: string, count: number): Promise<void> {
  const listed = await send(api, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
  if (listed.status !== 200) throw new Error(`listing namespace ${ns} answered ${listed.status}`);
  const names = new Set(
    (JSON.parse(listed.text) as { items: { metadata: { name: string } }[] }).items.map(
      (o) => o.metadata.name,
    ),
  );
  const missing = Array.from({ length: count }, (_, i) => `cm-${i}`).filter((n) => !names.has(n));
  if (missing.length > 0)
    throw new Error(
      `${missing.length} created ConfigMaps missing from ${ns} (first: ${missing.slice(0, 5).join(', ')})`,
    );
  for (const i of [0, 1, Math.floor(count / 3), Math.floor(count / 2), count - 1]) {
    const got = await send(api, 'GET', `/api/v1/namespaces/${ns}/configmaps/cm-${i}`);
    const o = JSON.parse(got.text) as {
      data?: Record<string, string>;
      metadata: { managedFields?: { manager?: string; operation?: string }[] };
    };
    if (got.status !== 200 || o.data?.key !== `patched-${i}` || o.data?.applied !== `v-${i}`)
      throw new Error(
        `cm-${i} in ${ns} lacks the patch's or the apply's data: ${got.status} ${JSON.stringify(o.data)}`,
      );
    if (!(o.metadata.managedFields ?? []).some((f) => f.manager === 'bench' && f.operation === 'Apply'))
      throw new Error(
        `cm-${i} in ${ns} has no managedFields entry of the apply (manager bench, operation Apply)`,
      );
  }
}

/**
 * A bare node:http server: GET answers `listBody`; a write parses its JSON body and answers `written`
 * (an API server's answer to a create) with the body's `data` in it, so it reads, parses and
 * serializes about as many bytes as the API server does, and does nothing else.
 */
async function echoServer(
  listBody: string,
  written: Record<string, unknown> = {},
): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = listBody;
      if (req.method !== 'GET') {
        const sent = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: unknown };
        body = JSON.stringify({ ...written, data: sent.data });
      }
      res.writeHead(req.method === 'POST' ? 201 : 200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function cpuNote(r: LoadResult): string {
  return `      CPU us/request: server ${r.serverCpuUs.toFixed(0)}, client ${r.clientCpuUs.toFixed(0)}`;
}

function line(name: string, value: string, baseline: string, ratio: number): void {
  console.log(
    `${name.padEnd(34)} ${value.padStart(16)}   baseline ${baseline.padStart(16)}   ratio ${ratio.toFixed(2)}`,
  );
}

async function timeStart(): Promise<{ api: number; bare: number }> {
  const apiTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    let t = process.hrtime.bigint();
    const s = await KubeApiServer.start();
    apiTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
    await s.stop();
    t = process.hrtime.bigint();
    const b = http.createServer();
    await new Promise<void>((resolve) => b.listen(0, '127.0.0.1', resolve));
    bareTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
    await new Promise<void>((resolve) => b.close(() => resolve()));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { api: median(apiTimes), bare: median(bareTimes) };
}

/** What the in-process figure calls: the server's request handler (private; see `inProcess`). */
type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/**
 * CPU microseconds per write of the server's own code, without sockets: the server's request
 * handler (a private method, reached here on purpose: this measures it alone) is driven with a
 * minimal request (a readable stream) and response, one write at a time, for `count` writes of each kind after
 * a warm-up. This excludes node:http and the socket write, which the echo pays too, so it shows
 * what the API server's request front and engine cost, and moves far less with the machine's load.
 * Returns undefined when the handler is not there (renamed): the figure is then left out.
 */
async function inProcess(
  server: KubeApiServer,
  ns: string,
  count: number,
): Promise<Record<WriteKind, number> | undefined> {
  const handler = (server as unknown as { handle?: RequestHandler }).handle?.bind(server);
  if (handler === undefined) return undefined;
  const token = server.tokenOf();
  const write = (kind: WriteKind, i: number): [string, string, string, Buffer, number] => {
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    if (kind === 'create') return ['POST', base, 'application/json', Buffer.from(configMapJson(i, ns)), 201];
    if (kind === 'patch')
      return [
        'PATCH',
        `${base}/cm-${i}`,
        'application/merge-patch+json',
        Buffer.from(JSON.stringify({ data: { key: `patched-${i}` } })),
        200,
      ];
    const applied = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}` },
      data: { applied: `v-${i}` },
    };
    return [
      'PATCH',
      `${base}/cm-${i}?fieldManager=bench`,
      'application/apply-patch+yaml',
      Buffer.from(JSON.stringify(applied)),
      200,
    ];
  };
  const one = (kind: WriteKind, i: number): Promise<void> => {
    const [method, url, type, body, ok] = write(kind, i);
    return new Promise((resolve, reject) => {
      // a minimal request: a readable stream with headers; the body is pushed whole on the next tick,
      // as Node's parser pushes a small body right after the 'request' event (what readBody reads)
      const req = Object.assign(new Readable({ read: () => undefined }), {
        method,
        url,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'content-type': type,
          'content-length': String(body.length),
        },
        complete: false,
      });
      const res = {
        statusCode: 200,
        headersSent: false,
        writableEnded: false,
        setHeader: () => res,
        writeHead(status: number) {
          res.statusCode = status;
          res.headersSent = true;
          return res;
        },
        end() {
          res.writableEnded = true;
          if (res.statusCode === ok) resolve();
          else reject(new Error(`${method} ${url} answered ${res.statusCode}`));
          return res;
        },
      };
      void handler(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse);
      process.nextTick(() => {
        req.push(body);
        req.complete = true;
        req.push(null);
      });
    });
  };
  const out = {} as Record<WriteKind, number>;
  for (const pass of ['warm', 'measure'] as const) {
    const from = pass === 'warm' ? 0 : count;
    for (const kind of ['create', 'patch', 'apply'] as const) {
      const cpu0 = process.threadCpuUsage();
      for (let i = from; i < from + count; i++) await one(kind, i);
      const cpu = process.threadCpuUsage(cpu0);
      if (pass === 'measure') out[kind] = (cpu.user + cpu.system) / count;
    }
  }
  return out;
}

/** Issue 17's target for each of creates, merge patches and server-side applies, 16 in flight. */
const WRITE_TARGET = 8_000;
/** The server thread's CPU per request that allows {@link WRITE_TARGET} on one core: 125 us. */
const CPU_BUDGET_US = 1e6 / WRITE_TARGET;

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const gc = gcFunction();
  const start = await timeStart();
  const server = await KubeApiServer.start({ tls: false });
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const api: Target = { port: server.port, token: server.tokenOf(), agent };
  await send(api, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'bench' } }));
  await send(api, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'list' } }));

  // watchers for the fan-out figure, opened before the writes
  const received = new Array<number>(WATCHERS).fill(0);
  const watchReqs: http.ClientRequest[] = [];
  const rv0 = (
    JSON.parse((await send(api, 'GET', '/api/v1/namespaces/list/configmaps')).text) as {
      metadata: { resourceVersion: string };
    }
  ).metadata.resourceVersion;
  for (let w = 0; w < WATCHERS; w++) {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: api.port,
        path: `/api/v1/namespaces/list/configmaps?watch=1&resourceVersion=${rv0}`,
        headers: { authorization: `Bearer ${api.token}` },
      },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let i: number;
          while ((i = buf.indexOf('\n')) >= 0) {
            buf = buf.slice(i + 1);
            received[w]++;
          }
        });
      },
    );
    req.end();
    watchReqs.push(req);
  }

  // the echo answers what the API server answers to a create (same size, same shape)
  const sample = await send(api, 'POST', '/api/v1/namespaces/bench/configmaps', configMapJson(-1, 'bench'));
  const echoCreate = await echoServer('{}', JSON.parse(sample.text) as Record<string, unknown>);
  const echo: Target = {
    port: echoCreate.port,
    token: 'x',
    agent: new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT }),
  };
  // warm-up (not measured): the first requests run before the JIT has compiled the hot paths, so
  // both sides first serve WARM_UP writes of each kind (the API server into a namespace of its own)
  await send(api, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'warm' } }));
  await load(echo, 'create', 'bench', WARM_UP);
  for (const kind of ['create', 'patch', 'apply'] as const) await load(api, kind, 'warm', WARM_UP);
  const baseline = await load(echo, 'create', 'bench');
  const creates = await load(api, 'create', 'bench');
  const patches = await load(api, 'patch', 'bench');
  const applies = await load(api, 'apply', 'bench');
  const load1 = os.loadavg()[0];
  await verifyWrites(api, 'bench', WRITES);
  // the generator the bench used before (node:http in the worker), for comparison only
  await send(api, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'bench-http' } }));
  const viaHttp = {
    echo: await load(echo, 'create', 'bench-http', WRITES, 'http'),
    create: await load(api, 'create', 'bench-http', WRITES, 'http'),
    patch: await load(api, 'patch', 'bench-http', WRITES, 'http'),
    apply: await load(api, 'apply', 'bench-http', WRITES, 'http'),
  };
  await verifyWrites(api, 'bench-http', WRITES);
  await stopLoadWorker();
  console.log(
    `${'echo baseline'.padEnd(34)} ${fmt(baseline.rate).padStart(16)}/s${cpuNote(baseline)}   (load average ${load1.toFixed(1)} on ${os.availableParallelism()} cores; raw-socket client)`,
  );
  console.log(
    `${''.padEnd(34)} with a node:http client: ${fmt(viaHttp.echo.rate)}/s (client CPU ${viaHttp.echo.clientCpuUs.toFixed(0)} us/request)`,
  );
  if (baseline.rate < WRITE_TARGET)
    console.log(
      `${''.padEnd(34)} the echo itself stayed below ${fmt(WRITE_TARGET)}/s: this run cannot show the target; the server's CPU per request against ${CPU_BUDGET_US} us (${fmt(WRITE_TARGET)}/s on one core) is the machine-independent figure`,
    );
  for (const [name, r, h] of [
    ['creates/s (16 in flight)', creates, viaHttp.create],
    ['merge patches/s (16 in flight)', patches, viaHttp.patch],
    ['server-side applies/s (16 in flight)', applies, viaHttp.apply],
  ] as const) {
    line(name, fmt(r.rate), fmt(baseline.rate), r.rate / baseline.rate);
    console.log(`${''.padEnd(34)}${cpuNote(r)}`);
    const met = r.rate >= WRITE_TARGET;
    console.log(
      `${''.padEnd(34)} target >= ${fmt(WRITE_TARGET)}/s: ${met ? 'met' : 'not met'} (${fmt((100 * r.rate) / WRITE_TARGET)}% of it; the echo reached ${fmt((100 * baseline.rate) / WRITE_TARGET)}%)`,
    );
    const within = r.serverCpuUs <= CPU_BUDGET_US;
    console.log(
      `${''.padEnd(34)} server CPU ${r.serverCpuUs.toFixed(0)} us/request ${within ? 'within' : 'over'} the ${CPU_BUDGET_US} us budget of ${fmt(WRITE_TARGET)}/s on one core (ceiling ${fmt(1e6 / r.serverCpuUs)}/s; the echo's ${fmt(1e6 / baseline.serverCpuUs)}/s)`,
    );
    // on this 2-core machine, shared with other work, the server and the client do not run side by
    // side: a write's rate is about one over their CPU together (see the README's Performance)
    const both = r.serverCpuUs + r.clientCpuUs;
    console.log(
      `${''.padEnd(34)} server + client CPU ${both.toFixed(0)} us/request ${both <= CPU_BUDGET_US ? 'within' : 'over'} the ${CPU_BUDGET_US} us budget when both share one core (ceiling ${fmt(1e6 / both)}/s; the echo's ${fmt(1e6 / (baseline.serverCpuUs + baseline.clientCpuUs))}/s)`,
    );
    console.log(
      `${''.padEnd(34)} with a node:http client: ${fmt(h.rate)}/s (ratio ${(h.rate / viaHttp.echo.rate).toFixed(2)} to its echo; CPU us/request: server ${h.serverCpuUs.toFixed(0)}, client ${h.clientCpuUs.toFixed(0)})`,
    );
  }
  console.log(
    `${''.padEnd(34)} checked: all ${fmt(WRITES)} created ConfigMaps listed, a sample carries the patch's and the apply's data`,
  );

  // memory and fan-out: 10,000 objects in another namespace, watched by 10 watchers
  const heapBefore = await settledHeap(gc);
  let jsonBytes = 0;
  const fanStart = process.hrtime.bigint();
  await rate(
    LIST_SIZE,
    async (i) => {
      const r = await send(api, 'POST', '/api/v1/namespaces/list/configmaps', configMapJson(i, 'list'));
      jsonBytes += Buffer.byteLength(r.text);
      return r;
    },
    [201],
  );
  const deadline = Date.now() + 60_000;
  while (received.some((n) => n < LIST_SIZE) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 10));
  const fanSecs = Number(process.hrtime.bigint() - fanStart) / 1e9;
  const lost = received.reduce((n, x) => n + Math.max(0, LIST_SIZE - x), 0);
  for (const r of watchReqs) r.destroy();
  const heapAfter = await settledHeap(gc);
  const perObject = (heapAfter - heapBefore) / LIST_SIZE;
  const jsonPer = jsonBytes / LIST_SIZE;
  line(
    'watch fan-out events/s (10 watchers)',
    fmt((LIST_SIZE * WATCHERS) / fanSecs),
    fmt(LIST_SIZE / fanSecs),
    WATCHERS,
  );
  console.log(
    `${'watch events lost'.padEnd(34)} ${String(lost).padStart(16)}   (of ${fmt(LIST_SIZE * WATCHERS)})`,
  );
  line('heap bytes per stored object', fmt(perObject), `${fmt(jsonPer)} JSON`, perObject / jsonPer);

  // list of 10,000 objects against an echo server returning a body of the same size
  const t0 = process.hrtime.bigint();
  const listed = await send(api, 'GET', '/api/v1/namespaces/list/configmaps');
  const listMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const count = (JSON.parse(listed.text) as { items: unknown[] }).items.length;
  if (count !== LIST_SIZE) throw new Error(`listed ${count} objects, expected ${LIST_SIZE}`);
  const echoList = await echoServer(listed.text);
  const eagent: Target = { port: echoList.port, token: 'x', agent: new http.Agent({ keepAlive: true }) };
  const t1 = process.hrtime.bigint();
  const el = await send(eagent, 'GET', '/');
  JSON.parse(el.text);
  const echoMs = Number(process.hrtime.bigint() - t1) / 1e6;
  line('list 10,000 objects (ms)', fmt(listMs, 1), fmt(echoMs, 1), listMs / echoMs);
  // (last: its thousands of objects would be in the heap figure) the server's own code alone (no sockets), in a namespace of its own
  await send(api, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'inproc' } }));
  const own = await inProcess(server, 'inproc', IN_PROCESS_WRITES);
  if (own !== undefined)
    console.log(
      `${'server code CPU us/write, no sockets'.padEnd(34)} creates ${own.create.toFixed(1)}, merge patches ${own.patch.toFixed(1)}, applies ${own.apply.toFixed(1)}   (request front and engine; node:http and the socket write excluded)`,
    );

  line('start-up (ms, median of 5)', fmt(start.api, 1), fmt(start.bare, 1), start.api / start.bare);

  agent.destroy();
  echo.agent.destroy();
  eagent.agent.destroy();
  await new Promise<void>((resolve) => echoCreate.server.close(() => resolve()));
  await new Promise<void>((resolve) => echoList.server.close(() => resolve()));
  echoCreate.server.closeAllConnections();
  echoList.server.closeAllConnections();
  await server.stop();
}
