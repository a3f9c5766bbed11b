/**
 * The extension version a software Ledger speaks (docs/apdu-extensions.md), in a module of its own: the instruction
 * table (./extension-instructions.ts) and the instructions whose rules change with the version (./text-device.ts, the
 * 1.4 long texts) both read it, and neither imports the other back.
 */

/** The extension version a device speaks, or false (the released app). */
export type ExtensionVersion = false | '1.0' | '1.1' | '1.2' | '1.3' | '1.4';
