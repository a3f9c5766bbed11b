/**
 * A `_headers` file (Netlify, Cloudflare Pages) read as those hosts read it, written here apart from the wallet's
 * generator (examples/wallet/headers.ts) so that the e2e test's wallet server applies the file the build wrote, not
 * the rules it was written from: a line at the margin is a path pattern (`*`: any rest; `:name`: one segment), the
 * indented `Name: value` lines under it are its headers, `#` starts a comment. A response gets the headers of every
 * pattern its path matches; a header set by two of them is sent once, their values joined with ", ".
 */
import { readFile } from 'node:fs/promises';

export interface HeadersFileRule {
  pattern: RegExp;
  source: string;
  headers: [string, string][];
}

/** The rules of a `_headers` file; throws, naming the line, on anything else. */
export function parseHeadersFile(text: string): HeadersFileRule[] {
  const rules: HeadersFileRule[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.trim().startsWith('#')) return;
    if (!/^\s/.test(line)) {
      if (!line.startsWith('/')) throw new Error(`_headers line ${i + 1}: a path must start with /: ${line}`);
      const pattern = line
        .trim()
        .split(/(\*|:[A-Za-z]\w*)/)
        .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      rules.push({ pattern: new RegExp(`^${pattern}$`), source: line.trim(), headers: [] });
      return;
    }
    const header = /^\s+([A-Za-z0-9-]+):\s*(.*?)\s*$/.exec(line);
    const rule = rules.at(-1);
    if (!header || !rule) throw new Error(`_headers line ${i + 1}: not "Name: value" under a path: ${line}`);
    rule.headers.push([header[1]!, header[2]!]);
  });
  return rules;
}

/** The headers the hosts send for `path` (lower-case names, as HTTP/2 sends them). */
export function headersFromFile(rules: HeadersFileRule[], path: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const rule of rules) {
    if (!rule.pattern.test(path)) continue;
    for (const [name, value] of rule.headers) {
      const key = name.toLowerCase();
      headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
    }
  }
  return headers;
}

/**
 * The headers of a site by its `_headers` file, read from `file` by `load()` (after the build that writes it); a
 * response before that is an error, not a response without headers.
 */
export function headersFileServer(file: string): { load(): Promise<HeadersFileRule[]>; headers(path: string): Record<string, string> } {
  let rules: HeadersFileRule[] | undefined;
  return {
    load: async () => (rules = parseHeadersFile(await readFile(file, 'utf8'))),
    headers: (path) => {
      if (!rules) throw new Error(`${file} not loaded: the build has not finished`);
      return headersFromFile(rules, path);
    },
  };
}
