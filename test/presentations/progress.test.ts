/**
 * A presentation's stages as an integrator sees them through the provider (`onProgress`, `onDeviceAction`): the
 * domain's host stages and its device prompt, each told once, in order. The stages' own order, the import stage and
 * the retried steps are pinned at the domain level (in-thread.test.ts, retry.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import type { DeviceAction, ProgressEvent } from '../../src/index.js';
import { closeIdlePresentationWorker } from '../../src/presentations/runner.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { connectedWith, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const tempDir = tempDirs('progress');
let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);
afterAll(() => closeIdlePresentationWorker());

describe('a presentation’s progress through the provider', () => {
  it('the holder’s review, then compiling, then the owner’s prompt told once as confirm-on-device and once as confirm; a refusal ends it with failed', async () => {
    const events: ProgressEvent[] = [];
    const actions: DeviceAction[] = [];
    const connected = connectedWith({ extensions: true }, () => ({ credentialStore: new FileCredentialStore(tempDir()) }));
    const { chain } = await connected(
      { approve: (review) => review.kind !== 'presentation' },
      { onProgress: (event) => events.push(event), onDeviceAction: (action) => actions.push(action) },
    );
    await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) }); // the store key is asked here, once
    events.length = 0;
    actions.length = 0;

    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: issuer.presentationRequest().json } }));
    expect(error).toMatchObject({ code: 1002 });
    const prompt = 'Check the verifier and what is shared on your Ledger, and approve';
    expect(events.map(({ stage, prompt }) => ({ stage, prompt }))).toEqual([
      { stage: 'awaiting-approval', prompt: undefined },
      { stage: 'compiling', prompt: undefined },
      { stage: 'confirm-on-device', prompt },
      { stage: 'failed', prompt: undefined },
    ]);
    expect(events.every((e) => e.method === 'requestPresentation')).toBe(true);
    expect(actions.filter((a) => a.status === 'confirm')).toEqual([{ method: 'requestPresentation', status: 'confirm', prompt }]);
  }, 300_000);
});
