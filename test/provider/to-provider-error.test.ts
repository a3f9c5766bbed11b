/**
 * What a page is told when a call fails (src/provider/to-provider-error.ts): no local path (a store failure gets a
 * generic reason; raw o1js, worker or file-system text keeps only the library's own context) and no URL credential;
 * the detail goes to the host's log (`onHostLog`).
 */
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { createLedgerProvider, credentialManager } from '../../src/index.js';
import { invalidParams, toProviderError } from '../../src/provider/to-provider-error.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { creationFailure, providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
const tempDir = tempDirs('to-provider-error');

let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 120_000);

describe('what pages are told: no local paths, no URL credentials', () => {
  it('a store failure reaches the page as a generic reason; the host log gets the path', async () => {
    const dir = tempDir();
    const logged: string[] = [];
    const ledger = quietLedger();
    const store = new FileCredentialStore(dir);
    const chain = createLedgerProvider({
      transport: ledger,
      network: 'devnet',
      origin: ORIGIN,
      credentialStore: store,
      onHostLog: (m) => logged.push(m),
    });
    await chain.requestAccounts();
    mkdirSync(store.fileOf(ACCOUNT0)); // a directory where the file should be
    const error = await failure(chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) }));
    expect(error).toMatchObject({ code: 22001 });
    expect(JSON.stringify(error)).not.toContain(dir);
    expect(logged.join('\n')).toContain(dir);
  }, 120_000);

  it('raw o1js / worker / file-system text naming local paths: pages get the context, onHostLog the detail', async () => {
    const path = '/home/alice/.cache/o1js/step-pk-credential-0123';
    const raw = `ENOENT: no such file or directory, open '${path}'`;
    const wrapped = toProviderError(
      invalidParams('presentation.presentationRequest', `cannot prepare a presentation for this request: ${raw}`),
    );
    expect(wrapped).toMatchObject({ code: 20003, data: { field: 'presentation.presentationRequest' } });
    expect(wrapped.data!.reason).toMatch(/^cannot prepare a presentation for this request \(.*host's log/);
    expect(JSON.stringify(wrapped)).not.toContain('/home/alice');
    for (const other of [`at file:///home/alice/x.js:1:2`, `C:\\Users\\alice\\AppData\\x.bin missing`]) {
      expect(JSON.stringify(toProviderError(new Error(other)))).not.toContain('alice');
    }
    // Not a local path: URLs (redacted by the GraphQL client) and ordinary text stay as they were.
    for (const plain of ['node at http://127.0.0.1:8080/graphql refused', 'expected 1/2 of the fields', 'Sign fields / Digest']) {
      expect(toProviderError(new Error(plain)).data!.reason).toBe(plain);
    }
    // Through the provider: a store that fails with raw file-system text.
    const logged: string[] = [];
    const inner = new FileCredentialStore(tempDir());
    const chain = createLedgerProvider({
      transport: quietLedger({ extensions: true }),
      network: 'devnet',
      origin: ORIGIN,
      onHostLog: (m) => logged.push(m),
      credentialStore: {
        ...{ add: inner.add.bind(inner), remove: inner.remove.bind(inner) },
        list: async () => {
          throw new Error(raw);
        },
      },
    });
    await chain.requestAccounts();
    const error = await failure(credentialManager(chain).list());
    expect(error).toMatchObject({ code: 22001 });
    expect(JSON.stringify(error)).not.toContain('/home/alice');
    expect(logged.join('\n')).toContain(path);
  });

  it('graphqlUrl with credentials is refused at creation; headers carry them; URLs in reasons are redacted', async () => {
    const ledger = quietLedger({ blindSigning: true });
    for (const graphqlUrl of ['https://operator:S3CRET@node.example/graphql', 'https://operator@node.example/graphql']) {
      expect(
        creationFailure(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, graphqlUrl })),
      ).toMatchObject({
        code: 20003,
        data: { field: 'graphqlUrl' },
      });
    }
    expect(
      creationFailure(() =>
        createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, graphqlHeaders: { 'bad header': 'x' } }),
      ),
    ).toMatchObject({
      code: 20003,
      data: { field: 'graphqlHeaders' },
    });
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(503).end('down');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const chain = createLedgerProvider({
        transport: ledger,
        network: 'devnet',
        origin: ORIGIN,
        graphqlUrl: `http://127.0.0.1:${port}/graphql?apikey=TOKEN-123`,
        graphqlHeaders: { authorization: 'Bearer HEADER-SECRET' },
      });
      await chain.requestAccounts();
      const error = await failure(chain.sendTransaction({ transaction: berkeleyCommand() }));
      expect(seen[0]).toBe('Bearer HEADER-SECRET');
      expect(JSON.stringify(error)).toContain(`127.0.0.1:${port}/graphql`);
      expect(JSON.stringify(error)).not.toContain('TOKEN-123');
      expect(JSON.stringify(error)).not.toContain('HEADER-SECRET');
    } finally {
      server.close();
    }
  });
});
