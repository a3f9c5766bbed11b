/**
 * The wallet's own record of what it signed and sent for the sites it serves: payments, delegations, zkApp
 * commands, messages, fields, nullifiers, presentations and stored credentials, with when, for which site, on which
 * network, and the hash or what was revealed. Kept by the wallet page in its own origin's `localStorage` (no dapp can
 * read it) and shown newest first in the wallet's Activity.
 *
 * Never secrets: an entry holds what the site already had or was given (a transaction hash, the text it asked to
 * sign, the claims a presentation revealed), never a credential's private fields, a key or a nullifier's secret.
 */
import { z } from 'zod';
import { credentialCode } from '../credentials/store-credential.js';

/** What kind of thing was signed or sent. */
export type ActivityKind = 'payment' | 'delegation' | 'zkapp' | 'message' | 'fields' | 'nullifier' | 'presentation' | 'credential';

/** One thing the wallet signed or sent. */
export interface ActivityEntry {
  /** ISO 8601 time it was answered. */
  at: string;
  /** The site it was for (the origin the browser reported). */
  origin: string;
  /** The network it was signed for (`mina:devnet`). */
  network: string;
  kind: ActivityKind;
  /** The method, as the site named it (`chain_` name). */
  method: string;
  /** In words, for the list: "Sent a payment", "Signed a message". */
  title: string;
  /** What was signed or revealed, shortened for the list. */
  detail: string;
  /** The transaction hash, when it was broadcast. */
  hash?: string;
  /**
   * A stored credential (`chain_storePrivateCredential`): the 8 hex digits the device showed in its approval
   * (`credentialCode`), by which the wallet's Credentials screen tells which site stored which credential.
   */
  credentialCode?: string;
  /**
   * A presentation: the store ids (64 hex digits, opaque) of the credentials the holder chose for it, when the wallet
   * knows them for sure; absent otherwise.
   */
  credentialIds?: string[];
}

/** The wallet's record: read newest first, added to as calls succeed. */
export interface ActivityHistory {
  /** Newest first. */
  list(): ActivityEntry[];
  add(entry: ActivityEntry): void;
}

/** The storage key of the record in the wallet origin's `localStorage`. */
export const ACTIVITY_KEY = 'chain-ledger:activity';
/** Entries kept; older ones are dropped (the chain keeps the transactions themselves). */
export const ACTIVITY_LIMIT = 200;

const KINDS = ['payment', 'delegation', 'zkapp', 'message', 'fields', 'nullifier', 'presentation', 'credential'] as const;
const entrySchema = z.object({
  at: z.string(),
  origin: z.string(),
  network: z.string(),
  kind: z.enum(KINDS),
  method: z.string(),
  title: z.string(),
  detail: z.string(),
  hash: z.string().optional(),
  credentialCode: z
    .string()
    .regex(/^[0-9a-f]{8}$/)
    .optional(),
  credentialIds: z
    .array(z.string().regex(/^[0-9a-f]{64}$/))
    .max(64)
    .optional(),
});

/**
 * The record in a `Storage` (the wallet page's `localStorage`), read afresh on every call so every wallet window sees
 * the others' entries. Entries that do not fit the schema (an older version's, a hand edit) are skipped, not shown.
 */
export function storageHistory(storage: Pick<Storage, 'getItem' | 'setItem'>, key = ACTIVITY_KEY, limit = ACTIVITY_LIMIT): ActivityHistory {
  const read = (): ActivityEntry[] => {
    try {
      const parsed = JSON.parse(storage.getItem(key) ?? '[]') as unknown;
      if (!Array.isArray(parsed)) return [];
      return parsed.flatMap((value) => {
        const entry = entrySchema.safeParse(value);
        return entry.success ? [entry.data as ActivityEntry] : [];
      });
    } catch {
      return [];
    }
  };
  return {
    list: () => read().sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)),
    add(entry) {
      const kept = [...read(), entrySchema.parse(entry) as ActivityEntry].sort((a, b) => (a.at < b.at ? -1 : 1));
      storage.setItem(key, JSON.stringify(kept.slice(-limit)));
    },
  };
}

/** A record in memory (tests, and a wallet that remembers nothing). */
export function memoryHistory(): ActivityHistory {
  const values = new Map<string, string>();
  return storageHistory({ getItem: (k) => values.get(k) ?? null, setItem: (k, v) => void values.set(k, v) });
}

const MAX_DETAIL = 240;
const short = (text: string) => (text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL - 1)}…` : text);
const object = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
/** The params object of a call: `params`, or the one element of `[params]`. */
const paramsObject = (params: unknown) => object(Array.isArray(params) && params.length === 1 ? params[0] : params);
const text = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
const parsedJson = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
};
const hashOf = (result: unknown) => {
  const hash = object(result).hash;
  return typeof hash === 'string' && hash !== '' ? { hash } : {};
};

type Described = Pick<ActivityEntry, 'kind' | 'title' | 'detail' | 'hash' | 'credentialCode'>;

/** The zkApp command's account updates, counted from its JSON (an object, or its text). */
function zkappDetail(params: Record<string, unknown>, result: unknown): Described {
  const command = object(parsedJson(params.transaction));
  const updates = Array.isArray(command.accountUpdates) ? command.accountUpdates.length : undefined;
  const sent = hashOf(result);
  const what = updates === undefined ? 'a zkApp command' : `a zkApp command of ${updates} account update${updates === 1 ? '' : 's'}`;
  return {
    kind: 'zkapp',
    title: sent.hash ? 'Sent a zkApp command' : 'Signed a zkApp command',
    detail: sent.hash ? what : `${what}, signed only (the site sends it)`,
    ...sent,
  };
}

/** What a presentation revealed to the verifier: its claims and output claim (public by design), never the credential. */
function presentationDetail(result: unknown): Described {
  const presentation = object(parsedJson(object(result).presentation));
  const revealed = { claims: presentation.claims, outputClaim: presentation.outputClaim };
  return { kind: 'presentation', title: 'Presented a credential', detail: short(`revealed ${JSON.stringify(revealed)}`) };
}

/** The device's approval code of the credential a store call answered with (its normalised text), if it has one. */
function storedCode(result: unknown): { credentialCode?: string } {
  const text = object(result).credential;
  return typeof text === 'string' ? { credentialCode: credentialCode(text) } : {};
}

/** The entry's kind, title and detail for a `chain_` method; undefined for a method that signs or sends nothing. */
function describe(method: string, params: Record<string, unknown>, result: unknown): Described | undefined {
  switch (method) {
    case 'chain_sendPayment':
      return { kind: 'payment', title: 'Sent a payment', detail: `${text(params.amount)} MINA to ${text(params.to)}`, ...hashOf(result) };
    case 'chain_sendStakeDelegation':
      return { kind: 'delegation', title: 'Delegated the stake', detail: `to ${text(params.to)}`, ...hashOf(result) };
    case 'chain_sendTransaction':
      return zkappDetail(params, result);
    case 'chain_signMessage':
      return { kind: 'message', title: 'Signed a message', detail: short(text(params.message)) };
    case 'chain_sign_JsonMessage':
      return { kind: 'message', title: 'Signed a JSON message', detail: short(text(params.message)) };
    case 'chain_signFields':
      return { kind: 'fields', title: 'Signed fields', detail: short(text(params.message)) };
    case 'chain_createNullifier':
      return { kind: 'nullifier', title: 'Made a nullifier', detail: short(`for ${text(params.message)}`) };
    case 'chain_requestPresentation':
      return presentationDetail(result);
    case 'chain_storePrivateCredential':
      return {
        kind: 'credential',
        title: 'Stored a credential',
        detail: 'from this site (its private fields stay in this wallet)',
        ...storedCode(result),
      };
    default:
      return undefined;
  }
}

/**
 * The entry for a call that succeeded, or undefined when the method signs and sends nothing (accounts, network,
 * verification). `method` may be Auro's `mina_` name; `credentialIds`, for a presentation, the store ids of the
 * credentials the holder chose for it.
 */
export function activityEntry(
  call: { method: string; params: unknown; result: unknown; origin: string; network: string; credentialIds?: string[] },
  at: Date = new Date(),
): ActivityEntry | undefined {
  const method = call.method.replace(/^mina_/, 'chain_');
  const described = describe(method, paramsObject(call.params), call.result);
  if (described === undefined) return undefined;
  const chosen = described.kind === 'presentation' && call.credentialIds?.length ? { credentialIds: [...call.credentialIds] } : {};
  return { at: at.toISOString(), origin: call.origin, network: call.network, method, ...described, ...chosen };
}
