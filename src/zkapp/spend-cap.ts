/**
 * What `spendCap` counts. MINA leaving the account (the fee it pays and its MINA balance decreases) is counted against
 * the cap. What no amount of MINA can count is counted as the whole balance, so it is over any cap: a change of the
 * account's own permissions, verification key, delegate or timing (with `send: None` anyone takes the balance later,
 * with no signature of the holder: the security review measured 49.9 MINA → 0 after a command that "spent" the fee),
 * and another token leaving the account (the cap is in MINA). Under a cap each of these is refused, unless the host
 * asks the holder about it by name (`confirmBeyondSpendCap`) and the holder confirms it.
 */
import { invalidParams } from '../errors/provider-error.js';
import type { AuthorityChange, ZkappSummary } from './summary.js';
import { AUTHORITY_NAMES, formatMina, settingText } from './summary-view.js';

/** One change beyond what the spend cap counts, as the host asks the holder to confirm it by name. */
export interface BeyondSpendCap {
  /** Its name: an authority change of the account's own settings, or `token` (another token leaving the account). */
  change: AuthorityChange | 'token';
  /** For an authority change: the account update (0-based; "Update update + 1") and the setting's new value (JSON). */
  update?: number;
  value?: unknown;
  /** For a token: its id and the amount leaving the account (its smallest unit). */
  token?: string;
  amount?: string;
  /** The change in words, to show the holder: "Update 1 changes your account's permissions: send None, …". */
  description: string;
}

/** Every change of `summary` that the spend cap cannot count in MINA, in the command's order. */
export function beyondSpendCap(summary: ZkappSummary): BeyondSpendCap[] {
  const changes: BeyondSpendCap[] = summary.authority.map(({ update, change, value }) => ({
    change,
    update,
    value,
    description: `Update ${update + 1} changes your account's ${AUTHORITY_NAMES[change]}: ${settingText({ change, value }, summary.connectedAccount)}`,
  }));
  for (const { token, amount } of summary.balanceChanges) {
    if (token === 'MINA' || BigInt(amount) >= 0n) continue;
    const out = (-BigInt(amount)).toString();
    changes.push({ change: 'token', token, amount: out, description: `${out} (smallest units) of token ${token} leave your account` });
  }
  return changes;
}

/**
 * The cap's refusal (20003, before the holder or the device is asked), or undefined: MINA above the cap; or a change
 * beyond what the cap counts when no host hook can ask the holder about it by name.
 */
export function spendCapRefusal(summary: ZkappSummary, cap: bigint, canConfirm: boolean) {
  const capText = `the spend cap of ${formatMina(cap)}`;
  if (BigInt(summary.spend) > cap) {
    return invalidParams(
      'transaction',
      `the command takes ${formatMina(BigInt(summary.spend))} from your account (fee included), above ${capText}`,
    );
  }
  const beyond = beyondSpendCap(summary);
  if (beyond.length === 0 || canConfirm) return undefined;
  return invalidParams(
    'transaction',
    `${beyond.map((b) => b.description).join('; ')}: no amount of MINA counts that, so under ${capText} it counts as your whole balance and is refused (a host confirms such a change with the holder by name: confirmBeyondSpendCap)`,
  );
}
