/**
 * The client against recorded APDUs: every request must equal the recorded one byte for byte (the replayer fails
 * otherwise) and every reply must parse to the vector's values.
 */
import { RecordStore, openTransportReplayer } from '@ledgerhq/hw-transport-mocker';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp } from '../../src/apdu.js';
import { exchange, transcript, txOf, vectors, type VectorExchange } from '../support/vectors.js';

async function replay(...names: string[]) {
  const store = RecordStore.fromString(transcript(...names));
  const transport = await openTransportReplayer(store);
  return { app: new MinaLedgerApp(transport), store };
}

/** The client call a vector exchange corresponds to. */
function call(app: MinaLedgerApp, e: VectorExchange): Promise<unknown> {
  const p = e.params;
  switch (e.ins) {
    case 'GET_VERSION':
      return app.getAppVersion();
    case 'GET_ADDRESS':
      return app.getAddress(p.account, { display: p.showOnDevice });
    case 'SIGN_TX':
      return app.signTransaction(txOf(e));
    case 'SIGN_MSG':
      return app.signMessage(p.account, p.message, p.networkId);
    case 'SIGN_FIELD_ELEMENT':
      return app.signFieldElement(p.account, BigInt(p.field), p.networkId);
    default:
      throw new Error(`no client call for ${e.ins}`);
  }
}

/** Calls that read the app version first (for gating) replay the version exchange before their own. */
const gated = (e: VectorExchange) =>
  e.ins === 'SIGN_MSG' || e.ins === 'SIGN_FIELD_ELEMENT' || (e.ins === 'GET_ADDRESS' && !e.params.showOnDevice);

const clientExchanges = vectors.exchanges.filter(
  (e) => e.ins !== 'UNKNOWN' && !('note' in e.params) && !('cla' in e.params) && e.params.p1 !== 2,
);

describe('MinaLedgerApp replays every client-side vector exchange', () => {
  it('covers all vectors the client can emit (the rest are malformed on purpose)', () => {
    expect(clientExchanges.length).toBe(22);
    const malformed = vectors.exchanges.filter((e) => !clientExchanges.includes(e)).map((e) => e.name);
    expect(malformed.sort()).toEqual(['get_address_invalid_p1', 'lc_mismatch', 'sign_tx_wrong_length', 'unsupported_ins', 'wrong_cla']);
  });

  it.each(clientExchanges.map((e) => [e.name, e] as const))('%s', async (_name, e) => {
    const names = gated(e) ? ['get_version', e.name] : [e.name];
    const { app, store } = await replay(...names);
    const outcome = await call(app, e).then(
      (value) => ({ value }),
      (error: { name: string; statusCode?: number }) => ({ error }),
    );
    store.ensureQueueEmpty();

    if (e.result.statusWord !== '9000') {
      expect('error' in outcome).toBe(true);
      const error = (outcome as { error: { name: string; statusCode?: number; message: string } }).error;
      expect(error.name).toBe('LedgerUserRejectedError');
      expect(error.statusCode).toBe(parseInt(e.result.statusWord, 16));
      if (e.ins === 'SIGN_FIELD_ELEMENT') expect(error.message).toMatch(/Blind signing/);
      return;
    }
    const value = (outcome as { value: unknown }).value;
    switch (e.ins) {
      case 'GET_VERSION':
        expect(value).toEqual({ version: '1.6.0', major: 1, minor: 6, patch: 0 });
        break;
      case 'GET_ADDRESS':
        expect(value).toBe(e.result.address);
        break;
      case 'SIGN_MSG':
        expect(value).toEqual({ field: e.signature!.field, scalar: e.signature!.scalar, signedMessage: e.result.signedMessage });
        break;
      default:
        expect(value).toEqual({ field: e.signature!.field, scalar: e.signature!.scalar });
    }
  });

  it('reads the version once per client and reuses it for gating', async () => {
    const { app, store } = await replay('get_version', 'sign_msg_1', 'sign_field_devnet', 'get_address_0_silent');
    await app.signMessage(0, 'Hello Mina!', 0);
    await app.signFieldElement(0, BigInt(exchange('sign_field_devnet').params.field), 0);
    await app.getAddress(0);
    store.ensureQueueEmpty();
  });
});

describe('malformed replies are errors, never results', () => {
  const cases: [string, string, string, (app: MinaLedgerApp) => Promise<unknown>][] = [
    ['version of 4 bytes', 'e001000000', '010600009000', (app) => app.getAppVersion()],
    [
      'address without NUL',
      'e00200000400000000',
      exchange('get_address_0_show').reply.replace(/009000$/, '419000'),
      (app) => app.getAddress(0, { display: true }),
    ],
    [
      'address with a bad checksum',
      'e00200000400000000',
      exchange('get_address_0_show').reply.replace(/^4236/, '4237'),
      (app) => app.getAddress(0, { display: true }),
    ],
    ['signature of 63 bytes', exchange('sign_tx_1').request, exchange('sign_tx_1').reply.slice(2), (app) => callTx1(app)],
    ['signature r ≥ p', exchange('sign_tx_1').request, 'ff'.repeat(32) + exchange('sign_tx_1').reply.slice(64), (app) => callTx1(app)],
    [
      'field echo differs',
      exchange('sign_field_devnet').request,
      exchange('sign_field_devnet').reply.replace(/219000$/, '229000'),
      (app) => app.signFieldElement(0, BigInt(exchange('sign_field_devnet').params.field), 0),
    ],
    [
      'message echo differs',
      exchange('sign_msg_1').request,
      exchange('sign_msg_1').reply.replace(/219000$/, '3f9000'),
      (app) => app.signMessage(0, 'Hello Mina!', 0),
    ],
  ];

  it.each(cases)('%s', async (_name, request, reply, run) => {
    const needsVersion = request.startsWith('e005') || request.startsWith('e006');
    const text = `${needsVersion ? '=> e001000000\n<= 0106009000\n' : ''}=> ${request}\n<= ${reply}\n`;
    const transport = await openTransportReplayer(RecordStore.fromString(text));
    const error = await run(new MinaLedgerApp(transport)).catch((e: unknown) => e);
    expect((error as Error).name).toBe('LedgerReplyError');
  });
});

describe('a version read that another app or the dashboard answers', () => {
  const ascii = (text: string) => Buffer.from(text).toString('hex');
  const replay = async (text: string) => {
    const store = RecordStore.fromString(text);
    return { app: new MinaLedgerApp(await openTransportReplayer(store)), store };
  };

  it('the dashboard answers E0 01 with its OS version (0x9000): B0 01 says BOLOS, so the Mina app is not open', async () => {
    const osVersion = '3310000405312e312e3104e600000004342e303304332e313201000100';
    const { app, store } = await replay(
      `=> e001000000\n<= ${osVersion}9000\n=> b001000000\n<= 0105${ascii('BOLOS')}05${ascii('1.1.1')}01009000\n`,
    );
    await expect(app.getAppVersion()).rejects.toMatchObject({ name: 'LedgerAppNotOpenError', message: /the dashboard is open/ });
    store.ensureQueueEmpty();
  });

  it('another app answers E0 01 with bytes of its own: B0 01 names it', async () => {
    const { app } = await replay(`=> e001000000\n<= 01029000\n=> b001000000\n<= 0107${ascii('Bitcoin')}05${ascii('2.1.0')}01009000\n`);
    await expect(app.getAppVersion()).rejects.toMatchObject({ name: 'LedgerAppNotOpenError', message: /"Bitcoin" is open/ });
  });

  it('the Mina app itself answers a malformed version: it stays a LedgerReplyError', async () => {
    const { app } = await replay(`=> e001000000\n<= 010600009000\n=> b001000000\n<= 0104${ascii('Mina')}05${ascii('1.6.0')}01009000\n`);
    await expect(app.getAppVersion()).rejects.toMatchObject({ name: 'LedgerReplyError' });
  });
});

function callTx1(app: MinaLedgerApp) {
  return app.signTransaction(txOf(exchange('sign_tx_1')));
}
