/**
 * Ask, then compute: a presentation request is shown to the holder (`confirmPresentation`) before anything is read
 * from the credential store or evaluated on it, and nothing a page can observe depends on the store before the holder
 * approved. Tried as an attacker would: a script in a connected page that binary-searches a stored salary with
 * `salary < t` requests, cancelling at any progress event, against a holder who refuses, or never answers; and a
 * stranger site that asks for another site's credentials before and after that site stored one. Every probe must get
 * the same answer, with the same stages, in the same order of events (the answer only after the holder's answer or
 * the page's cancel), and no value may be recovered. No time is measured: what the page gets is compared as data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import type { CredentialStore } from '../../src/credentials.js';
import type { ConfirmPresentation, LedgerProvider, LedgerProviderOptions, PresentationReview, ProgressEvent } from '../../src/index.js';
import { DECLINED } from '../../src/presentations/context.js';
import { closeIdlePresentationWorker } from '../../src/presentations/runner.js';
import { NOT_SATISFIED } from '../../src/presentations/satisfies.js';
import { STORE_KEY_MESSAGE } from '../../src/apdu/store-key.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { providerFailure as failure, settled } from '../support/provider-failure.js';
import { ORIGIN, connectedWith, never, storeProvider, storeRig, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const SALARY = 123_457n;
/** The range the attacker searches: [0, 2^20), in 20 requests. */
const BITS = 20;
const tempDir = tempDirs('consent');
let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);
afterAll(() => closeIdlePresentationWorker());

/** A credential `{ age: 37, salary: 123457 }` from the tests' issuer to account 0, as JSON text. */
function salaryCredential(): string {
  const { UInt64, PublicKey } = issuer.A.o1js;
  const { Credential } = issuer.A.attestations;
  const data = { age: UInt64.from(37), salary: UInt64.from(SALARY) };
  return Credential.toJSON(Credential.sign(issuer.key, { owner: PublicKey.fromBase58(addressOf(0)), data }));
}

/**
 * The attacker's probe: an https request asserting `c.salary < limit`, `limit` a claim (one circuit for every probe,
 * as a careful attacker would write it: each probe costs the host the same).
 */
function probe(limit: bigint) {
  const { UInt64, Field } = issuer.A.o1js;
  const { PresentationSpec, Operation: O, Credential, Claim, PresentationRequest } = issuer.A.attestations;
  const spec = PresentationSpec({ c: Credential.Native({ age: UInt64, salary: UInt64 }), limit: Claim(UInt64) }, ({ c, limit }) => ({
    assert: O.lessThan(O.property(c, 'salary'), limit),
    outputClaim: O.constant(Field(0)),
  }));
  const request = PresentationRequest.https(spec, { limit: UInt64.from(limit) }, { action: 'salary check' });
  return JSON.parse(PresentationRequest.toJSON(request)) as Record<string, unknown>;
}

/** A store that counts what reads it: `lists` is how many times the account's credentials were listed. */
function countingStore(dir: string): { store: CredentialStore; lists: () => number } {
  const files = new FileCredentialStore(dir);
  let lists = 0;
  const store: CredentialStore = {
    list: (account, secret) => (lists++, files.list(account, secret)),
    add: (account, secret, credential) => files.add(account, secret, credential),
    remove: (account, secret, id) => files.remove(account, secret, id),
  };
  return { store, lists: () => lists };
}

/** What a page observes of one call, as data: its answer and its stages, with the events in the order they came. */
interface Observed {
  answer: { code?: number; message?: string; data?: unknown; resolved?: boolean };
  stages: string[];
  order: string[];
}

/** The page's progress listeners (the provider's `onProgress` calls them in turn). */
const listeners = new Set<(event: ProgressEvent) => void>();

/**
 * A hostile page: sends a request and, with `cancel`, cancels it as soon as any stage but the call's end is told (in
 * the next task, as a page hears of it); `order` is where it and the holder log what happens, in order.
 */
function hostilePage(chain: { requestPresentation: LedgerProvider['requestPresentation'] }, order: string[], cancel: boolean) {
  return async (request: Record<string, unknown>): Promise<Observed> => {
    order.length = 0;
    const stages: string[] = [];
    const controller = new AbortController();
    const listener = (event: ProgressEvent) => {
      if (event.method !== 'requestPresentation') return;
      stages.push(event.stage);
      order.push(`stage ${event.stage}`);
      if (!cancel || event.stage === 'done' || event.stage === 'failed') return;
      setTimeout(() => {
        if (controller.signal.aborted) return;
        order.push('page cancels');
        controller.abort(new Error('the attacker cancels'));
      });
    };
    listeners.add(listener);
    const outcome = await settled(
      chain.requestPresentation({ presentation: { presentationRequest: request } }, { signal: controller.signal }),
    );
    listeners.delete(listener);
    order.push('page gets its answer');
    const error = 'error' in outcome ? (outcome.error as { code: number; message: string; data: unknown }) : undefined;
    return {
      answer: error ? { code: error.code, message: error.message, data: error.data } : { resolved: true },
      stages,
      order: [...order],
    };
  };
}

/**
 * The attacker's binary search for the salary, reading each probe as the attack on the old order did: a request that
 * got to `compiling`, or ended with anything but 20003, "was satisfied" (salary < t).
 */
async function binarySearch(ask: (request: Record<string, unknown>) => Promise<Observed>) {
  let low = 0n;
  let high = 1n << BigInt(BITS);
  const seen: Observed[] = [];
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    const observed = await ask(probe(middle));
    seen.push(observed);
    if (observed.stages.includes('compiling') || observed.answer.code !== 20003) high = middle;
    else low = middle;
  }
  return { recovered: low, seen };
}

/** A connected provider whose store holds the salary credential, the holder answering with `holder`. */
async function salaryHolder(holder: ConfirmPresentation, more: Partial<LedgerProviderOptions> = {}) {
  const counting = countingStore(tempDir());
  const rig = await connectedWith({ extensions: true })(
    {},
    {
      credentialStore: counting.store,
      confirmPresentation: holder,
      onProgress: (event) => {
        for (const listener of listeners) listener(event);
      },
      ...more,
    },
  );
  await rig.chain.storePrivateCredential({ credential: salaryCredential() }); // the store key is derived here, once
  return { ...rig, lists: counting.lists };
}

const REFUSAL = { code: 1002, message: 'User rejected the request.', data: { reason: DECLINED } };

describe('a page binary-searching a stored salary', () => {
  it('the holder refuses every probe: all twenty get the same answer, stages and order of events, only after the holder answered; the salary is not recovered and the store is not read', async () => {
    const order: string[] = [];
    const reviews: PresentationReview[] = [];
    const rig = await salaryHolder((review) => {
      reviews.push(review);
      order.push('holder refuses');
      return false;
    });
    const [sent, lists] = [rig.ledger.exchanges.length, rig.lists()];
    const { recovered, seen } = await binarySearch(hostilePage(rig.chain, order, false));

    expect(seen).toHaveLength(BITS);
    expect(recovered).not.toBe(SALARY);
    expect(new Set(seen.map((s) => JSON.stringify(s))).size).toBe(1); // every probe alike, as data
    expect(seen[0]).toEqual({
      answer: REFUSAL,
      stages: ['awaiting-approval', 'failed'],
      order: ['stage awaiting-approval', 'holder refuses', 'stage failed', 'page gets its answer'],
    });
    // The holder was asked each time, with the site and the assertion in words; nothing was read or sent to the device.
    expect(reviews).toHaveLength(BITS);
    expect(reviews[0]!).toMatchObject({ origin: ORIGIN, assertions: [`c.salary < limit (${1n << BigInt(BITS - 1)})`] });
    expect(reviews[0]!.lines).toContain(`It proves: c.salary < limit (${1n << BigInt(BITS - 1)})`);
    expect(rig.lists()).toBe(lists);
    expect(rig.ledger.exchanges.length).toBe(sent);
  }, 300_000);

  it('the holder never answers and the page cancels at any stage it is told: every probe ends alike, only after the cancel, and the store is never read', async () => {
    const order: string[] = [];
    const rig = await salaryHolder(() => {
      order.push('holder asked');
      return never();
    });
    const [sent, lists] = [rig.ledger.exchanges.length, rig.lists()];
    const { recovered, seen } = await binarySearch(hostilePage(rig.chain, order, true));

    expect(recovered).not.toBe(SALARY);
    expect(new Set(seen.map((s) => JSON.stringify(s))).size).toBe(1);
    expect(seen[0]).toEqual({
      answer: REFUSAL,
      stages: ['awaiting-approval', 'failed'],
      order: ['stage awaiting-approval', 'holder asked', 'page cancels', 'stage failed', 'page gets its answer'],
    });
    expect(rig.lists()).toBe(lists);
    expect(rig.ledger.exchanges.length).toBe(sent);
  }, 300_000);

  it('the holder looks at the stored credentials (the store listed for them, not for the page) and refuses: probe after probe, the page learns nothing', async () => {
    const order: string[] = [];
    const shown: number[] = [];
    const rig = await salaryHolder(async (review) => {
      shown.push((await review.candidates()).c!.length);
      order.push('holder refuses');
      return false;
    });
    const lists = rig.lists();
    const { recovered, seen } = await binarySearch(hostilePage(rig.chain, order, false));

    expect(recovered).not.toBe(SALARY);
    expect(new Set(seen.map((s) => JSON.stringify(s))).size).toBe(1);
    expect(seen[0]).toEqual({
      answer: REFUSAL,
      stages: ['awaiting-approval', 'failed'],
      order: ['stage awaiting-approval', 'holder refuses', 'stage failed', 'page gets its answer'],
    });
    expect(shown).toEqual(Array(BITS).fill(1)); // the holder saw the salary credential each time
    expect(rig.lists()).toBe(lists + BITS);
  }, 300_000);
});

describe('after the holder approved', () => {
  it('a request the chosen credential does not satisfy: the holder is told why, then the page gets the answer a refusal gets, and the device is not asked', async () => {
    const told: string[] = [];
    const rig = await salaryHolder(() => true, { onPresentationNotSatisfied: ({ reason }) => void told.push(reason) });
    const sent = rig.ledger.exchanges.length;
    const error = await failure(rig.chain.requestPresentation({ presentation: { presentationRequest: probe(100_000n) } }));
    expect({ code: error.code, message: error.message, data: error.data }).toEqual(REFUSAL);
    expect(told).toEqual([NOT_SATISFIED]);
    expect(rig.ledger.exchanges.length).toBe(sent);
  }, 300_000);
});

describe('a stranger site asking for another site’s credentials', () => {
  it('gets the same answer and stages before and after the issuer stored one; the holder sees the stored credential, and the store-key prompt names the stranger', async () => {
    const dir = tempDir();
    const STRANGER = 'https://stranger.example';
    const issuerSite = storeRig(dir, { origin: 'https://issuer.example' });
    const stranger = storeRig(dir, { origin: STRANGER });
    const stages: string[] = [];
    const seenByHolder: number[] = [];
    const chain = storeProvider(stranger.ledger, dir, {
      origin: STRANGER,
      onProgress: (event) => stages.push(event.stage),
      confirmPresentation: async (review) => {
        seenByHolder.push((await review.candidates()).credential!.length);
        return false; // the holder does not share their credentials with this site
      },
    });
    await chain.requestAccounts();
    await issuerSite.chain.requestAccounts();
    const ask = async () => {
      stages.length = 0;
      const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: issuer.presentationRequest().json } }));
      return { code: error.code, message: error.message, data: error.data, stages: [...stages] };
    };

    const before = await ask();
    await issuerSite.chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
    const after = await ask();

    expect(after).toEqual(before);
    expect(before).toEqual({ ...REFUSAL, stages: ['awaiting-approval', 'failed'] });
    expect(seenByHolder).toEqual([0, 1]); // inside the wallet the holder does see it (the test is not vacuous)
    // The stranger's store-key prompt (STORE_KEY, extension 1.3) named the stranger; INS 05's bare text was not shown.
    const storeKey = stranger.reviews.find((r) => r.kind === 'store-key');
    expect(JSON.stringify(storeKey?.screens)).toContain(STRANGER);
    expect(JSON.stringify(stranger.reviews)).not.toContain(STORE_KEY_MESSAGE);
  }, 300_000);
});

describe('a provider with nobody to review presentation requests', () => {
  it('is refused with 20006 naming confirmPresentation, before the store or the device is reached', async () => {
    const counting = countingStore(tempDir());
    const { chain, ledger } = await connectedWith({ extensions: true })(
      {},
      { credentialStore: counting.store, confirmPresentation: undefined },
    );
    const before = ledger.exchanges.length;
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: issuer.presentationRequest().json } }));
    expect(error).toMatchObject({ code: 20006 });
    expect(error.data?.reason).toMatch(/confirmPresentation/);
    expect(error.data?.reason).toMatch(/allowUnreviewedPresentations/);
    expect(counting.lists()).toBe(0);
    expect(ledger.exchanges.length).toBe(before);
  }, 120_000);

  it('with allowUnreviewedPresentations the host answers for the holder (the default choice): the request goes on to the owner signature on the device', async () => {
    const shown: string[] = [];
    const { chain } = await connectedWith({ extensions: true })(
      { approve: (review) => (shown.push(review.kind), review.kind !== 'presentation') }, // refused there: no proof is made
      { credentialStore: new FileCredentialStore(tempDir()), confirmPresentation: undefined, allowUnreviewedPresentations: true },
    );
    await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: issuer.presentationRequest().json } }));
    expect(error).toMatchObject({ code: 1002, data: { reason: 'rejected on the Ledger' } });
    expect(shown).toContain('presentation');
  }, 300_000);
});
