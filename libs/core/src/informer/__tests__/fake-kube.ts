import type { ServerResponse } from 'node:http';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { json, ScriptedServer, status } from '../../client/__tests__/scripted-server.js';
import type { RecordedRequest } from '../../client/__tests__/scripted-server.js';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Watcher {
  res: ServerResponse;
  namespace?: string;
}

/** Answers a request instead of the fake when it returns true. */
export type Override = (req: RecordedRequest, res: ServerResponse) => boolean;

/**
 * A scripted ConfigMap API over the scripted server: objects with increasing resourceVersions,
 * paginated lists with continue tokens, watches replaying history after a resourceVersion, and
 * knobs for what the informer must survive (compaction → 410, silent changes, injected answers).
 */
export class FakeKube {
  private rv = 100;
  private uid = 0;
  private compactedBefore = 0;
  readonly objects = new Map<string, V1ConfigMap>();
  private readonly history: Array<{ rv: number; type: EventType; obj: V1ConfigMap }> = [];
  private readonly watchers = new Set<Watcher>();
  /** Consulted in order before the fake answers; remove entries to stop them. */
  readonly overrides: Override[] = [];
  private held?: { answer?: () => void };

  private constructor(readonly server: ScriptedServer) {
    server.handle((req, res) => this.answer(req, res));
  }

  static async start(): Promise<FakeKube> {
    return new FakeKube(await ScriptedServer.start());
  }

  /** Requests seen (lists and watches). */
  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  watchRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.query.get('watch') === 'true');
  }

  listRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.query.get('watch') !== 'true');
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  get resourceVersion(): string {
    return String(this.rv);
  }

  /** Creates or updates a ConfigMap; `silent` keeps it out of open streams (as if they were down). */
  put(
    namespace: string,
    name: string,
    data: Record<string, string> = {},
    opts: { silent?: boolean; labels?: Record<string, string> } = {},
  ): V1ConfigMap {
    const key = `${namespace}/${name}`;
    const old = this.objects.get(key);
    const obj: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace,
        uid: old?.metadata?.uid ?? `uid-${++this.uid}`,
        resourceVersion: String(++this.rv),
        labels: opts.labels,
      },
      data,
    };
    this.objects.set(key, obj);
    this.record(old ? 'MODIFIED' : 'ADDED', obj, opts.silent);
    return obj;
  }

  remove(namespace: string, name: string, opts: { silent?: boolean } = {}): void {
    const key = `${namespace}/${name}`;
    const old = this.objects.get(key);
    if (!old) throw new Error(`no ${key}`);
    this.objects.delete(key);
    const gone = { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv) } };
    this.record('DELETED', gone, opts.silent);
  }

  /**
   * The next list is answered with the state at the time it arrives, but only when `release` is
   * called (a list whose answer is in flight while other things happen).
   */
  holdNextList(): { arrived: () => boolean; release: () => void } {
    const held: { answer?: () => void } = {};
    this.held = held;
    return { arrived: () => held.answer !== undefined, release: () => held.answer?.() };
  }

  /** Old resourceVersions expire: watches from before now get a 410 ERROR event, old continue tokens a 410. */
  compact(): void {
    this.compactedBefore = this.rv;
  }

  /** Writes a raw line to every open watch. */
  sendRaw(line: string): void {
    for (const w of this.watchers) w.res.write(line);
  }

  /** Writes one event to every open watch (e.g. to deliver late a change made with `silent`). */
  sendEvent(type: EventType, obj: V1ConfigMap): void {
    this.sendRaw(`${JSON.stringify({ type, object: obj })}\n`);
  }

  bookmark(): string {
    const version = String(++this.rv);
    this.sendRaw(
      `${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: version } } })}\n`,
    );
    return version;
  }

  sendError(code: number, reason: string): void {
    this.sendRaw(`${JSON.stringify({ type: 'ERROR', object: status(code, reason) })}\n`);
  }

  /** Ends open watches cleanly (as at a server-side timeout). */
  endWatches(): void {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
  }

  /** Cuts open watches (as a crash or proxy reset). */
  dropWatches(): void {
    for (const w of this.watchers) w.res.destroy();
    this.watchers.clear();
  }

  async stop(): Promise<void> {
    this.watchers.clear();
    await this.server.stop();
  }

  private record(type: EventType, obj: V1ConfigMap, silent = false): void {
    const rv = Number(obj.metadata!.resourceVersion);
    this.history.push({ rv, type, obj });
    if (silent) return;
    for (const w of this.watchers) {
      if (!w.namespace || w.namespace === obj.metadata!.namespace) {
        w.res.write(`${JSON.stringify({ type, object: obj })}\n`);
      }
    }
  }

  private answer(req: RecordedRequest, res: ServerResponse): void {
    for (const override of this.overrides) if (override(req, res)) return;
    const match = /^\/api\/v1(?:\/namespaces\/([^/]+))?\/configmaps$/.exec(req.path);
    if (!match) return json(res, 404, status(404, 'NotFound'));
    const namespace = match[1];
    if (req.query.get('watch') === 'true') return this.watch(req, res, namespace);
    const limit = Number(req.query.get('limit') ?? 0);
    const token = req.query.get('continue');
    let offset = 0;
    let listRv = this.rv;
    if (token) {
      const [rv, at] = token.split(':').map(Number);
      if (rv < this.compactedBefore) {
        return json(res, 410, status(410, 'Expired', 'The provided continue parameter is too old'));
      }
      offset = at;
      listRv = rv;
    }
    const all = [...this.objects.values()]
      .filter((o) => !namespace || o.metadata!.namespace === namespace)
      .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
    const page = limit ? all.slice(offset, offset + limit) : all.slice(offset);
    const next = limit && offset + limit < all.length ? `${listRv}:${offset + limit}` : undefined;
    // Lists leave out apiVersion/kind of the items, as the real API does.
    const items = page.map((o) => ({ metadata: o.metadata, data: o.data }));
    const body = {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(listRv), continue: next },
      items,
    };
    const held = this.held;
    if (held) {
      this.held = undefined;
      const snapshot = JSON.stringify(body);
      held.answer = () => json(res, 200, JSON.parse(snapshot));
      return;
    }
    json(res, 200, body);
  }

  private watch(req: RecordedRequest, res: ServerResponse, namespace: string | undefined): void {
    const since = Number(req.query.get('resourceVersion') ?? 0);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    if (since < this.compactedBefore) {
      res.end(
        `${JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', `too old resource version: ${since}`) })}\n`,
      );
      return;
    }
    for (const h of this.history) {
      if (h.rv > since && (!namespace || h.obj.metadata!.namespace === namespace)) {
        res.write(`${JSON.stringify({ type: h.type, object: h.obj })}\n`);
      }
    }
    const watcher = { res, namespace };
    this.watchers.add(watcher);
    res.on('close', () => this.watchers.delete(watcher));
  }
}
