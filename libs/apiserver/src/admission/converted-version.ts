/**
 * Requests at a CRD version converted by the CRD's conversion webhook. The request runs at the
 * storage version; bodies are converted to it first, and answers (object, list, Table, watch events)
 * are converted back to the requested version, as kube-apiserver's webhook converter does on every
 * read and write of a non-storage version. A failed conversion is a 500 with kube's text.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject } from '../types.js';
import type { AuthUser } from '../internal/authz/access-review.js';
import { errors } from '../internal/common/errors.js';
import { reportUnknownFields } from '../internal/common/unknown-fields.js';
import { isObject, metaOf, str } from '../internal/common/json.js';
import { mediaType, parseBody, readBody } from '../internal/http/body.js';
import type { ResourceRequestInfo } from '../internal/http/request-info.js';
import type { HandlerDeps } from '../internal/http/resource-handler.js';
import type { ResourceType, ResourceVersion } from '../internal/resources/resource-type.js';
import { apiVersionOf, storageKey, storageVersion } from '../internal/resources/resource-type.js';
import { tableBody } from '../internal/watch/list-watch.js';
import type { IncludeObject } from '../internal/encoding/table.js';
import { addWarningHeaders, CapturedResponse, copyHead, replayRequest } from './captured-http.js';

/** A handler that runs resource requests (the resource handler, or admission in front of it). */
export type ResourceDispatch = (
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  user: AuthUser,
) => Promise<void>;

/** What the converted-version handler needs. */
export interface ConvertedVersionDeps {
  deps: HandlerDeps;
  /** Runs a request at the storage version (with admission). */
  dispatch: ResourceDispatch;
  /** Converts objects to an apiVersion through the CRD's conversion webhook. */
  convert: (objects: JsonObject[], apiVersion: string) => Promise<JsonObject[]>;
}

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };

function include(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

/** Runs `info` at the storage version and returns the captured answer. */
async function runAtStorage(
  c: ConvertedVersionDeps,
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  user: AuthUser,
  body: Buffer,
  headers: Record<string, string> = JSON_HEADERS,
): Promise<{ out: CapturedResponse; text: string }> {
  const out = new CapturedResponse();
  const text = out.text();
  try {
    await c.dispatch(replayRequest(req, body, headers), out.asServerResponse(), info, query, user);
  } catch (e) {
    // the Warning headers set before the error (admission warnings) go with the error answer
    const warning = out.getHeader('warning');
    if (warning !== undefined && !res.headersSent) res.setHeader('Warning', warning);
    throw e;
  }
  return { out, text: await text };
}

/** Sends an answer after converting the objects of the kind in it to `target`. */
async function sendConverted(
  c: ConvertedVersionDeps,
  rt: ResourceType,
  target: string,
  captured: { out: CapturedResponse; text: string },
  res: ServerResponse,
  warnings: readonly string[] = [],
): Promise<void> {
  let body = captured.text;
  const parsed: unknown = body === '' ? undefined : JSON.parse(body);
  if (isObject(parsed) && parsed.kind === rt.kind) {
    body = JSON.stringify((await c.convert([parsed], target))[0]);
  } else if (isObject(parsed) && parsed.kind === rt.listKind && Array.isArray(parsed.items)) {
    parsed.items = await c.convert(parsed.items as JsonObject[], target);
    parsed.apiVersion = target;
    body = JSON.stringify(parsed);
  }
  // the warnings of decoding at the requested version go with those of the write at the storage version
  addWarningHeaders(captured.out, warnings);
  copyHead(captured.out, res, body);
  res.end(body);
}

/**
 * A write's object decoded at the version the client wrote (as kube-apiserver decodes a request at
 * its version, before converting it for storage): fields that version does not know are an error
 * under `fieldValidation=Strict` (what kubectl sends) and warnings under `Warn` (the default), then
 * pruned, and the version's defaults applied. Returns the warnings.
 */
function decodeAtRequested(
  rt: ResourceType,
  version: ResourceVersion,
  obj: JsonObject,
  query: URLSearchParams,
): string[] {
  const policy = query.get('fieldValidation') || 'Warn';
  const warnings: string[] = [];
  if (policy !== 'Ignore')
    reportUnknownFields(rt.kind, version.name, version.unknownFields?.(obj) ?? [], policy, warnings);
  version.decode?.(obj);
  return warnings;
}

/** Handles one request at `version`, a version converted by a conversion webhook. */
export async function handleConvertedVersion(
  c: ConvertedVersionDeps,
  rt: ResourceType,
  version: ResourceVersion,
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  user: AuthUser,
): Promise<void> {
  const storage = storageVersion(rt);
  const storageApi = apiVersionOf(rt.group, storage.name);
  const target = apiVersionOf(rt.group, version.name);
  const at: ResourceRequestInfo = { ...info, version: storage.name };
  const accept = req.headers.accept ?? '';
  if (/as=PartialObjectMetadata/.test(accept)) return c.dispatch(req, res, at, query, user); // metadata needs no conversion
  const table = /as=Table/.test(accept);
  switch (info.verb) {
    case 'get':
    case 'list': {
      const captured = await runAtStorage(c, req, res, at, query, user, Buffer.alloc(0));
      if (!table || captured.out.statusCode >= 300) return sendConverted(c, rt, target, captured, res);
      const parsed = JSON.parse(captured.text) as JsonObject;
      const objects =
        info.verb === 'get' ? [parsed] : Array.isArray(parsed.items) ? (parsed.items as JsonObject[]) : [];
      const converted = await c.convert(objects, target);
      const lm = info.verb === 'list' && isObject(parsed.metadata) ? parsed.metadata : metaOf(parsed);
      const t = tableBody(
        rt,
        version,
        c.deps.peers,
        converted,
        include(query),
        typeof lm.resourceVersion === 'string' ? lm.resourceVersion : undefined,
        typeof lm.continue === 'string' ? lm.continue : undefined,
      );
      const text = JSON.stringify(t);
      copyHead(captured.out, res, text);
      res.end(text);
      return;
    }
    case 'watch':
      return watchConverted(c, rt, target, req, res, at, query, user);
    case 'create':
    case 'update': {
      const body = await readBody(req);
      const media = mediaType(req.headers['content-type']);
      const obj = parseBody(body, media === '' ? 'application/json' : media);
      if (!isObject(obj)) throw errors.badRequest('the body of the request must be a JSON or YAML object');
      if (obj.apiVersion !== undefined && obj.apiVersion !== target) {
        throw errors.badRequest(
          `the API version in the data (${str(obj.apiVersion)}) does not match the expected API version (${target})`,
        );
      }
      obj.apiVersion = target;
      obj.kind ??= rt.kind;
      const warnings = decodeAtRequested(rt, version, obj, query);
      const [stored] = await c.convert([obj], storageApi);
      const captured = await runAtStorage(c, req, res, at, query, user, Buffer.from(JSON.stringify(stored)));
      return sendConverted(c, rt, target, captured, res, warnings);
    }
    case 'patch': {
      const body = await readBody(req);
      const media = mediaType(req.headers['content-type']);
      if (media === 'application/apply-patch+yaml') {
        const applied = parseBody(body, media);
        if (!isObject(applied)) throw errors.badRequest('the apply patch must be a YAML or JSON object');
        if (applied.apiVersion !== target) {
          throw errors.badRequest(
            `the API version in the data (${str(applied.apiVersion)}) does not match the expected API version (${target})`,
          );
        }
        const [inStorage] = await c.convert([applied], storageApi);
        const captured = await runAtStorage(
          c,
          req,
          res,
          at,
          query,
          user,
          Buffer.from(JSON.stringify(inStorage)),
          {
            accept: 'application/json',
            'content-type': media,
          },
        );
        return sendConverted(c, rt, target, captured, res);
      }
      if (media !== 'application/json-patch+json' && media !== 'application/merge-patch+json')
        return c.dispatch(replayRequest(req, body), res, at, query, user); // answered 415 there
      // patch the object at the requested version, then store it as an update at the storage version
      const ns = rt.namespaced ? (info.namespace ?? '') : '';
      const live = c.deps.store.get(storageKey(rt), ns, info.name!);
      if (!live) throw errors.notFound({ group: rt.group, resource: rt.plural, name: info.name! });
      const [current] = await c.convert([live], target);
      const patch = parseBody(body, 'application/json');
      const patched =
        media === 'application/json-patch+json'
          ? c.deps.peers.patch.applyJsonPatch(current, patch)
          : c.deps.peers.patch.applyMergePatch(current, patch);
      const pm = metaOf(patched);
      pm.resourceVersion ??= metaOf(live).resourceVersion;
      const warnings = decodeAtRequested(rt, version, patched, query);
      const [inStorage] = await c.convert([patched], storageApi);
      const put: ResourceRequestInfo = { ...at, verb: 'update' };
      const captured = await runAtStorage(
        c,
        req,
        res,
        put,
        query,
        user,
        Buffer.from(JSON.stringify(inStorage)),
      );
      return sendConverted(c, rt, target, captured, res, warnings);
    }
    default: {
      const captured = await runAtStorage(c, req, res, at, query, user, await readBody(req), {
        accept: 'application/json',
        'content-type': req.headers['content-type'] ?? 'application/json',
      });
      return sendConverted(c, rt, target, captured, res);
    }
  }
}

/** A watch at the storage version whose events are converted one by one, in order. */
async function watchConverted(
  c: ConvertedVersionDeps,
  rt: ResourceType,
  target: string,
  req: IncomingMessage,
  res: ServerResponse,
  at: ResourceRequestInfo,
  query: URLSearchParams,
  user: AuthUser,
): Promise<void> {
  const out = new CapturedResponse();
  let chain: Promise<void> = Promise.resolve();
  let pending = '';
  let failed = false;
  const fail = (e: unknown): void => {
    if (failed) return;
    failed = true;
    const message = e instanceof Error ? e.message : String(e);
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'InternalError',
      code: 500,
    };
    if (!res.writableEnded) res.end(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
    out.destroy();
  };
  out.on('data', (chunk: Buffer | string) => {
    pending += chunk.toString();
    let nl = pending.indexOf('\n');
    while (nl >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      nl = pending.indexOf('\n');
      if (line.trim() === '') continue;
      chain = chain
        .then(async () => {
          if (failed) return;
          const ev = JSON.parse(line) as { type?: string; object?: JsonObject };
          if (ev.object && ev.object.kind === rt.kind) {
            if (ev.type === 'BOOKMARK') ev.object.apiVersion = target;
            else ev.object = (await c.convert([ev.object], target))[0];
          }
          if (!res.writableEnded) res.write(JSON.stringify(ev) + '\n');
        })
        .catch(fail);
    }
  });
  out.on('end', () => {
    void chain.then(() => {
      if (!res.writableEnded) res.end();
    });
  });
  res.on('close', () => out.destroy());
  const wrapped = out as CapturedResponse & { writeHead: CapturedResponse['writeHead'] };
  const writeHead = wrapped.writeHead.bind(out);
  wrapped.writeHead = (status, headers) => {
    writeHead(status, headers);
    res.writeHead(status, headers);
    res.flushHeaders();
    return out;
  };
  await c.dispatch(replayRequest(req, Buffer.alloc(0)), out.asServerResponse(), at, query, user);
}
