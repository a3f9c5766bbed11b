/**
 * The credential-store tests' fixtures (test/credentials/store.test.ts, file-store.test.ts): two accounts, two
 * secrets, a native credential as mina-attestations writes it, numbered copies of it, and the check for a
 * `CredentialStoreError` of a given kind.
 */
import { expect } from 'vitest';
import { type CredentialStoreError, isCredentialStoreError } from '../../src/credentials-node.js';

export const ALICE = 'B62qo6wASdEftjuRPaoxxcqqCFteG4SD36SeTkfZKzR98UyLZJa3chs';
export const BOB = 'B62qqWPZ9omDuiVY771CR5v3yr8WXKdRfjmQmmfPmSbVEhJSxdqYjVh';
export const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
export const OTHER_SECRET = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);

/** A native credential as mina-attestations' Credential.toJSON writes it (o1js 2.15, mina-attestations 0.5.3). */
export const TEMPLATE = {
  version: 'v0',
  witness: {
    type: 'native',
    issuer: { _type: 'PublicKey', value: ALICE },
    issuerSignature: {
      _type: 'Signature',
      value: {
        r: '6264206143022346448649748733734471911540339011750047316127308338087070164098',
        s: '1096678757410869800845917431776129658351636325031687987398557470051787300888',
      },
    },
  },
  credential: {
    owner: { _type: 'PublicKey', value: BOB },
    data: { nationality: { _type: 'Field', value: '276' }, age: { _type: 'Field', value: '31' } },
  },
};
/** Credential number `serial` (the placeholder is replaced the same way by the child processes below). */
export const SERIAL_PLACEHOLDER = '__SERIAL__';
export const TEMPLATE_TEXT = JSON.stringify({
  ...TEMPLATE,
  credential: { ...TEMPLATE.credential, data: { ...TEMPLATE.credential.data, serial: { _type: 'Field', value: SERIAL_PLACEHOLDER } } },
});
export const credential = (serial: string | number) => TEMPLATE_TEXT.replace(SERIAL_PLACEHOLDER, String(serial));

/** Rejects with `kind` as a CredentialStoreError. */
export async function expectKind(promise: Promise<unknown>, kind: CredentialStoreError['kind']): Promise<CredentialStoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isCredentialStoreError(error), `expected a CredentialStoreError, got ${String(error)}`).toBe(true);
  const e = error as CredentialStoreError;
  expect(e).toBeInstanceOf(Error);
  expect(e.name).toBe('CredentialStoreError');
  expect(e.kind, e.message).toBe(kind);
  return e;
}
