import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

/** PEM material the webhook server serves with. */
export interface WebhookTls {
  /** The serving certificate (PEM). */
  certPem: string;
  /** Its private key (PEM). */
  keyPem: string;
  /** The CA that signed it (PEM): what `caBundle` carries. Defaults to the certificate itself. */
  caPem?: string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

/**
 * Makes a development CA and a serving certificate signed by it (ECDSA P-256, one year) for
 * 127.0.0.1, ::1, localhost and `hosts`, with @peculiar/x509 (the library @tosdk/apiserver uses for
 * its own CA). For a cluster, bring a certificate (cert-manager) instead.
 */
export async function developmentWebhookTls(hosts: readonly string[] = []): Promise<Required<WebhookTls>> {
  const provider = webcrypto as never;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const [caKeys, keys] = await Promise.all([
    webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']),
    webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']),
  ]);
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      name: 'CN=tosdk-webhook-ca',
      notBefore,
      notAfter,
      signingAlgorithm: ALG,
      keys: caKeys as never,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      ],
    },
    provider,
  );
  const names: { type: 'dns' | 'ip'; value: string }[] = [
    { type: 'ip', value: '127.0.0.1' },
    { type: 'ip', value: '::1' },
    { type: 'dns', value: 'localhost' },
  ];
  for (const h of hosts)
    if (!names.some((n) => n.value === h))
      names.push({ type: /^[\d.]+$|:/.test(h) ? 'ip' : 'dns', value: h });
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: 'CN=tosdk-webhook',
      issuer: ca.subject,
      notBefore,
      notAfter,
      signingAlgorithm: ALG,
      publicKey: keys.publicKey as never,
      signingKey: caKeys.privateKey as never,
      extensions: [
        new x509.SubjectAlternativeNameExtension(names),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      ],
    },
    provider,
  );
  const keyDer = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${(keyDer.match(/.{1,64}/g) ?? []).join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { certPem: cert.toString('pem') + '\n', keyPem, caPem: ca.toString('pem') + '\n' };
}
