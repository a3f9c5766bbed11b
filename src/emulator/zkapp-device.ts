/**
 * The device half of SIGN_ZKAPP (extension INS 0xA3, docs/apdu-extensions.md), as the software Ledger runs it: rebuild
 * the zkApp command from the stream, compute its commitments with the protocol's own hashing (mina-signer's
 * `transactionCommitments` of the command's era: account-update hashes, call forest, memo and fee-payer hashes), decide
 * what this account must sign, and describe it on screen. Nothing the host computed is taken: the host sends bodies,
 * never hashes of bodies (only the hashes of data a device cannot show: events, actions, a verification key).
 */
import { toHex, uintToBytesBE } from '../apdu/bytes.js';
import { escapeForDisplay } from '../apdu/display-text.js';
import { PALLAS_P } from '../apdu/constants.js';
import { decodeZkappStream, type ZkappCommitmentKind, type ZkappStream } from '../apdu/sign-zkapp.js';
import { bodyLayout, PERMISSIONS, permissionBits, ZkappBodyError, type Node } from '../apdu/zkapp-body.js';
import type { MinaSignerInternals } from '../upstream/mina-signer-modules.js';
import { minaSignerInternals } from '#upstream/mina-signer-internals';
import type { ZkappUpdateView } from './review.js';

type Obj = Record<string, unknown>;

/** A parsed SIGN_ZKAPP request: the command as mina-signer holds it, and what this device makes of it. */
export interface DeviceZkapp {
  stream: ZkappStream;
  /** This device's account (the key of `stream.account`). */
  account: { x: bigint; isOdd: boolean };
  /** mina-signer's bigint ZkappCommand, rebuilt from the stream. */
  command: { feePayer: Obj; accountUpdates: { body: Obj; authorization: Obj }[]; memo: string };
  commitment: bigint;
  fullCommitment: bigint;
  /** What this account signs: the fee payer (full commitment) and its signed account updates, by index. */
  signs: { feePayer: boolean; full: number[]; partial: number[] };
}

/** Rebuilds and hashes the command in `payload`; ZkappBodyError for anything malformed or inconsistent (→ 0x6802). */
export async function parseZkappRequest(payload: Uint8Array, account: { x: bigint; isOdd: boolean }): Promise<DeviceZkapp> {
  const stream = decodeZkappStream(payload);
  const internals = await minaSignerInternals(stream.era);
  const layout = bodyLayout(stream.era);
  const accountUpdates = stream.updates.map(({ callDepth, body }, i) => {
    const update = internals.AccountUpdate.empty();
    update.body = complete(layout, update.body, body, internals, `accountUpdates[${i}]`) as Obj;
    update.body.callDepth = callDepth;
    return update;
  });
  const { feePayer, memo: memoBytes } = stream;
  let memo: string;
  try {
    memo = internals.Memo.toBase58(internals.Memo.fromBytes([...memoBytes]));
  } catch {
    throw new ZkappBodyError('memo');
  }
  const command = {
    feePayer: {
      body: { publicKey: feePayer.publicKey, fee: feePayer.fee, nonce: feePayer.nonce, validUntil: feePayer.validUntil },
      authorization: '',
    },
    accountUpdates,
    memo,
  };
  let commitments: { commitment: bigint; fullCommitment: bigint };
  try {
    commitments = internals.transactionCommitments(command, stream.network);
  } catch (error) {
    // An inconsistent call depth (a child deeper than its parent + 1), or a body the protocol cannot hash.
    throw new ZkappBodyError(`the command cannot be hashed: ${(error as Error)?.message ?? error}`);
  }
  const mine = (pk: unknown) => {
    const { x, isOdd } = pk as { x: bigint; isOdd: boolean };
    return x === account.x && isOdd === account.isOdd;
  };
  const signs = { feePayer: mine(feePayer.publicKey), full: [] as number[], partial: [] as number[] };
  accountUpdates.forEach(({ body }, i) => {
    const kind = body.authorizationKind as { isSigned: boolean };
    if (!kind.isSigned || !mine(body.publicKey)) return;
    (body.useFullCommitment ? signs.full : signs.partial).push(i);
  });
  return { stream, account, command, ...commitments, signs };
}

/** The values this account signs, full commitment first (the reply's order). */
export function valuesToSign(z: DeviceZkapp): { kind: ZkappCommitmentKind; value: bigint }[] {
  const out: { kind: ZkappCommitmentKind; value: bigint }[] = [];
  if (z.signs.feePayer || z.signs.full.length > 0) out.push({ kind: 'fullCommitment', value: z.fullCommitment });
  if (z.signs.partial.length > 0) out.push({ kind: 'commitment', value: z.commitment });
  return out;
}

/**
 * Fills mina-signer's empty body (`target`: every leaf at the protocol's empty value) with the decoded leaves: an
 * absent option keeps the protocol's empty value, a URI and a token symbol are hashed from their text by the
 * protocol's functions, the hash-only leaves take their hash with no data.
 */
function complete(node: Node, target: unknown, decoded: unknown, internals: MinaSignerInternals, path: string): unknown {
  switch (node.kind) {
    case 'object': {
      const out = { ...(target as Obj) };
      for (const [key, inner] of node.entries) out[key] = complete(inner, out[key], (decoded as Obj)[key], internals, `${path}.${key}`);
      return out;
    }
    case 'array':
      return (decoded as unknown[]).map((item, i) => complete(node.inner, (target as unknown[])[i], item, internals, `${path}[${i}]`));
    case 'option': {
      const { isSome, value } = decoded as { isSome: boolean; value?: unknown };
      const empty = target as { value: unknown };
      return isSome
        ? { isSome: true, value: complete(node.inner, empty.value, value, internals, `${path}.value`) }
        : { ...empty, isSome: false };
    }
    case 'leaf': {
      try {
        switch (node.leaf) {
          case 'uri':
            return internals.ZkappUri.fromJSON((decoded as { data: string }).data);
          case 'symbol':
            return internals.TokenSymbol.fromJSON((decoded as { symbol: string }).symbol);
          case 'hashOnly': {
            const { hash } = decoded as { hash: bigint };
            return typeof (target as { data?: unknown })?.data === 'string' ? { data: '', hash } : { data: [], hash };
          }
          default:
            return decoded;
        }
      } catch (error) {
        throw new ZkappBodyError(`${path}: ${(error as Error)?.message ?? error}`);
      }
    }
  }
}

/** Poseidon permutations of `hashWithPrefix(prefix, n fields)`: the prefix block, then ⌈n/2⌉ blocks (one if n = 0). */
export const hashPermutations = (n: number) => 1 + Math.max(1, Math.ceil(n / 2));

/**
 * What the device hashes for the commitments, in Poseidon permutations (kimchi Poseidon, rate 2): each account-update
 * body and URI, two per call-forest node (node and cons), the fee payer's body, the memo and the full commitment. For
 * the benchmark: computed on demand, not on every request.
 */
export async function commitmentPermutations(z: DeviceZkapp): Promise<number> {
  const internals = await minaSignerInternals(z.stream.era);
  const { command } = z;
  const bodyCost = (update: unknown) => hashPermutations(internals.packToFields(internals.AccountUpdate.toInput(update)).length);
  let total = 0;
  for (const update of command.accountUpdates) {
    total += bodyCost(update) + 2 * hashPermutations(2);
    const uri = (update.body.update as { zkappUri: { isSome: boolean; value: { data: string } } }).zkappUri;
    if (uri.isSome) total += hashPermutations(Math.ceil((8 * new TextEncoder().encode(uri.value.data).length + 1) / 254));
  }
  // The fee payer is hashed as an account update (mina-signer feePayerHash), the memo as two legacy-packed fields.
  const feePayerUpdate = internals.AccountUpdate.empty();
  total += bodyCost(feePayerUpdate) + hashPermutations(2) + hashPermutations(3);
  return total;
}

// ---------------------------------------------------------------------------------------------------------------
// What the device shows

/**
 * The account updates, described: addresses in base58, tokens named, app-state values, the other changes in words
 * (texts escaped by the text rule, src/apdu/display-text.ts), whether events or actions are emitted (the device sees
 * only their hash), and who authorizes each.
 */
export async function describeUpdates(z: DeviceZkapp): Promise<ZkappUpdateView[]> {
  const internals = await minaSignerInternals(z.stream.era);
  const address = (pk: { x: bigint; isOdd: boolean }) => internals.PublicKey.toBase58(pk);
  const defaultToken = internals.TokenId.empty();
  const empty = internals.AccountUpdate.empty().body as { events: { hash: bigint }; actions: { hash: bigint } };
  return z.command.accountUpdates.map(({ body }, index) => {
    const pk = body.publicKey as { x: bigint; isOdd: boolean };
    const update = body.update as Record<string, { isSome: boolean; value: unknown }> & { appState: { isSome: boolean; value: bigint }[] };
    const { magnitude, sgn } = body.balanceChange as { magnitude: bigint; sgn: bigint };
    const kind = body.authorizationKind as { isSigned: boolean; isProved: boolean };
    const signedByMe = z.signs.full.includes(index) || z.signs.partial.includes(index);
    const changes: string[] = [];
    if (update.verificationKey!.isSome) {
      const { hash } = update.verificationKey!.value as { hash: bigint };
      changes.push(`sets the verification key (hash ${hex(hash)})`);
    }
    if (update.permissions!.isSome) changes.push(`changes permissions: ${describePermissions(update.permissions!.value as Obj)}`);
    if (update.delegate!.isSome)
      changes.push(`changes the delegate to ${address(update.delegate!.value as { x: bigint; isOdd: boolean })}`);
    if (update.zkappUri!.isSome)
      changes.push(`sets the zkApp URI to ${escapeForDisplay((update.zkappUri!.value as { data: string }).data)}`);
    if (update.tokenSymbol!.isSome) {
      changes.push(`sets the token symbol to ${escapeForDisplay((update.tokenSymbol!.value as { symbol: string }).symbol)}`);
    }
    if (update.timing!.isSome) changes.push('changes the timing (vesting) of the account');
    if (update.votingFor!.isSome) changes.push(`changes what the account votes for (${hex((update.votingFor!.value as bigint) ?? 0n)})`);
    const tokenId = body.tokenId as bigint;
    return {
      index,
      account: address(pk),
      mine: pk.x === z.account.x && pk.isOdd === z.account.isOdd,
      token: tokenId === defaultToken ? 'MINA' : internals.TokenId.toJSON(tokenId),
      balanceChange: sgn === PALLAS_P - 1n ? -magnitude : magnitude,
      incrementNonce: body.incrementNonce as boolean,
      appState: update.appState.flatMap((s, slot) => (s.isSome ? [{ slot, value: s.value }] : [])),
      changes,
      events: (body.events as { hash: bigint }).hash !== empty.events.hash,
      actions: (body.actions as { hash: bigint }).hash !== empty.actions.hash,
      authorization: signedByMe
        ? z.signs.full.includes(index)
          ? 'your signature (full commitment)'
          : 'your signature (partial commitment)'
        : kind.isProved
          ? 'a proof'
          : kind.isSigned
            ? 'another signature'
            : 'none',
    };
  });
}

/** A hash as the device shows it: all 64 hex digits, big-endian (ASCII only: the device's font has nothing else). */
const hex = (value: bigint) => toHex(uintToBytesBE(value, 32));

function describePermissions(permissions: Obj): string {
  // The decoded body's permissions: booleans, as decodeZkappBody reads them.
  const name = (auth: unknown) => PERMISSIONS[permissionBits(auth)] ?? '?';
  return Object.entries(permissions)
    .map(([key, auth]) => (key === 'setVerificationKey' ? `${key} ${name((auth as Obj).auth)}` : `${key} ${name(auth)}`))
    .join(', ');
}
