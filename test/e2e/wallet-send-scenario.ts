import Client from 'mina-signer';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { addressOf } from '../support/vectors.js';
import {
  ACCOUNT_0,
  type RoutedQuery,
  approveInWallet,
  docsImage,
  env,
  expectNoOverflow,
  openOwnWallet,
  routeCheckedNode,
  walletContext,
  walletScreen,
} from '../support/wallet-harness.js';

const NODE = 'https://node.example/graphql';
const HASH = '5JuSRViCY1GbnnpExLhoYLkD96vwnCjoC1MqsWPnkBbhAm6Bt7Gu';
const ACCOUNT_1 = addressOf(1);
interface Node {
  queries: RoutedQuery[];
  payments: { input: Record<string, string>; signature: { field: string; scalar: string } }[];
  /** Status questions answered since the payment was received. */
  asked: number;
}

/** 42.5 MINA at nonce 2 for account 0, 7 MINA for account 1; a payment is pending for two questions, then included. */
function answer(operation: string | undefined, variables: Record<string, unknown>, node: Node): unknown {
  switch (operation) {
    case 'walletAccount':
    case 'accountNonce': {
      const key = variables.publicKey;
      const balance = key === ACCOUNT_0 ? '42500000000' : key === ACCOUNT_1 ? '7000000000' : undefined;
      return { account: balance === undefined ? null : { balance: { total: balance }, nonce: '2', inferredNonce: '2' } };
    }
    case 'sendPayment':
      node.payments.push(variables as Node['payments'][number]);
      return { sendPayment: { payment: { hash: HASH, id: 'payment-1' } } };
    case 'walletCommandStatus': {
      const sent = node.payments.length > 0;
      const included = sent && ++node.asked > 2;
      const inBlock = included ? [{ hash: HASH, failureReason: null }] : [];
      return { pooledUserCommands: sent && !included ? [{ hash: HASH }] : [], bestChain: [{ transactions: { userCommands: inBlock } }] };
    }
    default:
      return null;
  }
}

async function routeNode(context: BrowserContext): Promise<Node> {
  const node: Node = { queries: [], payments: [], asked: 0 };
  node.queries = await routeCheckedNode(context, NODE, (operation, variables) => answer(operation, variables, node));
  return node;
}

async function addSecondAccount(wallet: Page): Promise<void> {
  await walletScreen(wallet, 'accounts');
  await wallet.click('#add-account');
  await approveInWallet(wallet, /Address/i);
  await wallet.waitForSelector('#accounts-status[data-state="added"]');
  expect(await wallet.locator('#accounts li.account-entry').count()).toBe(2);
  expect(await wallet.locator('#accounts li[data-selected="true"]').getAttribute('data-index')).toBe('1');
  await walletScreen(wallet, 'home');
  expect(await wallet.locator('#account-address').textContent()).toBe(ACCOUNT_1);
  await wallet.waitForSelector('#balance[data-state="ok"]');
  expect(await wallet.locator('#balance').textContent()).toBe('7 MINA');
  expect(await wallet.locator('#account-index').textContent()).toBe('Account 2');
  // Its QR code (uqr, drawn as SVG), shown on request.
  await wallet.click('#show-qr');
  expect(await wallet.locator('#address-qr svg').getAttribute('data-address')).toBe(ACCOUNT_1);
  expect(await wallet.locator('#address-qr').isVisible()).toBe(true);
}

async function sendPayment(wallet: Page, node: Node): Promise<void> {
  await walletScreen(wallet, 'home'); // Home's account selector: back to account 0
  await wallet.selectOption('#account-select', '0');
  await expect.poll(() => wallet.locator('#balance').textContent()).toBe('42.5 MINA');
  await walletScreen(wallet, 'send');
  await wallet.fill('#send-to', 'B62qnotanaddress');
  await wallet.locator('#send-to').blur();
  expect(await wallet.locator('#send-to-problem').getAttribute('data-state')).toBe('error');
  expect(await wallet.locator('#send-submit').isDisabled()).toBe(true);
  await wallet.fill('#send-to', ACCOUNT_1);
  await wallet.fill('#send-amount', '100');
  expect(await wallet.locator('#send-amount-problem').textContent()).toMatch(/more than the balance/);
  await wallet.fill('#send-amount', '1.5');
  await wallet.fill('#send-memo', 'rent');
  expect(await wallet.locator('#send-fee').inputValue()).toBe('0.0101'); // Auro's default level
  await expect.poll(() => wallet.locator('#send-submit').isDisabled()).toBe(false);
  await wallet.evaluate(() => scrollTo(0, 0));
  await expectNoOverflow(wallet, 'Send at 390 px');
  await wallet.screenshot({ path: docsImage('wallet-send-390') });
  await wallet.click('#send-submit');
  await approveInWallet(wallet, /1\.5/);
  await wallet.waitForSelector('#send-result[data-state="ok"]');
  expect(await wallet.locator('#send-result').getAttribute('data-hash')).toBe(HASH);
  expect(await wallet.locator('#send-result a').getAttribute('href')).toBe(`https://minascan.io/devnet/tx/${HASH}`);
  // What the node received is the payment the holder typed, signed by account 0 for the testnet domain.
  expect(node.payments).toHaveLength(1);
  const { input, signature } = node.payments[0]!;
  expect(input).toMatchObject({ from: ACCOUNT_0, to: ACCOUNT_1, amount: '1500000000', fee: '10100000', memo: 'rent', nonce: '2' });
  expect(new Client({ network: 'testnet' }).verifyPayment({ data: input as never, signature, publicKey: ACCOUNT_0 })).toBe(true);
}

export async function walletSend(): Promise<void> {
  const { wallet: walletOrigin } = await env();
  const context = await walletContext(undefined);
  const node = await routeNode(context);
  const wallet = await openOwnWallet(context, 390);
  await wallet.fill('#graphql', NODE);
  await wallet.locator('#graphql').dispatchEvent('change');
  await wallet.click('#demo');
  await wallet.waitForSelector('#balance[data-state="ok"]');

  await addSecondAccount(wallet);
  await walletScreen(wallet, 'accounts');
  await expectNoOverflow(wallet, 'Accounts at 390 px');
  await wallet.screenshot({ path: docsImage('wallet-accounts-390') });

  await sendPayment(wallet, node);
  // Activity: the payment, from the wallet itself, pending, then included (the status is asked every 5 s).
  await walletScreen(wallet, 'activity');
  const entry = wallet.locator('#activity li[data-kind="payment"]');
  expect(await entry.getAttribute('data-origin')).toBe(walletOrigin);
  expect(await entry.getAttribute('data-status')).toBe('pending');
  await expect.poll(() => entry.getAttribute('data-status'), { timeout: 30_000 }).toBe('included');
  expect(await entry.textContent()).toContain('Included in a block');
  expect(node.queries.filter((q) => q.errors.length > 0).map((q) => q.errors)).toEqual([]);

  const wide = await openOwnWallet(context, 1280);
  await wide.fill('#graphql', NODE);
  await wide.locator('#graphql').dispatchEvent('change');
  await wide.click('#demo');
  await wide.waitForSelector('#balance[data-state="ok"]');
  for (const screen of ['send', 'accounts'] as const) {
    await walletScreen(wide, screen);
    await expectNoOverflow(wide, `${screen} at 1280 px`);
    await wide.screenshot({ path: docsImage(`wallet-${screen}-1280`) });
  }
  await context.close();
}
