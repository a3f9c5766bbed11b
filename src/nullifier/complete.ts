/**
 * The host half of a nullifier. The device (extension CREATE_NULLIFIER) returns only what needs the secret key: the
 * nullifier point sk·H and the proof values c and s. Everything else is public and rebuilt here with o1js, and the
 * whole is checked with o1js `Nullifier.verify` before anyone sees it:
 *
 *   H        = hashToGroup(message ‖ pk)        (the device computed it too; the host never sends a point)
 *   g_r      = s·G − c·pk
 *   h_m_pk_r = s·H − c·nullifier
 *
 * o1js is imported on first use only.
 */
import type { DeviceNullifier } from '../apdu/extension.js';
import { loadO1js } from '../upstream/o1js.js';
import { ErrorCode, ProviderError } from '../errors/provider-error.js';

type Point = { x: string; y: string };

/** o1js / mina-signer `Json.Nullifier`, decimal strings. */
export interface NullifierJson {
  publicKey: Point;
  public: { nullifier: Point; s: string };
  private: { c: string; g_r: Point; h_m_pk_r: Point };
}

const untrusted = (reason: string) => new ProviderError(ErrorCode.Internal, { reason: `the Ledger returned a nullifier that ${reason}` });

export async function completeNullifier(address: string, message: bigint[], device: DeviceNullifier): Promise<NullifierJson> {
  const { Field, Group, Nullifier, Poseidon, PublicKey, Scalar } = await loadO1js();
  const point = (g: { x: { toString(): string }; y: { toString(): string } }): Point => ({ x: g.x.toString(), y: g.y.toString() });

  const pk = PublicKey.fromBase58(address).toGroup();
  let nullifier: InstanceType<typeof Group>;
  try {
    nullifier = Group.from(device.nullifier.x, device.nullifier.y);
  } catch {
    throw untrusted('is not a point on the curve');
  }
  const fields = message.map((m) => Field(m));
  const H = Poseidon.hashToGroup([...fields, ...pk.toFields()]);
  const c = Scalar.from(device.c);
  const s = Scalar.from(device.s);
  const json: NullifierJson = {
    publicKey: point(pk),
    public: { nullifier: point(nullifier), s: device.s.toString() },
    private: {
      c: device.c.toString(),
      g_r: point(Group.generator.scale(s).sub(pk.scale(c))),
      h_m_pk_r: point(H.scale(s).sub(nullifier.scale(c))),
    },
  };
  try {
    Nullifier.fromJSON(json).verify(fields);
  } catch {
    throw untrusted('does not verify for this account and message');
  }
  return json;
}
