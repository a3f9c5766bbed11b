/**
 * The wallet methods of a `LedgerProvider` (and of the connector, `chain-ledger/connect`), one per row of the method
 * table (./methods.ts), each with its signature and its documentation. The classes make these methods from the table
 * and declare them by this interface, so an editor's hover on `provider.sendTransaction` and the generated API
 * reference (docs/api) show the text written here. A check at the end keeps the interface and the table together: a
 * method missing, extra or typed otherwise does not compile.
 */
import type { SignedFields } from '../messages/sign-fields.js';
import type { SignedMessage } from '../messages/sign-message.js';
import type { NullifierResult } from '../nullifier/create-nullifier.js';
import type { SignedTransaction } from './sign-only.js';
import type {
  AddChainArgs,
  CreateNullifierArgs,
  RequestContext,
  RequestPresentationArgs,
  RevokePermissionsArgs,
  SendPaymentArgs,
  SendSignedTransactionArgs,
  SendStakeDelegationArgs,
  SendTransactionArgs,
  SendTransactionResultFor,
  SignFieldsArgs,
  SignJsonMessageArgs,
  SignMessageArgs,
  SignTransactionArgs,
  StorePrivateCredentialArgs,
  SwitchChainArgs,
  TableMethods,
  VerifyFieldsArgs,
  VerifyMessageArgs,
} from './rpc.js';

/**
 * What a `LedgerProvider` serves for the wallet methods (`chain_…`, `mina_…`, `wallet_…`), called directly as
 * `(args, context?)`, or `(context?)` for a method without params. Every promise rejects only with a `ProviderError`.
 */
export interface WalletMethods {
  /**
   * Connects: reads the app version and the account's address. The first connect shows the address on the device
   * for the user to confirm; later connects read it silently (app ≥ 1.4.1).
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns The connected account's address, in a one-element array.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1002 when the user rejects on the Ledger
   *   (or `rejectPending()`, the signal), 22001 when the device fails or its reply is malformed (the status word in
   *   `data.statusWord`).
   * @example
   * ```ts
   * const [address] = await chain.requestAccounts();
   * ```
   */
  requestAccounts(context?: RequestContext): Promise<string[]>;

  /**
   * The connected account, or [] (never touches the device).
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `[address]` when connected, else `[]`.
   * @throws `ProviderError` 23001 when the call comes from another origin.
   */
  getAccounts(context?: RequestContext): Promise<string[]>;

  /**
   * The current network, `{ networkID: 'mina:…' }`, as Auro answers it; never touches the device.
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ networkID: 'mina:mainnet' | 'mina:devnet' | 'mina:local' }`.
   * @throws `ProviderError` 23001 when the call comes from another origin.
   */
  requestNetwork(context?: RequestContext): Promise<{ networkID: string }>;

  /**
   * The network id as text (`'mina:devnet'`), as mina-js's `mina_networkId` answers it (wagmina asks every wallet
   * but Auro for it); never touches the device.
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns The network id, e.g. `'mina:mainnet'`.
   * @throws `ProviderError` 23001 when the call comes from another origin.
   */
  getNetworkId(context?: RequestContext): Promise<string>;

  /**
   * Switches the network to one of the list (src/provider/networks.ts: `mina:mainnet`, `mina:devnet`, `mina:local`,
   * `zeko:testnet`) or one `addChain` added, and emits `chainChanged`, once the integrator's `confirmSwitchChain`
   * approved it; without that hook it is refused (1002) unless the provider was created with
   * `allowUnconfirmedSwitchChain: true`. The key is the same on every network; signatures differ by signature domain.
   *
   * @param args - `{ networkID }`, e.g. `'mina:mainnet'` or `'zeko:testnet'`.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns The network now in use, `{ networkID }`.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 20003 for a value that is no network id,
   *   20004 for a network it does not know or cannot sign for (Zeko mainnet), 1002 when `confirmSwitchChain` refuses,
   *   or when there is no such hook and `allowUnconfirmedSwitchChain` is not set.
   * @example
   * ```ts
   * await chain.switchChain({ networkID: 'mina:devnet' });
   * ```
   */
  switchChain(args: SwitchChainArgs, context?: RequestContext): Promise<{ networkID: string }>;

  /**
   * Auro's `addChain({ url, name })`: `url` (a GraphQL endpoint, plain or percent-encoded as Auro's test dapp sends
   * it) of a network the provider knows is a switch to that network (`confirmSwitchChain` decides, as for
   * `switchChain`); another endpoint goes to the integrator's `confirmAddChain`, which may accept it for a network of a
   * signature domain the Ledger signs for, and the provider switches to it. Nothing touches the device.
   *
   * @param args - `{ url, name }`.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns The network now in use, `{ networkID }`; `chainChanged` when it changed.
   * @throws `ProviderError`: 23001 another origin, 20003 a `url` that is no http(s) URL or no `name`, 20004 an
   *   endpoint the provider cannot add (no `confirmAddChain`, or a domain the Ledger cannot sign for), 1002 when the
   *   integrator's hook refuses.
   * @example
   * ```ts
   * await chain.addChain({ url: encodeURIComponent('https://testnet.zeko.io/graphql'), name: 'Zeko' }); // a known endpoint: a switch
   * ```
   */
  addChain(args: AddChainArgs, context?: RequestContext): Promise<{ networkID: string }>;

  /**
   * Auro's `getWalletInfo()` / `wallet_info`: `{ version, init }`, the library's version and `true` (a Ledger always
   * holds a key); never touches the device.
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ version, init: true }`.
   * @throws `ProviderError` 23001 when the call comes from another origin.
   */
  getWalletInfo(context?: RequestContext): Promise<{ version: string; init: boolean }>;

  /**
   * Auro's `revokePermissions()` / `wallet_revokePermissions`: forgets the page's connection, as `disconnect()` does
   * (`disconnect` and `accountsChanged` with `[]` when it was connected), and resolves `[]`. On the class, not added
   * per instance: Auro's test dapp looks for it on the prototype.
   *
   * @param args - Ignored: every permission of the page is revoked (wagmina sends `[{ mina_accounts: {} }]`).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `[]`.
   * @throws `ProviderError` 23001 when the call comes from another origin.
   */
  revokePermissions(args?: RevokePermissionsArgs, context?: RequestContext): Promise<[]>;

  /**
   * Message signing, as mina-signer's `signMessage` with the extension's SIGN_TEXT (1–1024 bytes of UTF-8, shown
   * with the origin asking; 1–16384 on extension 1.4, the longest shown on the device as their SHA-256 behind Blind
   * signing, which the device prompt names), else INS 05 (1–65 printable ASCII bytes, signed as `"Message : " + message`). The
   * signature is verified on the host before it is returned.
   *
   * @param args - `{ message }`: a text the connected device signs (what it cannot sign is refused before the device
   *   is asked or waited for).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ publicKey, data, signature: { field, scalar } }`, as Auro returns it; `data` is the text the device
   *   signed: the message itself with SIGN_TEXT.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad or
   *   reserved message, 20006 for a text the device cannot sign (SIGN_TEXT: empty, over 1024 bytes (16384 on 1.4), NUL; INS 05:
   *   empty, over 65 bytes, not printable ASCII; the reason says which) or when the app lacks INS 05 (before 1.4.0),
   *   1002 when the user rejects on the Ledger, 22001 when the signature does not verify.
   * @example
   * ```ts
   * const { signature } = await chain.signMessage({ message: 'Sign in to example.com' });
   * ```
   */
  signMessage(args: SignMessageArgs, context?: RequestContext): Promise<SignedMessage>;

  /**
   * Auro's `signJsonMessage`: `{ message: [{ label, value }, …] }`, signed as its JSON text exactly as `signMessage`
   * signs a text (SIGN_TEXT up to 1024 bytes, 16384 on 1.4, else INS 05 up to 65 printable ASCII bytes). Result as `signMessage`.
   *
   * @param args - `{ message: [{ label, value }, …] }`.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @throws `ProviderError` as `signMessage`; 20006 when the device cannot sign the JSON text.
   * @example
   * ```ts
   * await chain.signJsonMessage({ message: [{ label: 'action', value: 'login' }] });
   * ```
   */
  signJsonMessage(args: SignJsonMessageArgs, context?: RequestContext): Promise<SignedMessage>;

  /**
   * mina-signer `verifyMessage` on the provider's network, on the host: true or false.
   *
   * @param args - `{ publicKey, data, signature }` as `signMessage` returns it; the signature `{ field, scalar }` or
   *   its JSON text (as Auro's test dapp sends it back).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns Whether the signature verifies on the provider's network.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 20003 for a malformed argument.
   * @example
   * ```ts
   * const ok = await chain.verifyMessage(await chain.signMessage({ message: 'hello' }));
   * ```
   */
  verifyMessage(args: VerifyMessageArgs, context?: RequestContext): Promise<boolean>;

  /**
   * `verifyMessage` for a `signJsonMessage` result.
   *
   * @param args - A `signJsonMessage` result.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns Whether the signature verifies.
   * @throws `ProviderError` as `verifyMessage`.
   */
  verifyJsonMessage(args: VerifyMessageArgs, context?: RequestContext): Promise<boolean>;

  /**
   * Auro's `signFields`: `{ message: fields }` → `{ data, publicKey, signature }` (base58), mina-signer's scheme.
   * One field: INS 06 (app ≥ 1.6.0, blind signing); several: extension SIGN_FIELDS; else 20006 with the reason.
   *
   * @param args - `{ message }`: 1–64 field elements (text as `BigInt()` reads it, or integral numbers); more → 20006.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ data, publicKey, signature }`, the signature in base58 as mina-signer's `signFields`.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad
   *   field, 20006 when the app cannot sign that many fields (the reason says why), 1002 when the user rejects, 22001
   *   when the signature does not verify.
   * @example
   * ```ts
   * const { signature } = await chain.signFields({ message: ['1', '2', '3'] });
   * ```
   */
  signFields(args: SignFieldsArgs, context?: RequestContext): Promise<SignedFields>;

  /**
   * mina-signer `verifyFields` on the host (no device, no connection needed): true or false.
   *
   * @param args - `{ publicKey, data, signature }` as `signFields` returns it.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns Whether the signature verifies.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 20003 for a malformed argument (a signature
   *   that is merely wrong is `false`).
   * @example
   * ```ts
   * const ok = await chain.verifyFields(await chain.signFields({ message: ['1', '2'] }));
   * ```
   */
  verifyFields(args: VerifyFieldsArgs, context?: RequestContext): Promise<boolean>;

  /**
   * A payment signed on the Ledger with INS 03 (the device shows amount, fee, receiver, memo, nonce and network in
   * clear), verified on the host and broadcast with the node's `sendPayment` → `{ hash }`. Amount and fee in MINA,
   * as Auro takes them. `network: 'local'` → 20006 (the o1js LocalBlockchain has no signed payments).
   *
   * @param args - `{ to, amount, fee?, memo?, nonce? }`, amount and fee in MINA.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ hash }` of the broadcast payment.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad
   *   argument or a fee over `feeCap`, 20006 on `network: 'local'`, 1002 when the user rejects, 21001 when the node
   *   refuses it, 22001 when the signature does not verify.
   * @example
   * ```ts
   * const { hash } = await chain.sendPayment({ to: 'B62q…', amount: 1.5, fee: 0.01, memo: 'rent' });
   * ```
   */
  sendPayment(args: SendPaymentArgs, context?: RequestContext): Promise<{ hash: string }>;

  /**
   * A stake delegation to `to`, signed on the Ledger with INS 03 as `sendPayment`; result `{ hash }`.
   *
   * @param args - `{ to, fee?, memo?, nonce? }`: `to` is the block producer.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ hash }` of the broadcast delegation.
   * @throws `ProviderError` as `sendPayment`.
   * @example
   * ```ts
   * const { hash } = await chain.sendStakeDelegation({ to: 'B62q…' });
   * ```
   */
  sendStakeDelegation(args: SendStakeDelegationArgs, context?: RequestContext): Promise<{ hash: string }>;

  /**
   * A zkApp command signed on the Ledger (INS 06, blind signing; the device shows only the commitment), verified on
   * the host, then broadcast (`{ hash }`) or returned (`onlySign: true` → `{ signedData }`). See docs/provider.md.
   *
   * @param args - `{ transaction, onlySign?, nonce?, feePayer?: { fee?, memo? } }`: the zkApp command (o1js `toJSON()`
   *   or its JSON text), fee in MINA.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ hash }` after the broadcast, or `{ signedData }` with `onlySign: true`.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad
   *   command or a fee over `feeCap`, 20006 when the app lacks INS 06 (before 1.6.0), 1002 when the user rejects, 21001
   *   when the node or the local chain refuses it, 22001 when a signature does not verify.
   * @example
   * ```ts
   * const { hash } = await chain.sendTransaction({ transaction: tx.toJSON(), feePayer: { fee: 0.1 } });
   * ```
   */
  sendTransaction<A extends SendTransactionArgs>(args: A, context?: RequestContext): Promise<SendTransactionResultFor<A>>;

  /**
   * mina-js's (Pallad's) `mina_signTransaction`: a payment or stake delegation (`{ transaction }`, nanomina; a payment
   * when it has `amount`) signed on INS 03 with the review `sendPayment` gets, or a zkApp command (`{ command }`)
   * signed as `sendTransaction({ onlySign: true })` signs it; returned, never broadcast.
   *
   * @param args - `{ transaction: { from, to, fee, nonce?, memo?, validUntil?, amount? } }` (`from`: the connected
   *   account; no nonce: the node's) or `{ command: { zkappCommand, feePayer?: { feePayer, fee?, nonce?, memo? } } }`.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns mina-signer's `Signed` shape, `{ signature, publicKey, data }`, which its `verifyTransaction` verifies.
   * @throws `ProviderError`: 23001 another origin, 1001 not connected, 20003 a bad argument, another `from`, a fee
   *   over `feeCap`, 20006 a zkApp command on an app without INS 06, 1002 when the user rejects, 22001 when the
   *   signature does not verify.
   * @example
   * ```ts
   * const signed = await chain.signTransaction({ transaction: { from, to, amount: '1000000000', fee: '10000000', nonce: '3' } });
   * ```
   */
  signTransaction(args: SignTransactionArgs, context?: RequestContext): Promise<SignedTransaction>;

  /**
   * mina-js's `mina_sendTransaction({ signedTransaction, transactionType })` (also `[sendable, type]`): a signed
   * payment, delegation or zkApp command, its signature checked with mina-signer on the provider's network, then
   * broadcast. `signedTransaction` is `signTransaction`'s result or mina-js's `{ input, signature? }`. No device.
   *
   * @param args - `{ signedTransaction, transactionType: 'payment' | 'delegation' | 'zkapp' }`.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ hash }` of the broadcast transaction.
   * @throws `ProviderError`: 23001 another origin, 1001 not connected, 20003 a malformed transaction, a signature
   *   that does not verify, or no `graphqlUrl`, 21001 when the node refuses it.
   */
  sendSignedTransaction(args: SendSignedTransactionArgs, context?: RequestContext): Promise<{ hash: string }>;

  /**
   * mina-js's `mina_getBalance`: the connected account's balance, read from the node (no device).
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns The balance in nanomina, as decimal text (`'0'` for an account the node does not know).
   * @throws `ProviderError`: 23001 another origin, 1001 not connected, 20006 without a `graphqlUrl`, 21001 when the
   *   node fails.
   */
  getBalance(context?: RequestContext): Promise<string>;

  /**
   * A nullifier for `message` (0–64 field elements) and the connected account, made on the Ledger (extension
   * CREATE_NULLIFIER), completed and verified on the host with o1js. `data` is the message as given.
   *
   * @param args - `{ message }`: 0–64 field elements (text as `BigInt()` reads it, or integral numbers).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns The nullifier as `Nullifier.fromJSON` reads it, with `data` the message as given.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad
   *   field, 20006 when the app lacks the extension's CREATE_NULLIFIER (every released Mina app), 1002 when the user
   *   rejects, 22001 when the nullifier does not verify.
   * @example
   * ```ts
   * const nullifier = await chain.createNullifier({ message: ['1', '2'] });
   * ```
   */
  createNullifier(args: CreateNullifierArgs, context?: RequestContext): Promise<NullifierResult>;

  /**
   * A presentation of stored credentials for a verifier's request (mina-attestations): the owner signature is made
   * on the Ledger (extension SIGN_FIELDS), the proof on the host. Result `{ presentation }`, JSON text.
   *
   * @param args - `{ presentation: { presentationRequest } }`, the verifier's request (mina-attestations JSON).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ presentation }`, the presentation as JSON text.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a
   *   malformed or oversized request, 20006 when the app lacks SIGN_FIELDS or is older than 1.4.5 (the store key), 1002
   *   when the user rejects or no stored credential fits, 22001 when the store or the proof fails.
   * @example
   * ```ts
   * const { presentation } = await chain.requestPresentation({ presentation: { presentationRequest } });
   * ```
   */
  requestPresentation(args: RequestPresentationArgs, context?: RequestContext): Promise<{ presentation: string }>;

  /**
   * Validates a private credential (mina-attestations), checks that it belongs to the connected account, asks the
   * user to approve it on the Ledger, and stores it encrypted. Result `{ credential }`, JSON text.
   *
   * @param args - `{ credential }`: a mina-attestations stored credential (object or JSON text).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ credential }`: the stored credential, JSON text.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for an
   *   invalid credential or one of another account, 20006 on a Mina app older than 1.4.5, 1002 when the user rejects on
   *   the Ledger, 22001 when the store fails (details to `onHostLog`).
   * @example
   * ```ts
   * await chain.storePrivateCredential({ credential: Credential.toJSON(stored) });
   * ```
   */
  storePrivateCredential(args: StorePrivateCredentialArgs, context?: RequestContext): Promise<{ credential: string }>;
}

/** `true` when `A` and `B` are the same union of keys. */
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only when `T` is `true`. */
type Holds<T extends true> = T;
/** The interface has exactly the table's methods, each callable as the table types it (./rpc.ts `TableMethods`). */
type _AgreesWithTable = Holds<SameKeys<keyof WalletMethods, keyof TableMethods>> | Holds<WalletMethods extends TableMethods ? true : false>;
