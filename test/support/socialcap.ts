/**
 * A Socialcap-like text for SIGN_TEXT's long texts (extension 1.4): Socialcap signs an elector's vote batch as one
 * JSON text, and three votes are 2,269 bytes (issue #33). Shared by test/extension/sign-text-long.test.ts and the
 * vector tool tools/extension-vectors/sign-text-long.ts.
 */
import { addressOf } from './vectors.js';

const bytesOf = (message: string) => new TextEncoder().encode(message).length;

/**
 * A Socialcap-like vote batch: an elector's three votes as one JSON text, padded in its notes to exactly 2,269
 * bytes (the size issue #33 measured for three votes).
 */
export function socialcapVotes(): string {
  const vote = (i: number, notes: string) => ({
    uid: `9a4c1f0e2b7d4e8f9c3a6b5d${i}`.padEnd(32, '0'),
    claimUid: `c1aim${i}`.padEnd(32, 'f'),
    elector: addressOf(0),
    result: i === 2 ? '-' : '+',
    planUid: 'a5b1c3d7e9f04b2a8c6d1e3f5a7b9c0d',
    communityUid: '2f8e4d6c0b1a49e7b3c5d7e9f1a3c5e7',
    createdUTC: `2024-05-0${i}T12:34:56.789Z`,
    notes,
  });
  const batch = (pad: number) =>
    JSON.stringify({ type: 'votes-batch', signer: addressOf(0), votes: [1, 2, 3].map((i) => vote(i, 'ok '.repeat(pad).trim())) });
  let pad = 0;
  while (bytesOf(batch(pad + 1)) <= 2269) pad++;
  const json = batch(pad);
  return json.replace('"type":"votes-batch"', `"type":"votes-batch${'.'.repeat(2269 - bytesOf(json))}"`);
}
