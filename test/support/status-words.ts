/** The documented status-word table (docs/transports.md#errors): the class of error the client raises for each word. */

export function statusClass(sw: number): string {
  if ([0x6985, 0x6986, 0x5501].includes(sw)) return 'LedgerUserRejectedError';
  if (sw === 0x5515) return 'LedgerDeviceLockedError';
  if (sw === 0x6d00) return 'LedgerUnsupportedInstructionError';
  if ([0x6e00, 0x6e01, 0x6511, 0x6d02].includes(sw)) return 'LedgerAppNotOpenError';
  if ((sw & 0xff00) === 0x6800) return 'LedgerInvalidDataError';
  return 'LedgerStatusError';
}
