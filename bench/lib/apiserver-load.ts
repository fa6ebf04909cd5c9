// The write load generator of `npm run bench -- apiserver` (issue 17), run in a worker thread so it
// has a core of its own, as a separate client process would; one worker serves every job of a run, so
// its code is warm (see runLoad). It is the same for the echo baseline and the API server. Two
// generators:
// - `raw` (the measured one): 16 keep-alive `node:net` sockets, one HTTP/1.1 request in flight on
//   each, each reading into one buffer of its own reused for every read (`onread`); every request
//   is built as one Buffer before the timed phase (only the name and the body differ between
//   them); a response is parsed just enough to know where it ends (status line, Content-Length or
//   chunked, the body skipped) and its status checked against the expected one.
// - `http` (for comparison only): the same requests through `node:http` with a keep-alive Agent,
//   the generator the bench used before; its own CPU per request was as high as the server's, so
//   on two cores it measured the client as much as the server.
// A response with another status than the expected one is a failure: it is counted, the first ones
// are reported, and the bench fails on any (a failed write is never throughput).
import http from 'node:http';
import net from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** What the load client sends: creates, merge patches or applies of ConfigMap `cm-<i>`. */
export type WriteKind = 'create' | 'patch' | 'apply';

/** Which generator sends the writes (see the file's header). */
export type LoadClient = 'raw' | 'http';

/** What one load run is asked to do. */
export interface LoadJob {
  /** Port on 127.0.0.1 (plain HTTP). */
  port: number;
  /** Bearer token sent with every request. */
  token: string;
  kind: WriteKind;
  /** Namespace of the ConfigMaps. */
  ns: string;
  /** Index of the first ConfigMap (`cm-<from>`). */
  from: number;
  /** Number of writes. */
  count: number;
  /** Connections, each with one request in flight. */
  inFlight: number;
  client: LoadClient;
}

/** What the worker reports back. */
export interface LoadReport {
  /** Writes per second of the timed phase (answered with the expected status only). */
  rate: number;
  /** CPU microseconds per request of the client thread during the timed phase. */
  cpuUs: number;
  /** Responses whose status was not the expected one. */
  failures: number;
  /** The first few failures, as `METHOD path -> status`. */
  failureSamples: string[];
  /** Set when the client itself failed (connection refused, closed, unparsable response). */
  error?: string;
}

/** The ConfigMap a create sends (also what the API server answers, which sizes the echo's answer). */
export function configMapJson(i: number, ns: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: ns, labels: { app: 'bench', idx: String(i % 10) } },
    data: { key: `value-${i}`, other: 'x'.repeat(64) },
  });
}

interface Write {
  method: string;
  path: string;
  contentType: string;
  body: string;
  ok: number;
}

/** The i-th write of a kind: method, path, content type, body and the status that means success. */
export function writeOf(kind: WriteKind, ns: string, i: number): Write {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  if (kind === 'create')
    return {
      method: 'POST',
      path: base,
      contentType: 'application/json',
      body: configMapJson(i, ns),
      ok: 201,
    };
  if (kind === 'patch')
    return {
      method: 'PATCH',
      path: `${base}/cm-${i}`,
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ data: { key: `patched-${i}` } }),
      ok: 200,
    };
  return {
    method: 'PATCH',
    path: `${base}/cm-${i}?fieldManager=bench`,
    contentType: 'application/apply-patch+yaml',
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}` },
      data: { applied: `v-${i}` },
    }),
    ok: 200,
  };
}

/** One HTTP/1.1 request as the bytes sent on the socket. */
function requestBytes(w: Write, token: string): Buffer {
  const body = Buffer.from(w.body, 'utf8');
  const head =
    `${w.method} ${w.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
    `Accept: application/json\r\nContent-Type: ${w.contentType}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

const CRLF = Buffer.from('\r\n', 'latin1');
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
/** The Content-Length header as servers spell it (Node keeps the case a handler gives). */
const CONTENT_LENGTH = [
  Buffer.from('\r\ncontent-length:', 'latin1'),
  Buffer.from('\r\nContent-Length:', 'latin1'),
];
const EMPTY = Buffer.alloc(0);

/** The decimal number at `at` in `b` (spaces first skipped), or NaN when there is none. */
function decimalAt(b: Buffer, at: number, end: number): number {
  while (at < end && b[at] === 0x20) at++;
  let n = 0;
  let digits = 0;
  for (; at < end && b[at] >= 0x30 && b[at] <= 0x39; at++, digits++) n = n * 10 + (b[at] - 0x30);
  return digits === 0 ? NaN : n;
}

/**
 * Minimal HTTP/1.1 response reader for one keep-alive connection with one request in flight:
 * `push` takes the bytes read and returns the status of a response once it is complete (its body
 * skipped), or -1 while more bytes are needed. Throws on what it cannot read. It reads the head's
 * bytes in place (no strings, no copies unless a response spans reads), so that it costs the client
 * as little CPU as possible: on this machine the client and the server share a core in practice.
 */
class ResponseReader {
  private buf: Buffer = EMPTY;
  /** Where the unread part of `buf` starts. */
  private at = 0;
  private status = 0;
  /** -2: reading the head; >= 0: body bytes still to skip; -1: chunked body. */
  private remaining = -2;

  push(chunk: Buffer): number {
    const status = this.read(chunk);
    // more bytes needed: keep a copy of what is left, as `chunk` is the socket's reused read buffer
    if (status < 0) {
      this.buf = Buffer.from(this.buf.subarray(this.at));
      this.at = 0;
    }
    return status;
  }

  private read(chunk: Buffer): number {
    if (this.at >= this.buf.length) {
      this.buf = chunk;
      this.at = 0;
    } else {
      this.buf = Buffer.concat([this.buf.subarray(this.at), chunk]);
      this.at = 0;
    }
    const b = this.buf;
    if (this.remaining === -2) {
      const end = b.indexOf(HEAD_END, this.at);
      if (end < 0) return -1;
      // "HTTP/1.1 201 Created": the status is bytes 9-11
      this.status = decimalAt(b, this.at + 9, this.at + 12);
      if (!(this.status >= 100))
        throw new Error(`unreadable status line: ${b.toString('latin1', this.at, this.at + 40)}`);
      let cl = -1;
      for (const name of CONTENT_LENGTH) {
        const i = b.indexOf(name, this.at);
        if (i >= 0 && i < end) {
          cl = i + name.length;
          break;
        }
      }
      if (cl >= 0) this.remaining = decimalAt(b, cl, end);
      else {
        const head = b.toString('latin1', this.at, end).toLowerCase();
        if (/\r\ncontent-length:/.test(head))
          this.remaining = parseInt(head.slice(head.indexOf('\r\ncontent-length:') + 17), 10);
        else if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) this.remaining = -1;
        else throw new Error(`response without Content-Length or chunked body: ${head.slice(0, 200)}`);
      }
      if (Number.isNaN(this.remaining))
        throw new Error(`bad Content-Length: ${b.toString('latin1', this.at, Math.min(end, this.at + 200))}`);
      this.at = end + 4;
    }
    if (this.remaining >= 0) {
      if (b.length - this.at < this.remaining) return -1;
      return this.done(this.at + this.remaining);
    }
    // chunked: skip chunks until the last (size 0) and its final CRLF (no trailers expected)
    for (;;) {
      const eol = b.indexOf(CRLF, this.at);
      if (eol < 0) return -1;
      const size = parseInt(b.toString('latin1', this.at, eol), 16);
      if (Number.isNaN(size)) throw new Error(`bad chunk size: ${b.toString('latin1', this.at, eol)}`);
      const total = eol + 2 + size + 2;
      if (b.length < total) return -1;
      if (size === 0) return this.done(total);
      this.at = total;
    }
  }

  /** A response ended at `end` of the buffer: it must be all that was read (one request in flight). */
  private done(end: number): number {
    if (this.buf.length !== end)
      throw new Error(`${this.buf.length - end} bytes after a response with one request in flight`);
    this.buf = EMPTY;
    this.at = 0;
    this.remaining = -2;
    return this.status;
  }
}

/** Size of each connection's read buffer (a response is far smaller; a larger one spans reads). */
const READ_BUFFER = 64 * 1024;

/**
 * A keep-alive connection whose reads go into one buffer of its own, reused for every read, and are
 * handed to `onData` as a view of the bytes read (valid only during the call): no allocation and no
 * stream 'data' event per read.
 */
function connect(port: number, onData: (bytes: Buffer) => void): Promise<net.Socket> {
  const buffer = Buffer.allocUnsafe(READ_BUFFER);
  return new Promise((resolve, reject) => {
    const onread = {
      buffer,
      callback: (n: number): boolean => {
        onData(buffer.subarray(0, n));
        return true;
      },
    };
    const s = net.connect({ host: '127.0.0.1', port, noDelay: true, onread }, () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
}

async function rawLoad(job: LoadJob): Promise<LoadReport> {
  const writes = Array.from({ length: job.count }, (_, k) => writeOf(job.kind, job.ns, job.from + k));
  const bytes = writes.map((w) => requestBytes(w, job.token));
  const ok = writes[0]?.ok ?? 200;
  // each connection hands its reads to the handler its driver installs
  const conns = await Promise.all(
    Array.from({ length: job.inFlight }, async () => {
      const c = { onData: (_bytes: Buffer): void => undefined, socket: undefined as unknown as net.Socket };
      c.socket = await connect(job.port, (bytes) => c.onData(bytes));
      return c;
    }),
  );
  const sockets = conns.map((c) => c.socket);
  let next = 0;
  let failures = 0;
  const failureSamples: string[] = [];
  const drive = (c: (typeof conns)[number]): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = c.socket;
      const reader = new ResponseReader();
      let current = -1;
      let finished = false;
      const send = (): void => {
        if (next >= job.count) {
          finished = true;
          resolve();
          return;
        }
        current = next++;
        s.write(bytes[current]);
      };
      c.onData = (chunk: Buffer): void => {
        let status: number;
        try {
          status = reader.push(chunk);
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
          s.destroy();
          return;
        }
        if (status < 0) return;
        if (status !== ok) {
          failures++;
          if (failureSamples.length < 5)
            failureSamples.push(`${writes[current].method} ${writes[current].path} -> ${status}`);
        }
        send();
      };
      s.on('error', reject);
      s.on('close', () => {
        if (!finished) reject(new Error(`connection closed by the server during request ${current}`));
      });
      send();
    });
  return timed(job, async () => {
    try {
      await Promise.all(conns.map(drive));
    } finally {
      for (const s of sockets) s.destroy();
    }
    return { failures, failureSamples };
  });
}

/** Runs `load` and reports its rate of successful writes and this thread's CPU per write. */
async function timed(
  job: LoadJob,
  load: () => Promise<Pick<LoadReport, 'failures' | 'failureSamples'>>,
): Promise<LoadReport> {
  const cpu0 = process.threadCpuUsage();
  const t0 = process.hrtime.bigint();
  const { failures, failureSamples } = await load();
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.threadCpuUsage(cpu0);
  return {
    rate: (job.count - failures) / secs,
    cpuUs: (cpu.user + cpu.system) / job.count,
    failures,
    failureSamples,
  };
}

async function httpLoad(job: LoadJob): Promise<LoadReport> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.inFlight });
  let failures = 0;
  const failureSamples: string[] = [];
  const send = (i: number): Promise<void> => {
    const w = writeOf(job.kind, job.ns, i);
    return new Promise((resolve, reject) => {
      const headers = {
        authorization: `Bearer ${job.token}`,
        accept: 'application/json',
        'content-type': w.contentType,
        'content-length': String(Buffer.byteLength(w.body)),
      };
      const req = http.request(
        { host: '127.0.0.1', port: job.port, method: w.method, path: w.path, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== w.ok) {
              failures++;
              if (failureSamples.length < 5)
                failureSamples.push(`${w.method} ${w.path} -> ${res.statusCode}`);
            }
            resolve();
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(w.body);
    });
  };
  let next = job.from;
  const end = job.from + job.count;
  const one = async (): Promise<void> => {
    while (next < end) await send(next++);
  };
  return timed(job, async () => {
    try {
      await Promise.all(Array.from({ length: job.inFlight }, one));
    } finally {
      agent.destroy();
    }
    return { failures, failureSamples };
  });
}

/** Marks the worker data of this module's worker (the bench may start other workers). */
interface WorkerData {
  apiserverLoad: true;
}

/** The one load worker of this process, started by the first {@link runLoad}. */
let loadWorker: Worker | undefined;

/**
 * Runs one load job in the load worker thread and returns its report with the CPU microseconds per
 * request this (the server's) thread spent meanwhile. Rejects when the client failed; a report with
 * `failures > 0` is returned as is (the caller fails the bench on it).
 *
 * Every job runs in the same worker, started by the first job and kept until
 * {@link stopLoadWorker}: a worker is a V8 isolate of its own, so a fresh worker per job ran the
 * client's code (and node:net's, which the worker has its own copy of) cold, unoptimized, in the timed
 * phase, and the server's thread paid the worker's start and termination in its CPU figure. The
 * bench's unmeasured writes warm the client's code with the server's, for the echo and the API server
 * alike.
 */
export async function runLoad(job: LoadJob): Promise<LoadReport & { serverCpuUs: number }> {
  if (loadWorker === undefined) {
    loadWorker = new Worker(new URL(import.meta.url), {
      workerData: { apiserverLoad: true } satisfies WorkerData,
    });
  }
  const worker = loadWorker;
  const cpu0 = process.threadCpuUsage();
  let report: LoadReport;
  try {
    report = await new Promise<LoadReport>((resolve, reject) => {
      const onMessage = (r: LoadReport): void => {
        off();
        resolve(r);
      };
      const onError = (e: Error): void => {
        off();
        reject(e);
      };
      const onExit = (code: number): void => {
        off();
        reject(new Error(`load worker exited (code ${code}) before reporting`));
      };
      const off = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        // an idle worker does not keep the process alive (stopLoadWorker ends it); a busy one does
        worker.unref();
      };
      worker.ref();
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage(job);
    });
  } catch (e) {
    // a worker that failed is not reused
    if (loadWorker === worker) loadWorker = undefined;
    await worker.terminate();
    throw e;
  }
  const cpu = process.threadCpuUsage(cpu0);
  if (report.error !== undefined)
    throw new Error(`load client (${job.client}, ${job.kind}): ${report.error}`);
  return { ...report, serverCpuUs: (cpu.user + cpu.system) / job.count };
}

/** Ends the load worker (if one was started); the next {@link runLoad} starts a new one. */
export async function stopLoadWorker(): Promise<void> {
  const worker = loadWorker;
  loadWorker = undefined;
  await worker?.terminate();
}

if (!isMainThread && (workerData as Partial<WorkerData> | null)?.apiserverLoad === true) {
  // one job at a time: the main thread waits for each report before it posts the next job
  parentPort?.on('message', (job: LoadJob) => {
    (job.client === 'raw' ? rawLoad(job) : httpLoad(job)).then(
      (r) => parentPort?.postMessage(r),
      (e: unknown) =>
        parentPort?.postMessage({
          rate: 0,
          cpuUs: 0,
          failures: 0,
          failureSamples: [],
          error: String((e instanceof Error && e.stack) || e),
        } satisfies LoadReport),
    );
  });
}
