/**
 * What `spendCap` counts (src/zkapp/spend-cap.ts): MINA leaving the account, in MINA; and as the whole balance,
 * so over any cap, what no amount counts: a change of the account's own permissions, verification key, delegate or
 * timing, and another token leaving it. Under a cap those are refused unless `confirmBeyondSpendCap` confirms each by
 * name; an approving `confirmZkapp` (what the CLI's `--yes` is) confirms none. The permissions change is played out on
 * o1js's LocalBlockchain, with the drain that followed it.
 */
import { AccountUpdate, Mina, Permissions, PrivateKey, PublicKey, UInt64 } from 'o1js';
import { describe, expect, it } from 'vitest';
import { createLedgerProvider, type BeyondSpendCap, type ZkappSummary } from '../../src/index.js';
import { minaSignerInternals } from '../../src/upstream/mina-signer-internals.js';
import type { LocalChain } from '../../src/zkapp/local-chain.js';
import { fundedLocalChain } from '../support/local-chain.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, connectedWith, quietLedger } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand, verifySigned } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
const MINA = 1_000_000_000n;
/** The released app (blind signing: the host's review is all the holder sees), every review on the host approved. */
const released = connectedWith({ blindSigning: true }, { confirmZkapp: () => true });
const signedDataOf = (result: unknown) => (result as { signedData: string }).signedData;

/** A provider on `local` whose host review approves everything, as the CLI's `--yes` does, under a 1 MINA cap. */
async function approvingProvider(local: LocalChain, confirmBeyondSpendCap?: (change: BeyondSpendCap) => boolean) {
  const ledger = quietLedger({ blindSigning: true });
  const reviews: ZkappSummary[] = [];
  const chain = createLedgerProvider({
    transport: ledger,
    network: 'local',
    localChain: local,
    origin: ORIGIN,
    spendCap: 1,
    confirmZkapp: (summary) => (reviews.push(summary), true),
    ...(confirmBeyondSpendCap ? { confirmBeyondSpendCap } : {}),
  });
  await chain.requestAccounts();
  return { chain, ledger, reviews, blindRequests: () => ledger.exchanges.filter((e) => e.request.startsWith('e006')).length };
}

/** The review's command: the holder's own update sets send, receive and setPermissions to None; it moves nothing. */
async function handOver(local: LocalChain): Promise<string> {
  local.activate();
  const holder = PublicKey.fromBase58(ACCOUNT0);
  const tx = await Mina.transaction({ sender: holder, fee: 100_000_000 }, async () => {
    const mine = AccountUpdate.createSigned(holder);
    mine.account.permissions.set({
      ...Permissions.default(),
      send: Permissions.none(),
      receive: Permissions.none(),
      setPermissions: Permissions.none(),
    });
  });
  return tx.toJSON();
}

/** What the attacker sent next: the holder's whole balance to the attacker, with no signature of the holder. */
async function drain(local: LocalChain, amount: bigint) {
  const attacker = PrivateKey.random();
  await local.fund(attacker.toPublicKey().toBase58(), MINA);
  local.activate();
  const tx = await Mina.transaction({ sender: attacker.toPublicKey(), fee: 100_000_000 }, async () => {
    AccountUpdate.create(PublicKey.fromBase58(ACCOUNT0)).send({ to: attacker.toPublicKey(), amount: UInt64.from(amount) });
  });
  return local.send(JSON.parse(tx.sign([attacker]).toJSON()));
}

describe('the spend cap counts authority', () => {
  it("under a 1 MINA cap and an approving review, a command setting the account's own send to None is refused before the device, and the drain that followed fails", async () => {
    const local = await fundedLocalChain(50n * MINA);
    const { chain, reviews, blindRequests } = await approvingProvider(local);
    const error = await failure(chain.sendTransaction({ transaction: await handOver(local) }));
    expect(error).toMatchObject({
      code: 20003,
      data: {
        field: 'transaction',
        reason: expect.stringMatching(
          /^Update 1 changes your account's permissions: .*send None, receive None.*setPermissions None.*counts as your whole balance and is refused/,
        ),
      },
    });
    expect(reviews).toEqual([]); // refused before anyone is asked: no approval can let it through
    expect(blindRequests()).toBe(0);
    expect(await local.nonceOf(ACCOUNT0)).toBe(0);
    // The attacker's next command, signed by the attacker alone: the holder's send permission still asks a signature.
    await expect(drain(local, 49n * MINA)).rejects.toThrow(/Update_not_permitted_balance/);
    expect(await local.balanceOf(ACCOUNT0)).toBe(50n * MINA);
  }, 120_000);

  it('confirmed by name, the same command is signed and applied, and then anyone can take the balance: what the holder confirmed', async () => {
    const local = await fundedLocalChain(50n * MINA);
    const asked: BeyondSpendCap[] = [];
    const { chain, reviews } = await approvingProvider(local, (change) => (asked.push(change), change.change === 'permissions'));
    await chain.sendTransaction({ transaction: await handOver(local) });
    expect(reviews).toHaveLength(1);
    expect(asked).toEqual([
      {
        change: 'permissions',
        update: 0,
        value: expect.objectContaining({ send: 'None', receive: 'None', setPermissions: 'None' }),
        description: expect.stringMatching(/^Update 1 changes your account's permissions: .*send None/),
        origin: ORIGIN,
      },
    ]);
    const balance = (await local.balanceOf(ACCOUNT0))!;
    expect(balance).toBe(50n * MINA - 100_000_000n);
    await drain(local, balance);
    expect(await local.balanceOf(ACCOUNT0)).toBe(0n);
  }, 120_000);
});

describe('what else no amount counts, and MINA in MINA', () => {
  type Body = Record<string, unknown> & { update: Record<string, unknown>; balanceChange: Record<string, string> };
  /** The fixture (2.1 MINA out) with the holder's update (the second) edited. */
  const edited = (edit: (body: Body) => void) => {
    const command = berkeleyCommand();
    edit(command.accountUpdates[1]!.body as unknown as Body);
    return command;
  };
  const ATTACKER = addressOf(1);
  const token = async () => (await minaSignerInternals('berkeley')).TokenId.toJSON(5n);
  const cases: [string, () => Promise<ReturnType<typeof berkeleyCommand>>, BeyondSpendCap['change'], RegExp][] = [
    [
      'a delegate change',
      async () => edited((b) => (b.update.delegate = ATTACKER)),
      'delegate',
      /^Update 2 changes your account's delegate: B62q/,
    ],
    [
      'a timing that locks 49 MINA until slot 2³²−1',
      async () =>
        edited(
          (b) =>
            (b.update.timing = {
              initialMinimumBalance: '49000000000',
              cliffTime: '4294967295',
              cliffAmount: '0',
              vestingPeriod: '1',
              vestingIncrement: '0',
            }),
        ),
      'timing',
      /^Update 2 changes your account's timing \(a lock-up\): .*49000000000/,
    ],
    [
      'a new verification key',
      async () => edited((b) => (b.update.verificationKey = { data: 'AAAA', hash: '1' })),
      'verificationKey',
      /^Update 2 changes your account's verification key: set \(hash 1\)/,
    ],
    [
      'a −10¹⁵ balance change in another token',
      async () => {
        const id = await token();
        return edited((b) => {
          b.tokenId = id;
          b.balanceChange = { magnitude: '1000000000000000', sgn: 'Negative' };
        });
      },
      'token',
      /^1000000000000000 \(smallest units\) of token \w+ leave your account/,
    ],
  ];

  it.each(cases)(
    '%s: refused under a cap (20003 saying why) before the device; without a cap, reviewed and signed',
    async (_name, make, change, said) => {
      const capped = await released({}, { spendCap: 100 });
      const error = await failure(capped.chain.sendTransaction({ transaction: await make(), onlySign: true }));
      expect(error).toMatchObject({ code: 20003, data: { field: 'transaction', reason: expect.stringMatching(said) } });
      expect(capped.requests('e006')).toBe(0);

      // Asked by name: a refusal is 1002 with nothing on the device; a confirmation signs it.
      for (const answer of [false, true]) {
        const asked: BeyondSpendCap[] = [];
        const named = await released({}, { spendCap: 100, confirmBeyondSpendCap: (c) => (asked.push(c), answer) });
        const sent = named.chain.sendTransaction({ transaction: await make(), onlySign: true });
        if (answer) expect(verifySigned('berkeley', 'devnet', signedDataOf(await sent), ACCOUNT0)).toBe(true);
        else expect(await failure(sent)).toMatchObject({ code: 1002 });
        expect(asked.map((c) => c.change)).toEqual([change]);
        expect(named.requests('e006') > 0).toBe(answer);
      }

      const uncapped = await released();
      expect(
        verifySigned(
          'berkeley',
          'devnet',
          signedDataOf(await uncapped.chain.sendTransaction({ transaction: await make(), onlySign: true })),
          ACCOUNT0,
        ),
      ).toBe(true);
    },
  );

  it("another account's delegate or permissions change is shown, not counted: the cap is the holder's account", async () => {
    const command = berkeleyCommand();
    (command.accountUpdates[2]!.body.update as Record<string, unknown>).delegate = addressOf(1);
    const { chain } = await released({}, { spendCap: 3 });
    expect(
      verifySigned('berkeley', 'devnet', signedDataOf(await chain.sendTransaction({ transaction: command, onlySign: true })), ACCOUNT0),
    ).toBe(true);
  });

  it('MINA over the cap is refused in MINA, fee included', async () => {
    const { chain, requests } = await released({}, { spendCap: 2 });
    expect(await failure(chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }))).toMatchObject({
      code: 20003,
      data: { field: 'transaction', reason: 'the command takes 2.1 MINA from your account (fee included), above the spend cap of 2 MINA' },
    });
    expect(requests('e006')).toBe(0);
  });
});
