// Key pairs for the PKI on Node's webcrypto: new keys are ECDSA P-256, but a CA key made elsewhere (openssl, RSA) can still sign.
import { createPrivateKey, webcrypto } from 'node:crypto';
import { AppError } from '../../errors.js';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** Key plus the signature algorithm @peculiar/x509 must use with it (it cannot infer the hash for ECDSA). */
export interface SigningKey {
  key: CryptoKey;
  algorithm: webcrypto.EcdsaParams | webcrypto.Algorithm;
}

// P-256 rather than RSA: generation takes milliseconds (tests and `npm start` make keys often), and the Go
// kube-apiserver's webhook client (crypto/tls) and OpenSSL-based clients both accept ECDSA P-256 serving certs.
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

export async function generateKeyPair(): Promise<{ keys: CryptoKeyPair; signing: SigningKey }> {
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  return { keys, signing: { key: keys.privateKey, algorithm: ECDSA_SHA256 } };
}

/** PKCS#8 ("BEGIN PRIVATE KEY"): the one encoding Node, Go and openssl all read without a key-type hint. */
export async function privateKeyToPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

/** Imports a CA's private key in any PEM form Node reads (PKCS#8, SEC1 "EC PRIVATE KEY", PKCS#1 "RSA PRIVATE KEY"). */
export async function importSigningKey(pem: string): Promise<SigningKey> {
  let keyObject;
  try {
    keyObject = createPrivateKey(pem);
  } catch (cause) {
    throw new AppError('TLS_INVALID', 'the CA private key cannot be read', { cause });
  }
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  const type = keyObject.asymmetricKeyType;
  if (type === 'ec') {
    const curve = keyObject.asymmetricKeyDetails?.namedCurve;
    const named = curve === 'prime256v1' ? 'P-256' : curve === 'secp384r1' ? 'P-384' : undefined;
    if (named === undefined)
      throw new AppError('TLS_INVALID', `the CA key uses curve ${String(curve)}; supported: P-256, P-384`);
    const hash = named === 'P-256' ? 'SHA-256' : 'SHA-384';
    const key = await webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: named }, false, ['sign']);
    return { key, algorithm: { name: 'ECDSA', hash } };
  }
  if (type === 'rsa') {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    const key = await webcrypto.subtle.importKey('pkcs8', der, algorithm, false, ['sign']);
    return { key, algorithm };
  }
  throw new AppError('TLS_INVALID', `the CA key type ${String(type)} is not supported; use ECDSA or RSA`);
}
