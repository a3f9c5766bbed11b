/**
 * The Ledger HID framing, both directions (pure functions on Web APIs only, used by the test's `navigator.hid` and by
 * the tests that compare frames): 64-byte reports = channel (2 bytes BE) | tag 0x05 | sequence (2 bytes BE) |
 * payload; the first report of a message carries the message length (2 bytes BE) before its payload; the last is
 * zero-padded.
 */

const TAG_APDU = 0x05;

/** Splits a message into Ledger HID frames on `channel`. */
export function encodeFrames(channel: number, message: Uint8Array, packetSize = 64): Uint8Array[] {
  if (message.length > 0xffff) throw new RangeError(`message too long for HID framing: ${message.length} bytes`);
  const body = new Uint8Array(message.length + 2);
  body[0] = message.length >> 8;
  body[1] = message.length & 0xff;
  body.set(message, 2);
  const chunk = packetSize - 5;
  const frames: Uint8Array[] = [];
  for (let seq = 0, offset = 0; offset < body.length; seq++, offset += chunk) {
    const frame = new Uint8Array(packetSize);
    frame.set([(channel >> 8) & 0xff, channel & 0xff, TAG_APDU, (seq >> 8) & 0xff, seq & 0xff]);
    frame.set(body.subarray(offset, offset + chunk), 5);
    frames.push(frame);
  }
  return frames;
}

/** Reassembles one message from Ledger HID frames; throws on a wrong channel, tag or sequence. */
export class FrameAssembler {
  channel: number | undefined;
  #length = 0;
  #data: number[] = [];
  #sequence = 0;
  frames = 0;

  /** Adds a frame; returns the whole message once complete, else undefined. */
  push(frame: Uint8Array): Uint8Array | undefined {
    if (frame.length < 5) throw new Error(`hid-shim: frame of ${frame.length} bytes`);
    const channel = (frame[0]! << 8) | frame[1]!;
    const tag = frame[2]!;
    const sequence = (frame[3]! << 8) | frame[4]!;
    if (tag !== TAG_APDU) throw new Error(`hid-shim: unexpected tag 0x${tag.toString(16)}`);
    if (sequence !== this.#sequence) throw new Error(`hid-shim: sequence ${sequence}, expected ${this.#sequence}`);
    let payload: Uint8Array;
    if (sequence === 0) {
      if (frame.length < 7) throw new Error('hid-shim: first frame without a length');
      this.channel = channel;
      this.#length = (frame[5]! << 8) | frame[6]!;
      payload = frame.subarray(7);
    } else {
      if (channel !== this.channel)
        throw new Error(`hid-shim: channel 0x${channel.toString(16)} inside a message on 0x${this.channel!.toString(16)}`);
      payload = frame.subarray(5);
    }
    this.#sequence++;
    this.frames++;
    for (const byte of payload.subarray(0, this.#length - this.#data.length)) this.#data.push(byte);
    return this.#data.length === this.#length ? Uint8Array.from(this.#data) : undefined;
  }
}
