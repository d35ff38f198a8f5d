// A throwaway certificate authority and a server certificate it signed, made
// with the openssl command, for a test that serves the page over https; and a
// Chromium profile that trusts that authority. Nothing here weakens the
// browser's checks: the page loads only because the profile trusts the
// authority, as a person's browser trusts a real one.
//
// Chromium on Linux takes the authorities a user added from the NSS database
// in $HOME/.pki/nssdb (certutil, Debian's libnss3-tools); launchBrowser gives
// every browser a fresh HOME, so trustAuthority(home, ...) is for it alone.

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const run = (command, args) => execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });

// In `dir`: ca.pem (the authority), server.pem and server.key, a certificate
// for 127.0.0.1 and localhost (subjectAltName IP:127.0.0.1, DNS:localhost),
// valid for two days from now. Returns their paths.
export function makeCertificates(dir) {
  const at = (name) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('openssl', ['req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '2',
    '-subj', '/CN=Go Fish test authority', '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  run('openssl', ['req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=localhost']);
  writeFileSync(at('server.ext'), ['subjectAltName = IP:127.0.0.1, DNS:localhost', 'basicConstraints = critical, CA:FALSE',
    'keyUsage = critical, digitalSignature', 'extendedKeyUsage = serverAuth', ''].join('\n'));
  run('openssl', ['x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'),
    '-CAcreateserial', '-days', '2', '-sha256', '-extfile', at('server.ext'), '-out', at('server.pem')]);
  return { ca: at('ca.pem'), cert: at('server.pem'), key: at('server.key') };
}

// Makes the NSS database of the profile whose HOME is `home` and adds the
// authority in `caPem` to it, trusted to issue server certificates ("C,,").
export function trustAuthority(home, caPem) {
  const db = join(home, '.pki', 'nssdb');
  mkdirSync(db, { recursive: true });
  run('certutil', ['-d', `sql:${db}`, '-N', '--empty-password']);
  run('certutil', ['-d', `sql:${db}`, '-A', '-n', 'gofish-test-ca', '-t', 'C,,', '-i', caPem]);
}
