import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject } from '../../types.js';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  SERVER_VERSION,
} from '../discovery/discovery.js';
import { errors, PageNotFound } from '../common/errors.js';
import { builtinOpenApiV3 } from '../openapi/openapi.js';
import { openApiV2Answer } from '../openapi/openapi-v2.js';
import type { HandlerDeps } from './resource-handler.js';
import { sendJson } from './resource-handler.js';
import type { CompiledCrd } from '../common/peers.js';

const AGGREGATED = /as=APIGroupDiscoveryList/;

function compiledCrds(deps: HandlerDeps): CompiledCrd[] {
  const crd = deps.peers.crd;
  const out: CompiledCrd[] = [];
  for (const o of deps.store.list('apiextensions.k8s.io/customresourcedefinitions')) {
    try {
      out.push(crd.compileCrd(o));
    } catch {
      // an uncompilable CRD is not served and has no schema
    }
  }
  return out;
}

function openApiV2(deps: HandlerDeps): JsonObject {
  return deps.peers.crd.buildOpenApiV2(compiledCrds(deps), { infoVersion: SERVER_VERSION.gitVersion });
}

function gvPaths(deps: HandlerDeps): string[] {
  const out: string[] = [];
  for (const g of deps.registry.groups())
    for (const v of g.versions) out.push(g.name === '' ? `api/${v}` : `apis/${g.name}/${v}`);
  return out;
}

/** Serves discovery, OpenAPI, version and health endpoints. */
export async function handleNonResource(
  deps: HandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  hostPort: string,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed();
  const p = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const accept = req.headers.accept ?? '';
  if (/^\/(healthz|livez|readyz)(\/.*)?$/.test(p)) {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return;
  }
  if (p === '/version') return sendJson(res, 200, SERVER_VERSION);
  // service account issuer discovery (pkg/serviceaccount/openidmetadata.go)
  if (p === '/.well-known/openid-configuration' && deps.serviceAccountTokens) {
    const scheme = req.socket && 'encrypted' in req.socket ? 'https' : 'http';
    return sendTyped(
      res,
      'application/json',
      deps.serviceAccountTokens.openIdConfiguration(`${scheme}://${hostPort}`),
    );
  }
  if (p === '/openid/v1/jwks' && deps.serviceAccountTokens)
    return sendTyped(res, 'application/jwk-set+json', deps.serviceAccountTokens.jwks());
  if ((p === '/api' || p === '/apis') && AGGREGATED.test(accept)) {
    const v = /v=v2beta1/.test(accept) && !/v=v2;/.test(accept) ? 'v2beta1' : 'v2';
    const body = JSON.stringify(aggregatedDiscovery(deps.registry, p === '/api', `apidiscovery.k8s.io/${v}`));
    res.writeHead(200, {
      'Content-Type': `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`,
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  if (p === '/api') return sendJson(res, 200, apiVersions(hostPort));
  if (p === '/apis') return sendJson(res, 200, apiGroupList(deps.registry));
  let m = /^\/api\/([^/]+)$/.exec(p);
  if (m) {
    const list = apiResourceList(deps.registry, '', m[1]);
    if (list) return sendJson(res, 200, list);
    throw new PageNotFound();
  }
  m = /^\/apis\/([^/]+)$/.exec(p);
  if (m) {
    const g = apiGroup(deps.registry, m[1]);
    if (g) return sendJson(res, 200, g);
    throw new PageNotFound();
  }
  m = /^\/apis\/([^/]+)\/([^/]+)$/.exec(p);
  if (m) {
    const list = apiResourceList(deps.registry, m[1], m[2]);
    if (list) return sendJson(res, 200, list);
    throw new PageNotFound();
  }
  if (p === '/openapi/v2') {
    const answer = openApiV2Answer(deps.registry, openApiV2(deps), accept);
    res.writeHead(200, { 'Content-Type': answer.contentType, 'Content-Length': answer.body.length });
    res.end(answer.body);
    return;
  }
  if (p === '/openapi/v3') {
    const paths: Record<string, JsonObject> = {};
    const built = deps.peers.crd.buildOpenApiV3(compiledCrds(deps), {
      infoVersion: SERVER_VERSION.gitVersion,
    });
    for (const gv of gvPaths(deps))
      paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hashOf(gv, deps)}` };
    for (const [k, v] of Object.entries(built.paths)) paths[k] = v;
    return sendJson(res, 200, { paths });
  }
  m = /^\/openapi\/v3\/(.+)$/.exec(p);
  if (m) {
    const gv = m[1];
    const built = deps.peers.crd.buildOpenApiV3(compiledCrds(deps), {
      infoVersion: SERVER_VERSION.gitVersion,
    });
    const doc = built.document(gv);
    if (doc) return sendJson(res, 200, doc);
    const gm = /^(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(gv);
    const builtin = gm
      ? builtinOpenApiV3(deps.registry, gm[1] ? '' : (gm[2] ?? ''), gm[1] ?? gm[3] ?? '', (n, v) =>
          crdVersionSchema(deps, n, v),
        )
      : undefined;
    if (builtin) return sendJson(res, 200, builtin);
    throw errors.notFound({ group: '', resource: '' });
  }
  // kube-apiserver's NotFound handler: a plain-text 404
  throw new PageNotFound();
}

function sendTyped(res: ServerResponse, contentType: string, body: JsonObject): void {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'public, max-age=3600',
  });
  res.end(text);
}

function hashOf(gv: string, deps: HandlerDeps): string {
  return `${deps.store.currentRv.toString(16)}${gv.length.toString(16)}`.toUpperCase();
}

/** The openAPIV3Schema of one version of a stored CRD. */
function crdVersionSchema(deps: HandlerDeps, crdName: string, version: string): JsonObject | undefined {
  const crd = deps.store.get('apiextensions.k8s.io/customresourcedefinitions', '', crdName);
  const spec = crd?.spec as JsonObject | undefined;
  const versions = Array.isArray(spec?.versions) ? (spec.versions as JsonObject[]) : [];
  const v = versions.find((x) => x.name === version);
  const schema = (v?.schema as JsonObject | undefined)?.openAPIV3Schema;
  return schema !== null && typeof schema === 'object' ? (schema as JsonObject) : undefined;
}
