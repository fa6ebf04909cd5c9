/**
 * One HTTPS POST to a webhook (admission or conversion) with its CA bundle and timeout. Failures
 * are worded as kube-apiserver's Go client words them (`Post "https://...": context deadline
 * exceeded`), because users compare them with what a cluster prints.
 */
import { Agent, request } from 'node:https';
import type { ClientRequest } from 'node:http';
import type { WebhookClientConfig } from './webhook-configuration.js';

/** Why a webhook could not be called or answered nonsense; `message` is the text after "failed to call webhook: ". */
export class WebhookCallError extends Error {
  /** Stable error code. */
  readonly code = 'WebhookCallFailed';
  /** Whether the call ran out of time. */
  readonly timedOut: boolean;

  constructor(message: string, timedOut: boolean, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'WebhookCallError';
    this.timedOut = timedOut;
  }
}

/** Idle keep-alive connections to a webhook are closed after this long. */
const IDLE_MS = 5_000;
/** Keep-alive agents per webhook origin and CA bundle: a TLS handshake per call would dominate. */
const agents = new Map<string, Agent>();

function agentFor(u: URL, ca: string | undefined): Agent {
  const key = `${u.origin}\n${ca ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      keepAlive: true,
      timeout: IDLE_MS,
      maxSockets: 32,
      ...(ca !== undefined ? { ca } : {}),
    });
    agents.set(key, agent);
  }
  return agent;
}

/** The URL kube-apiserver posts to: the configured URL with `?timeout=Ns`. */
export function webhookUrl(cc: WebhookClientConfig, timeoutSeconds: number): string {
  if (cc.url === undefined) {
    const s = cc.service;
    const where = s ? `service ${s.namespace}/${s.name}` : 'no url';
    throw new WebhookCallError(
      `${where}: the in-memory API server reaches webhooks only by clientConfig.url (set url: https://127.0.0.1:<port>/<path>)`,
      false,
    );
  }
  const u = new URL(cc.url);
  u.searchParams.set('timeout', `${timeoutSeconds}s`);
  return u.toString();
}

function goError(e: NodeJS.ErrnoException, host: string): string {
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${host}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'ENOTFOUND':
      return `dial tcp: lookup ${host.replace(/:\d+$/, '')}: no such host`;
    // no chain to a trusted root; the last three: a caBundle that does not sign the certificate
    // (another CA, possibly of the same name), where Go finds no chain either
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'CERT_SIGNATURE_FAILURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${host.replace(/:\d+$/, '')}`;
    default:
      return e.message;
  }
}

/**
 * Posts `body` as JSON and returns the parsed answer.
 * @throws WebhookCallError when the webhook is unreachable, too slow, answers a non-2xx status or no JSON.
 */
export function postToWebhook(
  cc: WebhookClientConfig,
  body: unknown,
  timeoutSeconds: number,
): Promise<unknown> {
  let url: string;
  try {
    url = webhookUrl(cc, timeoutSeconds);
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
  const u = new URL(url);
  const post = `Post ${JSON.stringify(url)}`;
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    let settled = false;
    let req: ClientRequest | undefined;
    const fail = (message: string, timedOut: boolean, cause?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new WebhookCallError(`${post}: ${message}`, timedOut, cause));
    };
    const timer = setTimeout(() => {
      fail('context deadline exceeded', true);
      req?.destroy();
    }, timeoutSeconds * 1000);
    timer.unref();
    const attempt = (retry: boolean): void => {
      const r = request(
        u,
        {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json',
            'Content-Length': payload.length,
          },
          agent: agentFor(u, cc.caBundle),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => fail(goError(e, u.host), false, e));
          res.on('end', () => {
            if (settled) return;
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) {
              fail(
                `an error on the server (${JSON.stringify(text.trim() || 'unknown')}) has prevented the request from succeeding`,
                false,
              );
              return;
            }
            try {
              const parsed: unknown = JSON.parse(text);
              settled = true;
              clearTimeout(timer);
              resolve(parsed);
            } catch (e) {
              fail(`the response is not JSON: ${(e as Error).message}`, false, e);
            }
          });
        },
      );
      req = r;
      r.on('error', (e: NodeJS.ErrnoException) => {
        // a kept-alive connection the webhook server closed meanwhile: once more on a new one
        if (retry && r.reusedSocket && e.code === 'ECONNRESET' && !settled) attempt(false);
        else fail(goError(e, u.host), false, e);
      });
      r.end(payload);
    };
    attempt(true);
  });
}
