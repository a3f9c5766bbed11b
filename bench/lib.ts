/** Shared benchmark helpers: alternating runs, medians, and where results are written. */
import { cpus, totalmem } from 'node:os';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Runs `ours` and `baseline` alternately (one warm-up each, then `rounds` timed rounds) so that machine noise hits
 * both alike, and returns both medians in milliseconds and their ratio.
 */
export async function compare(rounds: number, ours: () => Promise<unknown>, baseline: () => Promise<unknown> | unknown) {
  await ours();
  await baseline();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    await ours();
    a.push(performance.now() - t);
    t = performance.now();
    await baseline();
    b.push(performance.now() - t);
  }
  const oursMs = median(a);
  const baselineMs = median(b);
  return { oursMs: round(oursMs), baselineMs: round(baselineMs), ratio: round(oursMs / baselineMs), rounds };
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export function machine() {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}
