/**
 * The wallet site's response headers (examples/wallet/vite.config.ts, used by `npm run wallet`, `vite preview` and
 * the browser tests' server): no site may frame the wallet page or its prover window, where its Revoke and device
 * buttons could be clicked under a decoy (clickjacking).
 */
import { describe, expect, it } from 'vitest';
import { walletHeadersFor } from '../../examples/wallet/vite.config.js';

describe("the wallet site's headers", () => {
  it("every page and asset of the wallet, the prover window too, is sent with CSP frame-ancestors 'none'", () => {
    for (const path of ['/', '/index.html', '/?from=dapp', '/assets/index-abc123.js', '/prover.html', '/prover']) {
      expect(walletHeadersFor(path)['Content-Security-Policy'], path).toBe("frame-ancestors 'none'");
    }
    // The isolation headers are kept beside it (COOP on the prover window only).
    expect(walletHeadersFor('/')).toMatchObject({ 'Document-Isolation-Policy': 'isolate-and-require-corp' });
    expect(walletHeadersFor('/')['Cross-Origin-Opener-Policy']).toBeUndefined();
    expect(walletHeadersFor('/prover.html')['Cross-Origin-Opener-Policy']).toBe('same-origin');
  });
});
