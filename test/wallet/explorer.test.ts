/**
 * The block explorer the wallet links transactions to (examples/wallet/src/explorer.ts): Minascan by default for
 * Mina mainnet and devnet, the holder's https template with `{hash}` otherwise; a template that could become a script
 * or plain-http link is refused.
 */
import { describe, expect, it } from 'vitest';
import { defaultExplorer, explorerProblem } from '../../examples/wallet/src/explorer.js';

describe("the wallet's block explorer", () => {
  it('defaults to Minascan for mainnet and devnet', () => {
    expect(defaultExplorer('mina:mainnet')).toBe('https://minascan.io/mainnet/tx/{hash}');
    expect(defaultExplorer('mina:devnet')).toBe('https://minascan.io/devnet/tx/{hash}');
    expect(defaultExplorer('mina:nowhere')).toBeUndefined();
  });

  it('takes an https template with {hash} only', () => {
    expect(explorerProblem('https://minaexplorer.com/transaction/{hash}')).toBeUndefined();
    expect(explorerProblem('https://minaexplorer.com/transaction/')).toMatch(/\{hash\}/);
    expect(explorerProblem('http://explorer.example/{hash}')).toMatch(/https/);
    expect(explorerProblem('javascript:alert(1)//{hash}')).toMatch(/https/);
    expect(explorerProblem('not a url {hash}')).toMatch(/Not a URL/);
  });
});
