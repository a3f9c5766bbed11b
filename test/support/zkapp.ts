/** zkApp commands for tests: the committed o1js-built fixture, its Mesa-shaped twin, and the era verifiers. */
import { readFileSync } from 'node:fs';
import ClientMesa from 'mina-signer';
import ClientBerkeley from 'mina-signer-berkeley';
import type { ZkappCommandJson } from '../../src/zkapp/command.js';

/**
 * o1js 2.15 `Mina.transaction({ sender: account 0, fee: 0.1, memo: 'chain-ledger transcript' })` with
 * `AccountUpdate.fundNewAccount(sender)` and `AccountUpdate.createSigned(sender).send({ to: account 1, amount: 1 })`:
 * three account updates, two of them signed by account 0 with the full commitment. Berkeley layout (8 fields).
 */
export function berkeleyCommand(): ZkappCommandJson {
  return JSON.parse(readFileSync(new URL('../fixtures/zkapp-command-berkeley.json', import.meta.url), 'utf8'));
}

/** The same command in the Mesa layout: every app-state array padded to 32 entries. */
export function mesaCommand(): ZkappCommandJson {
  return resizeState(berkeleyCommand(), 32);
}

export function resizeState(command: ZkappCommandJson, length: number): ZkappCommandJson {
  for (const au of command.accountUpdates) {
    au.body.update.appState = Array.from({ length }, (_, i) => au.body.update.appState[i] ?? null);
    au.body.preconditions.account.state = Array.from({ length }, (_, i) => au.body.preconditions.account.state[i] ?? null);
  }
  return command;
}

/** `n` account updates signed by the fixture's sender; `partial` of them use the (partial) commitment. */
export function manyUpdates(command: ZkappCommandJson, n: number, partial = 0): ZkappCommandJson {
  const template = command.accountUpdates[1]!;
  command.accountUpdates = Array.from({ length: n }, (_, i) => {
    const au = structuredClone(template);
    au.body.useFullCommitment = i >= partial;
    au.body.incrementNonce = i < partial;
    return au;
  });
  return command;
}

/** o1js 2.15 `Permissions.default()` as a command's JSON has it. */
export const DEFAULT_PERMISSIONS = {
  editState: 'Proof',
  access: 'None',
  send: 'Signature',
  receive: 'None',
  setDelegate: 'Signature',
  setPermissions: 'Signature',
  setVerificationKey: { auth: 'Signature', txnVersion: '3' },
  setZkappUri: 'Signature',
  editActionState: 'Proof',
  setTokenSymbol: 'Signature',
  incrementNonce: 'Signature',
  setVotingFor: 'Signature',
  setTiming: 'Signature',
};

/**
 * What a blind review must not hide (security review T3-C and T4-A): the fixture, whose second update (the holder's,
 * signed with the full commitment) also sets the holder's send, receive and setPermissions to None, plus a fourth
 * update, of the zkApp `zkapp` with no authorization of its own, that writes app state 0 := 42 and 1 := 7.
 */
export function handOverWithStateWrite(zkapp: string): ZkappCommandJson {
  const command = berkeleyCommand();
  const write = structuredClone(command.accountUpdates[2]!);
  Object.assign(write.body, {
    publicKey: zkapp,
    balanceChange: { magnitude: '0', sgn: 'Positive' },
    authorizationKind: { ...write.body.authorizationKind, isSigned: false, isProved: false },
  });
  write.body.update.appState = ['42', '7', null, null, null, null, null, null];
  command.accountUpdates.push(write);
  const permissions = { ...structuredClone(DEFAULT_PERMISSIONS), send: 'None', receive: 'None', setPermissions: 'None' };
  (command.accountUpdates[1]!.body.update as Record<string, unknown>).permissions = permissions;
  return command;
}

const clients = {
  berkeley: { devnet: new ClientBerkeley({ network: 'devnet' }), mainnet: new ClientBerkeley({ network: 'mainnet' }) },
  mesa: { devnet: new ClientMesa({ network: 'devnet' }), mainnet: new ClientMesa({ network: 'mainnet' }) },
};

/** mina-signer's own `verifyZkappCommand` for an era and network, on the `signedData` a provider returned. */
export function verifySigned(era: 'berkeley' | 'mesa', network: 'devnet' | 'mainnet', signedData: string, publicKey: string): boolean {
  const data = JSON.parse(signedData);
  try {
    return clients[era][network].verifyZkappCommand({ data, publicKey, signature: data.zkappCommand.feePayer.authorization });
  } catch {
    return false;
  }
}
