import type { ApduTransport } from '../../src/transport/types.js';

/** Wraps a transport and records every request, to prove when nothing reached the device. */
export function counting(inner: ApduTransport) {
  const sent: { ins: number; p1: number; data: Uint8Array }[] = [];
  const transport: ApduTransport = {
    send(cla, ins, p1, p2, data, statusList) {
      sent.push({ ins, p1, data: data ?? new Uint8Array(0) });
      return inner.send(cla, ins, p1, p2, data, statusList);
    },
  };
  return { transport, sent };
}
