// The PKI of the local cluster: one CA, the apiserver's serving cert, an admin client cert, a
// front-proxy client cert and the service-account signing key pair. Generated with openssl (always present, no npm dependency).
// ECDSA P-256 keys: every component accepts them and they are generated in milliseconds.
import { randomBytes } from 'node:crypto';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from '../core/log.js';

export interface CertPaths {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  adminCert: string;
  adminKey: string;
  frontProxyCert: string;
  frontProxyKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

/** Names the apiserver answers to: from the host and, as the `kubernetes` Service, from pods. */
const SERVER_SANS = [
  'DNS:localhost',
  'DNS:kubernetes',
  'DNS:kubernetes.default',
  'DNS:kubernetes.default.svc',
  'DNS:kubernetes.default.svc.cluster.local',
  'IP:127.0.0.1',
  'IP:10.0.0.1', // first address of --service-cluster-ip-range=10.0.0.0/16
];

const DAYS = '3650'; // a dev cluster; expiry checks below regenerate if this ever runs out

export function certPaths(dir: string): CertPaths {
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    serverCert: join(dir, 'apiserver.crt'),
    serverKey: join(dir, 'apiserver.key'),
    adminCert: join(dir, 'admin.crt'),
    adminKey: join(dir, 'admin.key'),
    frontProxyCert: join(dir, 'front-proxy-client.crt'),
    frontProxyKey: join(dir, 'front-proxy-client.key'),
    serviceAccountKey: join(dir, 'sa.key'),
    serviceAccountPub: join(dir, 'sa.pub'),
  };
}

const openssl = (args: string[]) => execa('openssl', args, { stdin: 'ignore' });

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function validForAnotherDay(cert: string): Promise<boolean> {
  const { exitCode } = await execa('openssl', ['x509', '-checkend', '86400', '-noout', '-in', cert], {
    reject: false,
  });
  return exitCode === 0;
}

async function genKey(path: string): Promise<void> {
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path]);
}

/** A leaf cert signed by the CA, with its extensions given as openssl config lines. */
async function signLeaf(p: CertPaths, name: string, subject: string, extensions: string[]) {
  const key = join(p.dir, `${name}.key`);
  const csr = join(p.dir, `${name}.csr`);
  const ext = join(p.dir, `${name}.ext`);
  await genKey(key);
  await writeFile(ext, ['[v3]', ...extensions, ''].join('\n'));
  await openssl(['req', '-new', '-key', key, '-subj', subject, '-out', csr]);
  await openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    p.caCert,
    '-CAkey',
    p.caKey,
    // A random serial instead of -CAcreateserial: no serial file to keep in sync.
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    '-days',
    DAYS,
    '-extfile',
    ext,
    '-extensions',
    'v3',
    '-out',
    join(p.dir, `${name}.crt`),
  ]);
  await Promise.all([rm(csr), rm(ext)]);
}

async function generate(p: CertPaths): Promise<void> {
  await mkdir(p.dir, { recursive: true, mode: 0o700 });
  // Our own config, so the result does not depend on the distribution's openssl.cnf defaults.
  const caConfig = join(p.dir, 'ca.cnf');
  await writeFile(
    caConfig,
    [
      '[req]',
      'distinguished_name = dn',
      'x509_extensions = v3_ca',
      '[dn]',
      '[v3_ca]',
      'basicConstraints = critical, CA:TRUE',
      'keyUsage = critical, keyCertSign, cRLSign, digitalSignature',
      'subjectKeyIdentifier = hash',
      '',
    ].join('\n'),
  );
  await genKey(p.caKey);
  await openssl(['req', '-x509', '-new', '-key', p.caKey, '-config', caConfig, '-subj', '/CN=helmcrew-dev-ca', '-days', DAYS, '-out', p.caCert]);
  const leafUsage = 'keyUsage = critical, digitalSignature, keyEncipherment';
  await Promise.all([
    signLeaf(p, 'apiserver', '/CN=kube-apiserver', [leafUsage, 'extendedKeyUsage = serverAuth', `subjectAltName = ${SERVER_SANS.join(', ')}`]),
    // O=system:masters: the group RBAC always lets do everything.
    signLeaf(p, 'admin', '/O=system:masters/CN=helmcrew-admin', [leafUsage, 'extendedKeyUsage = clientAuth']),
    // The apiserver's identity towards aggregated APIs; with it configured, the apiserver also
    // publishes the request-header CA that controller-manager and scheduler wait for at start-up.
    signLeaf(p, 'front-proxy-client', '/CN=front-proxy-client', [leafUsage, 'extendedKeyUsage = clientAuth']),
    (async () => {
      await genKey(p.serviceAccountKey);
      await openssl(['pkey', '-in', p.serviceAccountKey, '-pubout', '-out', p.serviceAccountPub]);
    })(),
  ]);
}

/** Re-uses the certs in `dir` when complete and not about to expire, else makes new ones. */
export async function ensureCerts(dir: string, log: Logger): Promise<CertPaths> {
  const p = certPaths(dir);
  const all = Object.values(p).filter((v) => v !== dir);
  const complete = (await Promise.all(all.map(exists))).every(Boolean);
  if (complete) {
    const valid = await Promise.all([p.caCert, p.serverCert, p.adminCert].map(validForAnotherDay));
    if (valid.every(Boolean)) return p;
  }
  log.info({ dir }, 'generating certificates');
  await generate(p);
  return p;
}
