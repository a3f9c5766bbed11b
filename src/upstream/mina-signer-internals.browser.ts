/**
 * The browser twin of `mina-signer-internals.ts`: `#upstream/mina-signer-internals` under the `browser` condition
 * (package.json "imports"). Same exports, same modules, same two eras (test/architecture.test.ts checks the exports);
 * what differs is how the unexported files are reached: a bundler cannot follow `createRequire` and file URLs, so
 * each file is named by a virtual id `chain-ledger-internal:<package>/<path inside dist/node/mina-signer>` that the
 * Vite plugin (`chain-ledger/vite`) resolves to the installed file (mina-signer 4.0.0 ships no browser build of these
 * files, and its exports map hides them). Each era is a separate lazy chunk, loaded on first use.
 */
import { assemble, type Era, type MinaSignerInternals } from './mina-signer-modules.js';

export type { Era, GroupPoint, LegacyHashInput, Layout, MinaSignerInternals, RawSignature, SignerNetwork } from './mina-signer-modules.js';

export const ERA_PACKAGES: Record<Era, string> = { berkeley: 'mina-signer-berkeley', mesa: 'mina-signer' };

// The ids must stay literal strings so that the bundler sees them: mina-signer-modules.ts INTERNAL_FILES, in order.
const imports: Record<Era, () => Promise<unknown[]>> = {
  berkeley: () =>
    Promise.all([
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer-berkeley/src/sign-zkapp-command.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer-berkeley/src/signature.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer-berkeley/../bindings/mina-transaction/gen/v1/transaction-bigint.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer-berkeley/src/memo.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer-berkeley/src/curve-bigint.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer-berkeley/../bindings/mina-transaction/gen/v1/js-layout.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer-berkeley/src/poseidon-bigint.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer-berkeley/src/field-bigint.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer-berkeley/../bindings/lib/binable.js'
      ),
    ]),
  mesa: () =>
    Promise.all([
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer/src/sign-zkapp-command.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer/src/signature.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer/../bindings/mina-transaction/gen/v1/transaction-bigint.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer/src/memo.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer/src/curve-bigint.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer/../bindings/mina-transaction/gen/v1/js-layout.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer/src/poseidon-bigint.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer/src/field-bigint.js'
      ),
      import(
        'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-signer/../bindings/lib/binable.js'
      ),
    ]),
};

const loaded = new Map<Era, Promise<MinaSignerInternals>>();

export function minaSignerInternals(era: Era): Promise<MinaSignerInternals> {
  let internals = loaded.get(era);
  if (!internals) {
    internals = load(era);
    loaded.set(era, internals);
    internals.catch(() => loaded.delete(era));
  }
  return internals;
}

async function load(era: Era): Promise<MinaSignerInternals> {
  return assemble(await imports[era]());
}
