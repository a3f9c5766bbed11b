/**
 * `npm run wallet:hosting-docs`: writes the hosting configurations of docs/wallet.md ("Host the wallet page": the
 * `_headers` file, nginx, Caddy) from the wallet's header rules (headers.ts). Each is the fenced block after a
 * `<!-- hosting:NAME -->` marker; test/wallet/wallet-headers.test.ts fails when the docs and the rules differ.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { hostingDocBlocks } from './headers.js';

export const WALLET_DOC = fileURLToPath(new URL('../../docs/wallet.md', import.meta.url));

/** `markdown` with each marked block replaced by what the rules give; throws if a marker or its block is missing. */
export function withHostingBlocks(markdown: string): string {
  let text = markdown;
  for (const [name, block] of Object.entries(hostingDocBlocks())) {
    const marked = new RegExp(`(<!-- hosting:${name} -->\\n\`\`\`[a-z]*\\n)[\\s\\S]*?(\`\`\`\\n)`);
    if (!marked.test(text)) throw new Error(`docs/wallet.md has no block marked <!-- hosting:${name} -->`);
    text = text.replace(marked, (_, open: string, close: string) => `${open}${block}${close}`);
  }
  return text;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(WALLET_DOC, withHostingBlocks(await readFile(WALLET_DOC, 'utf8')));
  console.log('docs/wallet.md: the _headers, nginx and Caddy blocks written from examples/wallet/headers.ts');
}
