/**
 * Globals the @ledgerhq transports expect, set before any of them loads (main.ts imports this module first).
 * `Buffer` comes from the `buffer` package (npm), the same one Node's Buffer API was modelled on.
 */
import { Buffer } from 'buffer';

const g = globalThis as { Buffer?: unknown };
g.Buffer ??= Buffer;
