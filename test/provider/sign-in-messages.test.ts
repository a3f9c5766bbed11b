/**
 * Sign-in messages as dapps send them and servers check them: Auro's documented sign-in text (several lines, about
 * 300 bytes) and `signJsonMessage` entries, verified by a server over real HTTP on loopback with mina-signer against
 * the server's own text, as Auro's docs teach (howto/verifymessage-in-server-side.md). On a Ledger with the
 * extension's SIGN_TEXT the signature is of the text itself, so the server says yes; on the released app, INS 05
 * signs `"Message : " + text` of at most 65 bytes: a short text works (`data` is what was signed), a sign-in text is
 * refused at once with the reason, before the device is even waited for.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Client from 'mina-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SoftwareLedgerOptions } from '../../src/emulator.js';
import type { LedgerProvider, SignedMessage } from '../../src/index.js';
import { providerFailure as failure, settled } from '../support/provider-failure.js';
import { ORIGIN, connectedProvider } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const PAGE = `${ORIGIN}/`;
const testnet = new Client({ network: 'testnet' });

/** Auro's sign-in text (aurowallet/docs howto/sign-message.md), as the page builds it. */
const signInText = (href: string, account: string, iat: number) => `Click "Sign" to sign in. No password needed!

This request will not trigger a blockchain transaction or cost any gas fees.

I accept the Auro Test zkApp Terms of Service: ${href}

address: ${account}
iat: ${iat}`;

/** Auro's signJsonMessage entries (the same page), `Issued At` a number as the docs have it. */
const signInEntries = (href: string, iat: number) => [
  { label: 'Label:', value: 'Sign Confirm' },
  { label: 'Message:', value: 'Click to sign in and accept the Terms of Service' },
  { label: 'URI:', value: href },
  { label: 'Chain ID:', value: 'mina:devnet' },
  { label: 'Chain Name:', value: 'Devnet' },
  { label: 'Issued At:', value: iat },
  { label: 'Resources:', value: 'https://docs.aurowallet.com/' },
];

/**
 * The dapp's server: issues a challenge (the `iat` it will expect), and on login rebuilds the text itself and checks
 * the signature with mina-signer (devnet: the testnet domain). It never trusts a text the page sends back.
 */
function startServer(): Promise<{ url: string; server: Server }> {
  const issued = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    const answer = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.url === '/challenge') {
      const iat = 1_700_000_000_000 + issued.size;
      issued.set(body.address, iat);
      return answer({ iat });
    }
    const iat = issued.get(body.publicKey);
    if (iat === undefined) return answer({ ok: false });
    const data = req.url === '/login' ? signInText(PAGE, body.publicKey, iat) : JSON.stringify(signInEntries(PAGE, iat));
    return answer({ ok: testnet.verifyMessage({ data, publicKey: body.publicKey, signature: body.signature }) });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })),
  );
}

let server: { url: string; server: Server };
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => new Promise<void>((resolve) => server.server.close(() => resolve())));

const post = async (path: string, body: unknown) =>
  (
    await fetch(`${server.url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
  ).json();

/** The page's sign-in, as Auro's docs write it: the text with the server's iat, `window.mina.signMessage`, then a POST. */
async function signIn(chain: LedgerProvider): Promise<{ ok: boolean; result: SignedMessage }> {
  const [account] = await chain.requestAccounts();
  const { iat } = await post('/challenge', { address: account });
  const result = await chain.signMessage({ message: signInText(PAGE, account!, iat) });
  // The docs' server example verifies with its own string: the page sends only the key and the signature.
  const { ok } = await post('/login', { publicKey: result.publicKey, signature: result.signature });
  return { ok, result };
}

/** The same with Auro's `signJsonMessage`. */
async function signInJson(chain: LedgerProvider): Promise<{ ok: boolean; result: SignedMessage }> {
  const [account] = await chain.requestAccounts();
  const { iat } = await post('/challenge', { address: account });
  const result = await chain.signJsonMessage({ message: signInEntries(PAGE, iat) });
  const { ok } = await post('/login-json', { publicKey: result.publicKey, signature: result.signature });
  return { ok, result };
}

const extension: SoftwareLedgerOptions = { extensions: true };
/** The released Mina app's instructions for messages (INS 05): the app with no extension, or one before 1.2. */
const released: SoftwareLedgerOptions = { extensions: false };

describe('sign-in with the extension (SIGN_TEXT): the server verifies the signature against its own text', () => {
  it("Auro's documented sign-in text (several lines, ~280 bytes): the server says yes; data is the text itself", async () => {
    const { chain, reviews } = await connectedProvider(extension);
    const { ok, result } = await signIn(chain);
    expect(ok).toBe(true);
    expect(result.data).toMatch(/^Click "Sign" to sign in\. No password needed!\n\n/);
    expect(new TextEncoder().encode(result.data).length).toBeGreaterThan(250);
    // The user saw the text, with the page that asked for it.
    const review = reviews.at(-1)!;
    expect(review.kind).toBe('text');
    expect(review.screens.some((s) => s.title === 'Requested by' && s.text === ORIGIN)).toBe(true);
  });

  it("Auro's documented signJsonMessage entries (JSON text of ~300 bytes): the server says yes", async () => {
    const { chain } = await connectedProvider(extension);
    const { ok, result } = await signInJson(chain);
    expect(ok).toBe(true);
    expect(JSON.parse(result.data)).toEqual(signInEntries(PAGE, JSON.parse(result.data)[5].value));
  });

  it("Auro's test dapp's token submit: signs JSON.stringify(input), then verifyMessage with its own source text → true", async () => {
    const { chain } = await connectedProvider(extension);
    const source = 'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzV';
    const { publicKey, signature } = await chain.signMessage({ message: JSON.stringify(`  ${source} `.trim()) });
    expect(await chain.verifyMessage({ publicKey, signature, data: JSON.stringify(source) })).toBe(true);
  });
});

describe('the released app (INS 05): short texts as today, sign-in texts refused at once with the reason', () => {
  it('a text within 65 printable ASCII bytes is signed; data is the text the device signed, "Message : " + text', async () => {
    const { chain } = await connectedProvider(released);
    const result = await chain.signMessage({ message: 'Sign in to dapp.example' });
    expect(result.data).toBe('Message : Sign in to dapp.example');
    expect(testnet.verifyMessage(result)).toBe(true);
  });

  it.each([
    ['signMessage', signIn],
    ['signJsonMessage', signInJson],
  ])('%s of a sign-in text: 20006 saying why and what would sign it, nothing sent, never pending', async (_method, flow) => {
    const { chain, ledger } = await connectedProvider(released);
    const before = ledger.exchanges.length;
    const error = await failure(flow(chain));
    expect(error).toMatchObject({
      code: 20006,
      data: {
        reason: expect.stringMatching(/1 to 65 printable ASCII bytes \(INS 05\).*extension 1\.2 \(SIGN_TEXT\) signs 1 to 1024 bytes/),
      },
    });
    expect(ledger.exchanges.length).toBe(before);
  });

  it('a message (or fields) the device cannot sign is refused before the call waits for the device (another call holds it)', async () => {
    let release: (answer: boolean) => void = () => {};
    let shown: () => void = () => {};
    const onScreen = new Promise<void>((resolve) => (shown = resolve));
    const { chain } = await connectedProvider({
      ...released,
      // The connect's address review is approved at once; the message's waits for the user.
      approve: (review) => {
        if (review.kind !== 'message') return true;
        shown();
        return new Promise<boolean>((resolve) => (release = resolve));
      },
    });
    const first = chain.signMessage({ message: 'first' });
    await onScreen; // the device is held by the first call, waiting for the user
    const long = [{ label: 'Message:', value: 'Click to sign in and accept the Terms of Service of dapp.example' }];
    expect(await settled(chain.signJsonMessage({ message: long }))).toMatchObject({ error: { code: 20006 } });
    expect(await settled(chain.signMessage({ message: 'é' }))).toMatchObject({ error: { code: 20006 } });
    // The same for field lists: several fields need SIGN_FIELDS, 65 are more than any device signs at once.
    expect(await settled(chain.signFields({ message: ['1', '2'] }))).toMatchObject({ error: { code: 20006 } });
    expect(await settled(chain.signFields({ message: Array.from({ length: 65 }, (_, i) => String(i)) }))).toMatchObject({
      error: { code: 20006 },
    });
    release(true);
    expect((await first).data).toBe('Message : first');
  });
});

describe('what a dapp gets on each device, by the text', () => {
  it.each([
    ['short ASCII', 'hello', 'Message : hello', 'hello'],
    ['66 bytes', 'a'.repeat(66), 20006, 'a'.repeat(66)],
    ['non-ASCII', 'Café ☕', 20006, 'Café ☕'],
    ['a sign-in text', signInText(PAGE, addressOf(0), 1), 20006, signInText(PAGE, addressOf(0), 1)],
  ])(
    '%s: the released app signs "Message : " + text or refuses (20006); SIGN_TEXT signs the text itself',
    async (_what, message, onReleased, onExtension) => {
      const a = await connectedProvider(released);
      const b = await connectedProvider(extension);
      const r = await settled(a.chain.signMessage({ message }));
      if (typeof onReleased === 'number') expect(r).toMatchObject({ error: { code: onReleased } });
      else expect(r).toMatchObject({ value: { data: onReleased } });
      const signed = await b.chain.signMessage({ message });
      expect(signed.data).toBe(onExtension);
      expect(testnet.verifyMessage(signed)).toBe(true);
    },
  );
});
