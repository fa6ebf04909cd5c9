import { webcrypto } from 'node:crypto';
// @peculiar/x509 resolves its providers through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

/** PEM material for the server: a fresh CA and a server certificate signed by it. */
export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive
  return Buffer.from(bytes).toString('hex');
}

/** Makes a self-signed ECDSA P-256 CA and a server certificate for 127.0.0.1, localhost and ::1. */
export async function generateTls(hosts: readonly string[] = []): Promise<TlsMaterial> {
  const crypto = webcrypto;
  // x509's parameters are typed with the DOM's WebCrypto types, which this Node-only build lacks.
  const provider = webcrypto as never;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const [caKeys, serverKeys] = await Promise.all([
    crypto.subtle.generateKey(ALG, true, ['sign', 'verify']),
    crypto.subtle.generateKey(ALG, true, ['sign', 'verify']),
  ]);
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      name: 'CN=tosdk-apiserver-ca',
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
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '::1' },
  ];
  for (const h of hosts) {
    if (names.some((n) => n.value === h)) continue;
    names.push({ type: /^[\d.]+$|:/.test(h) ? 'ip' : 'dns', value: h });
  }
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: 'CN=tosdk-apiserver',
      issuer: ca.subject,
      notBefore,
      notAfter,
      signingAlgorithm: ALG,
      publicKey: serverKeys.publicKey as never,
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
  const keyDer = await crypto.subtle.exportKey('pkcs8', serverKeys.privateKey);
  return {
    caPem: ca.toString('pem') + '\n',
    certPem: cert.toString('pem') + '\n',
    keyPem: pem('PRIVATE KEY', keyDer),
  };
}
