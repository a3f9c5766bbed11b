/**
 * The wallet site's response headers (examples/wallet/headers.ts: the one definition used by `npm run wallet`,
 * `vite preview`, the build's `_headers` file and docs/wallet.md's nginx and Caddy blocks): no site may frame the
 * wallet page or its prover window, where its Revoke and device buttons could be clicked under a decoy
 * (clickjacking); the `_headers` file, read as the hosts read it (test/support/headers-file.ts), gives every path
 * the headers the dev server sends; the docs show what the rules give.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { caddyConfig, headersFile, nginxConfig, walletHeadersFor } from '../../examples/wallet/headers.js';
import { WALLET_DOC, withHostingBlocks } from '../../examples/wallet/hosting-docs.js';
import { headersFromFile, parseHeadersFile } from '../support/headers-file.js';

const PATHS = ['/', '/index.html', '/?from=dapp', '/assets/index-abc123.js', '/assets/o1js-2.10.0.js', '/prover.html', '/prover'];
const lowerCased = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([n, v]) => [n.toLowerCase(), v]));

describe("the wallet site's headers", () => {
  it("every page and asset of the wallet, the prover window too, is sent with CSP frame-ancestors 'none'", () => {
    for (const path of PATHS) expect(walletHeadersFor(path)['Content-Security-Policy'], path).toBe("frame-ancestors 'none'");
    // The isolation headers are kept beside it (COOP on the prover window only).
    expect(walletHeadersFor('/')).toMatchObject({ 'Document-Isolation-Policy': 'isolate-and-require-corp' });
    expect(walletHeadersFor('/')['Cross-Origin-Opener-Policy']).toBeUndefined();
    expect(walletHeadersFor('/index.html?x=1')['Cross-Origin-Opener-Policy']).toBeUndefined();
    expect(walletHeadersFor('/prover.html')['Cross-Origin-Opener-Policy']).toBe('same-origin');
    expect(walletHeadersFor('/prover?from=wallet')['Cross-Origin-Opener-Policy']).toBe('same-origin');
    // Pages revalidated, hashed assets kept.
    expect(walletHeadersFor('/')['Cache-Control']).toBe('no-cache');
    expect(walletHeadersFor('/assets/index-abc123.js')['Cache-Control']).toBe('public, max-age=31536000, immutable');
    expect(walletHeadersFor('/_headers')['Cache-Control']).toBeUndefined();
  });

  it('the _headers file, read as Netlify and Cloudflare Pages read it, gives each path exactly the headers of the rules', () => {
    const rules = parseHeadersFile(headersFile());
    for (const path of [...PATHS.filter((p) => !p.includes('?')), '/_headers', '/assets/nested/worker-x.js']) {
      expect(headersFromFile(rules, path), path).toEqual(lowerCased(walletHeadersFor(path)));
    }
  });

  it('the _headers reader joins a header set by two rules, matches :name as one segment, and refuses what it cannot read', () => {
    const rules = parseHeadersFile('# c\n/*\n  X-A: 1\n/a/:id\n  x-a: 2\n');
    expect(headersFromFile(rules, '/a/b')).toEqual({ 'x-a': '1, 2' });
    expect(headersFromFile(rules, '/a/b/c')).toEqual({ 'x-a': '1' });
    expect(() => parseHeadersFile('  X-A: 1\n')).toThrow(/line 1/);
    expect(() => parseHeadersFile('assets/*\n')).toThrow(/start with \//);
  });

  it("docs/wallet.md's _headers, nginx and Caddy blocks are what the rules give (npm run wallet:hosting-docs)", async () => {
    const doc = await readFile(WALLET_DOC, 'utf8');
    expect(withHostingBlocks(doc)).toBe(doc);
    for (const block of [headersFile(), nginxConfig(), caddyConfig()]) expect(doc).toContain(block);
    // nginx: every location repeats the site-wide headers (it does not inherit add_header into a block with its own).
    const locations = nginxConfig().split('location ').slice(1);
    expect(locations.length).toBe(5);
    for (const location of locations) expect(location).toContain('add_header Content-Security-Policy "frame-ancestors \'none\'" always;');
    expect(nginxConfig()).toMatch(/location = \/prover\.html \{[^}]*Cross-Origin-Opener-Policy "same-origin"/);
    expect(nginxConfig()).not.toMatch(/location = \/index\.html \{[^}]*Cross-Origin-Opener-Policy/);
  });
});
