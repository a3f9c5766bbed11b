/**
 * The wallet site's response headers by path: the one definition that the dev and preview servers send
 * (vite.config.ts), that `npm run build:wallet` writes to dist/_headers (Netlify / Cloudflare Pages), and that the
 * nginx and Caddy configurations of docs/wallet.md ("Host the wallet page") are generated from
 * (`npm run wallet:hosting-docs`; test/wallet/wallet-headers.test.ts checks that the docs say what this gives).
 */

/**
 * With every response: Document-Isolation-Policy isolates the wallet window and keeps its opener (COOP would sever it
 * from the dapp that opened it); COEP `require-corp` lets the prover window start its Worker from these scripts (a
 * COEP document's worker must have a compatible policy) and changes nothing for the wallet window;
 * `frame-ancestors 'none'`: no site can frame the wallet to make its Revoke or device buttons be clicked unseen.
 */
export const WALLET_HEADERS = {
  'Document-Isolation-Policy': 'isolate-and-require-corp',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Content-Security-Policy': "frame-ancestors 'none'",
} as const;

/** prover.html adds COOP, which isolates it (with COEP) where the browser ignores Document-Isolation-Policy. */
const PROVER_ONLY = { 'Cross-Origin-Opener-Policy': 'same-origin' } as const;
/** And with prover.html: COOP too. */
export const PROVER_HEADERS = { ...WALLET_HEADERS, ...PROVER_ONLY } as const;

/**
 * The pages are revalidated on every load: a fixed wallet (a security fix) reaches its users with their next visit,
 * not when a cache's heuristic (nginx and Caddy send Last-Modified without Cache-Control) decides.
 */
const PAGE_CACHE = { 'Cache-Control': 'no-cache' } as const;
/** The build's assets are named by their content hash: cached for good (o1js's chunk alone is 16 MB). */
const ASSET_CACHE = { 'Cache-Control': 'public, max-age=31536000, immutable' } as const;

/**
 * One rule: the headers of the responses whose path matches one of `paths` (`*` at the end: any rest, as in a
 * `_headers` file). A response gets the headers of every rule it matches; no two rules that match one path name the
 * same header (a `_headers` host would join their values with a comma).
 */
export interface HeaderRule {
  paths: readonly string[];
  headers: Readonly<Record<string, string>>;
}

/**
 * The wallet site's rules. `/prover` beside `/prover.html`: Cloudflare Pages serves prover.html there (its "pretty
 * URLs" redirect `/prover.html` to `/prover`), and the window must be isolated either way.
 */
export const WALLET_HEADER_RULES: readonly HeaderRule[] = [
  { paths: ['/*'], headers: WALLET_HEADERS },
  { paths: ['/', '/index.html'], headers: PAGE_CACHE },
  { paths: ['/prover.html', '/prover'], headers: { ...PROVER_ONLY, ...PAGE_CACHE } },
  { paths: ['/assets/*'], headers: ASSET_CACHE },
];

/** Whether `path` (no query) matches `pattern`: equal, or, for a pattern ending in `*`, starting with what precedes it. */
export function pathMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
}

/** The headers of a response of the wallet's site, by its request path (a query is ignored, as hosts do). */
export function walletHeadersFor(path: string, rules: readonly HeaderRule[] = WALLET_HEADER_RULES): Record<string, string> {
  const bare = path.replace(/[?#].*$/, '');
  const headers: Record<string, string> = {};
  for (const rule of rules) {
    if (!rule.paths.some((pattern) => pathMatches(pattern, bare))) continue;
    for (const [name, value] of Object.entries(rule.headers)) {
      if (name in headers) throw new Error(`two rules set ${name} for ${bare}`);
      headers[name] = value;
    }
  }
  return headers;
}

/** The `_headers` file (Netlify, Cloudflare Pages): per path a line, then its headers indented. */
export function headersFile(rules: readonly HeaderRule[] = WALLET_HEADER_RULES): string {
  const blocks = rules.flatMap((rule) =>
    rule.paths.map((path) => [path, ...Object.entries(rule.headers).map(([name, value]) => `  ${name}: ${value}`)].join('\n')),
  );
  return `# The wallet site's headers (examples/wallet/headers.ts, docs/wallet.md "Host the wallet page").\n${blocks.join('\n\n')}\n`;
}

/** The paths other than the catch-all `/*`, each once, in rule order. */
function specificPaths(rules: readonly HeaderRule[]): string[] {
  return [...new Set(rules.flatMap((rule) => rule.paths))].filter((path) => path !== '/*');
}

/**
 * An nginx server block. nginx does not inherit `add_header` into a location that has its own, so each location
 * repeats every header of its path; `always`: on error responses too.
 */
export function nginxConfig(rules: readonly HeaderRule[] = WALLET_HEADER_RULES): string {
  const addHeaders = (headers: Record<string, string>, indent: string) =>
    Object.entries(headers).map(([name, value]) => `${indent}add_header ${name} "${value}" always;`);
  const lines = [
    'server {',
    '    listen 443 ssl;',
    '    server_name wallet.example;  # a host name of its own',
    '    # ssl_certificate …; ssl_certificate_key …;',
    '    root /srv/chain-ledger-wallet;  # examples/wallet/dist',
    ...addHeaders(walletHeadersFor('/*', rules), '    '),
  ];
  for (const path of specificPaths(rules)) {
    const location = path.endsWith('*') ? path.slice(0, -1) : `= ${path}`;
    lines.push('', `    location ${location} {`, ...addHeaders(walletHeadersFor(path, rules), '        '), '    }');
  }
  return `${lines.join('\n')}\n}\n`;
}

/** A Caddyfile site block: every `header` directive whose path matches applies (as in a `_headers` file). */
export function caddyConfig(rules: readonly HeaderRule[] = WALLET_HEADER_RULES): string {
  const lines = ['wallet.example {', '\troot * /srv/chain-ledger-wallet  # examples/wallet/dist', '\tfile_server'];
  for (const rule of rules) {
    for (const path of rule.paths) {
      const matcher = path === '/*' ? '' : ` ${path}`;
      const fields = Object.entries(rule.headers).map(([name, value]) => `\t\t${name} "${value}"`);
      lines.push(`\theader${matcher} {`, ...fields, '\t}');
    }
  }
  return `${lines.join('\n')}\n}\n`;
}

/** The configurations docs/wallet.md shows, by the name of their marker there (`<!-- hosting:NAME -->`). */
export function hostingDocBlocks(rules: readonly HeaderRule[] = WALLET_HEADER_RULES): Record<'_headers' | 'nginx' | 'caddy', string> {
  return { _headers: headersFile(rules), nginx: nginxConfig(rules), caddy: caddyConfig(rules) };
}
