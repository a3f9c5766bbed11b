/**
 * The wallet page's review of a zkApp command a blind device will sign (examples/wallet/src/zkapp-review.ts): what
 * its panel holds is the library's whole summary (`zkappSummaryView`), with who asks and the network named. Its DOM is
 * checked in Chromium by the released-app scenario of test/e2e/web-dapp.browser.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { zkappReviewPanel } from '../../examples/wallet/src/zkapp-review.js';
import type { ZkappSummary } from '../../src/index.js';
import { ORIGIN, connectedWith, quietLedger } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { handOverWithStateWrite } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);

describe("the wallet's review of a blind zkApp command", () => {
  it("holds another account's state write and the holder's send: None, with their values, the holder marked (you), numbered as the device numbers", async () => {
    const seen: (ZkappSummary & { origin: string })[] = [];
    const { chain } = await connectedWith({ blindSigning: true })({}, { confirmZkapp: (s) => (seen.push(s), true) });
    await chain.sendTransaction({ transaction: handOverWithStateWrite(quietLedger().addressOf(7)), onlySign: true });
    const panel = zkappReviewPanel(seen[0]!);
    expect(panel.heading).toBe(`${ORIGIN} asks you to sign a zkApp command on Devnet (mina:devnet).`);
    const section = (title: string) => panel.sections.find((s) => s.title === title)?.rows ?? [];
    expect(section('Update 4 of 4')).toContainEqual({ label: 'Sets state 0', value: '42' });
    expect(section('Update 4 of 4')).toContainEqual({ label: 'Account', value: quietLedger().addressOf(7), address: true });
    expect(section('Update 2 of 4')).toContainEqual({ label: 'Account', value: `${ACCOUNT0} (you)`, address: true });
    expect(section('Update 2 of 4')).toContainEqual(
      expect.objectContaining({ label: 'Permissions', value: expect.stringMatching(/send None/), flag: 'danger' }),
    );
    expect(section('zkApp command')).toContainEqual(expect.objectContaining({ label: 'Nonce' }));
    // Nothing of the summary is left out: the panel is the renderer's output, section for section.
    expect(panel.sections.map((s) => s.title)).toEqual([
      'zkApp command',
      'Update 1 of 4',
      'Update 2 of 4',
      'Update 3 of 4',
      'Update 4 of 4',
      'Your signature',
      'In all',
    ]);
  });
});
