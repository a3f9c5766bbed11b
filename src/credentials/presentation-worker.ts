/**
 * The compile and the proof of a presentation, off the main thread (Node `worker_threads`): started by
 * presentation-runner.ts, one worker per presentation, terminated when the call ends or is aborted. The device step
 * (the owner signature, SIGN_FIELDS) stays in the main thread, between the two messages:
 *
 *   main → { prepare: { type, request, credentials, verifierIdentity } }   worker → { prepared: { messageFields, tagName } }
 *   main → { finalize: { signature } }                                      worker → { presentation }
 *
 * Any failure → { error: { stage, message } }. Nothing here touches the device or the store.
 */
import { parentPort } from 'node:worker_threads';
import { loadAttestations } from './attestations.js';

export interface PrepareMessage {
  type: 'https' | 'zk-app' | 'no-context';
  /** The request's JSON text. */
  request: string;
  /** The chosen credentials: input key and stored JSON text. */
  credentials: { key: string; json: string }[];
  verifierIdentity?: string;
}

export type WorkerReply =
  | { prepared: { messageFields: string[]; tagName?: string } }
  | { presentation: string }
  | { error: { stage: 'prepare' | 'finalize'; message: string } };

if (parentPort) {
  const port = parentPort;
  let state: { finalize: (signatureBase58: string) => Promise<string> } | undefined;
  port.on('message', async (message: { prepare?: PrepareMessage; finalize?: { signature: string } }) => {
    const stage = message.prepare ? 'prepare' : 'finalize';
    try {
      const { o1js, attestations } = await loadAttestations();
      const { Presentation, PresentationRequest, Credential } = attestations;
      if (message.prepare) {
        const { type, request: text, credentials, verifierIdentity } = message.prepare;
        const request = PresentationRequest.fromJSON(type, text);
        const chosen = await Promise.all(credentials.map(async ({ key, json }) => ({ ...(await Credential.fromJSON(json)), key })));
        const context = verifierIdentity === undefined ? undefined : { verifierIdentity };
        const prepared = await Presentation.prepare({ request, context, credentials: chosen } as Parameters<
          typeof Presentation.prepare
        >[0]);
        state = {
          finalize: async (signatureBase58) => {
            const presentation = await Presentation.finalize(request, o1js.Signature.fromBase58(signatureBase58), prepared);
            return Presentation.toJSON(presentation);
          },
        };
        const tagName = (prepared.compiledRequest as { tagName?: string }).tagName;
        port.postMessage({ prepared: { messageFields: prepared.messageFields, tagName } } satisfies WorkerReply);
      } else if (message.finalize && state) {
        port.postMessage({ presentation: await state.finalize(message.finalize.signature) } satisfies WorkerReply);
      } else {
        throw new Error('finalize before prepare');
      }
    } catch (error) {
      port.postMessage({ error: { stage, message: (error as Error)?.message ?? String(error) } } satisfies WorkerReply);
    }
  });
}
