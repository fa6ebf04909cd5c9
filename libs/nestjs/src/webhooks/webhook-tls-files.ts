import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { WebhookTls } from './webhook-tls.js';
import { WebhookConfigurationError } from './webhook.errors.js';

/**
 * PEM files the webhook server serves with and reloads when they change: a Secret mounted in the
 * pod (cert-manager's `tls.crt`, `tls.key`, `ca.crt`), which the kubelet updates in place when the
 * certificate is renewed.
 */
export interface WebhookTlsFiles {
  /** Path of the serving certificate (PEM). Required. */
  certFile: string;
  /** Path of its private key (PEM). Required. */
  keyFile: string;
  /** Path of the CA that signed it (PEM), what `caBundle` carries. Defaults to the certificate itself. */
  caFile?: string;
  /** How often the files are read again, in milliseconds. Defaults to 10000. */
  checkIntervalMs?: number;
}

/** Reads the PEM material of `files`; a pair that does not make a TLS context is refused. */
export async function readWebhookTlsFiles(files: WebhookTlsFiles): Promise<WebhookTls> {
  const read = async (path: string, what: string): Promise<string> => {
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      throw new WebhookConfigurationError(
        `cannot read the webhook server's ${what} ${path}: ${(e as Error).message}; check tlsFiles.${what === 'certificate' ? 'certFile' : what === 'key' ? 'keyFile' : 'caFile'} and the mounted Secret`,
        { cause: e },
      );
    }
  };
  const [certPem, keyPem, caPem] = await Promise.all([
    read(files.certFile, 'certificate'),
    read(files.keyFile, 'key'),
    files.caFile === undefined ? Promise.resolve(undefined) : read(files.caFile, 'CA'),
  ]);
  try {
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (e) {
    throw new WebhookConfigurationError(
      `the webhook server's certificate ${files.certFile} and key ${files.keyFile} cannot be served: ${(e as Error).message}`,
      { cause: e },
    );
  }
  return caPem === undefined ? { certPem, keyPem } : { certPem, keyPem, caPem };
}

/**
 * Reads `files` every `checkIntervalMs` and calls `onChange` with new material that can be served;
 * a read that fails (files half replaced) is reported to `onError` once and retried at the next check.
 * @returns a function that stops the checks.
 */
export function watchWebhookTlsFiles(
  files: WebhookTlsFiles,
  current: WebhookTls,
  onChange: (tls: WebhookTls) => void,
  onError: (error: Error) => void,
): () => void {
  let last = current;
  let lastError = '';
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    readWebhookTlsFiles(files)
      .then(
        (tls) => {
          lastError = '';
          if (tls.certPem === last.certPem && tls.keyPem === last.keyPem && tls.caPem === last.caPem) return;
          last = tls;
          onChange(tls);
        },
        (e: unknown) => {
          // reported once while the files stay the same
          if ((e as Error).message !== lastError) onError(e as Error);
          lastError = (e as Error).message;
        },
      )
      .finally(() => {
        busy = false;
      });
  }, files.checkIntervalMs ?? 10_000);
  timer.unref();
  return () => clearInterval(timer);
}
