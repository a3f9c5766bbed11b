/**
 * Runs a mina-attestations (zod 3) schema without capturing stack traces: zod builds a ZodError, an Error, for
 * every failed union branch, and capturing their stacks is two thirds of the time an invalid argument costs
 * (1 600 failing type descriptions: 7.1 s → 2.4 s). The parse is synchronous, so no other code sees the setting.
 */
export function safeParseWithoutStacks<T>(schema: { safeParse(value: unknown): T }, value: unknown): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return schema.safeParse(value);
  } finally {
    Error.stackTraceLimit = limit;
  }
}
