/**
 * The Mina app's flows as v1.6.0 runs them on a Nano S Plus (Zondax/ledger-mina src/menu_bagl.c,
 * get_address_bagl.c, sign_tx_bagl.c at v1.6.0): the idle flow and its menu, the address review's two stages with
 * "Processing..." between them, the buttons as the SDK's flow engine reads them, and an approver that cancels at the
 * first stage.
 */
import { describe, expect, it } from 'vitest';
import { AppMenu, menuSteps } from '../../src/emulator/app-menu.js';
import { ButtonPanel, ReviewButtons, reviewArrows } from '../../src/emulator/review-buttons.js';
import { addressReview, blindSigningDisabledNotice, transactionReview, type ReviewAnswer } from '../../src/emulator/review.js';
import { exchange, addressOf } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';

const menuDevice = (version = '1.6.0') => {
  const device = { version, blindSigning: false, closed: false, closeApp: () => (device.closed = true) };
  return device;
};

describe('the idle flow: the app menu of v1.6.0', () => {
  it('shows "Mina is ready", Version, Developer, Copyright, Blind signing and Quit, as the app draws them', () => {
    const steps = menuSteps(menuDevice());
    expect(steps.map((s) => s.lines)).toEqual([
      ['Mina', 'is ready'],
      ['Version', '1.6.0'],
      ['Developer', 'Zondax AG'],
      ['Copyright', '(c) 2024 Ledger'],
      ['Blind signing', 'Disabled'],
      ['Quit'],
    ]);
    expect(steps.map((s) => [s.drawing.layout, s.drawing.icon])).toEqual([
      ['pnn', 'mina'],
      ['bn', undefined],
      ['bn', undefined],
      ['bn', undefined],
      ['bn', undefined],
      ['pb', 'dashboard'],
    ]);
    // Apps before 1.6.0 have no Blind signing setting.
    expect(menuSteps(menuDevice('1.5.0')).map((s) => s.title)).toEqual(['Mina', 'Version', 'Developer', 'Copyright', 'Quit']);
  });

  it('loops both ways, toggles Blind signing with both buttons and goes back to its first step, and quits the app', () => {
    const device = menuDevice();
    const menu = new AppMenu(device);
    expect(menu.arrows).toEqual({ left: true, right: true });
    expect(menu.press('left')).toBe('moved');
    expect(menu.screen.title).toBe('Quit');
    expect(menu.press('right')).toBe('moved');
    expect(menu.screen.title).toBe('Mina');
    expect(menu.press('both')).toBe('none'); // both does nothing on "Mina is ready"
    for (let i = 0; i < 4; i++) menu.press('right');
    expect(menu.screen.lines).toEqual(['Blind signing', 'Disabled']);
    expect(menu.press('both')).toBe('toggled');
    expect(device.blindSigning).toBe(true);
    expect(menu.screen.title).toBe('Mina');
    for (let i = 0; i < 4; i++) menu.press('right');
    expect(menu.screen.lines).toEqual(['Blind signing', 'Enabled']);
    menu.press('right');
    expect(menu.press('both')).toBe('quit');
    expect(device.closed).toBe(true);
  });
});

describe('the buttons of a review', () => {
  const review = addressReview("44'/12586'/0'/0/0", addressOf(0));

  it('the address review: "Get Address" and the path with Generate/Cancel, "Processing...", then the address with Approve/Reject', () => {
    expect(review.stages).toEqual([0, 4]);
    expect(review.betweenStages?.lines).toEqual(['Processing...']);
    expect(review.betweenStages?.drawing).toMatchObject({ layout: 'pb', icon: 'processing' });
    // Each stage is a flow of its own: no arrow back past its first screen, none on past its last.
    expect(reviewArrows(review).map((a) => `${a.left ? '<' : ' '}${a.right ? '>' : ' '}`)).toEqual([
      ' >',
      '<>',
      '<>',
      '< ',
      ' >',
      '<>',
      '<>',
      '< ',
    ]);
  });

  it('right and left stop at the ends of a stage; both acts only on its choices; Cancel answers "cancel", Reject false', () => {
    const walk = (presses: string[]) => {
      const buttons = new ReviewButtons(review);
      const steps = presses.map((b) => buttons.press(b as 'left' | 'right' | 'both'));
      return { buttons, last: steps.at(-1)! };
    };
    expect(walk(['left']).last).toEqual({ kind: 'none' }); // no wrap-around to Cancel
    expect(walk(['both']).last).toEqual({ kind: 'none' }); // "Get Address" is no choice
    expect(walk(['right', 'right', 'right', 'right']).buttons.screen.title).toBe('Cancel'); // and no further
    expect(walk(['right', 'right', 'right', 'both']).last).toEqual({ kind: 'decided', answer: 'cancel' });
    const generated = walk(['right', 'right', 'both']);
    expect(generated.last).toEqual({ kind: 'next-stage' });
    expect(generated.buttons.screen.title).toBe('Address (1/2)');
    expect(generated.buttons.press('left')).toEqual({ kind: 'none' }); // the first stage is over
    expect(walk(['right', 'right', 'both', 'right', 'right', 'both']).last).toEqual({ kind: 'decided', answer: true });
    expect(walk(['right', 'right', 'both', 'right', 'right', 'right', 'both']).last).toEqual({ kind: 'decided', answer: false });
    // A notice ends on its Reject only.
    const notice = new ReviewButtons(blindSigningDisabledNotice());
    notice.press('right');
    expect(notice.press('both')).toEqual({ kind: 'none' });
    notice.press('right');
    expect(notice.press('both')).toEqual({ kind: 'decided', answer: false });
  });

  it('a button acts when released, and two held together act as both', () => {
    const panel = new ButtonPanel();
    expect(panel.press('right')).toBeUndefined();
    expect(panel.release('right')).toBe('right');
    expect(panel.release('left')).toBeUndefined(); // never pressed
    panel.press('left');
    panel.press('right');
    expect(panel.release('right')).toBeUndefined(); // left still held
    expect(panel.release('left')).toBe('both');
  });

  it('a transaction shows "Signing..." once approved', () => {
    const tx = transactionReview(
      {
        txType: 'payment',
        from: addressOf(0),
        to: addressOf(1),
        amount: 1n,
        fee: 1n,
        nonce: 0,
        validUntil: 4294967295,
        memo: new Uint8Array(0),
        networkId: 1,
      },
      '1.6.0',
    );
    expect(tx.afterApproval?.lines).toEqual(['Signing...']);
    expect(tx.afterApproval?.drawing).toMatchObject({ layout: 'pb', icon: 'processing' });
  });
});

describe('an approver that answers a whole review', () => {
  it.each([
    ['cancel', '6985'],
    [false, '6985'],
    [true, exchange('get_address_0_show').reply],
  ] as Array<[ReviewAnswer, string]>)('answering %s to the address review gives %s', async (answer, reply) => {
    const device = quietLedger({ approve: () => answer });
    const got = await device.exchange(Uint8Array.from(Buffer.from(exchange('get_address_0_show').request, 'hex')));
    expect(Buffer.from(got).toString('hex')).toBe(reply);
  });
});
