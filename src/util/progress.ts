/**
 * The stages of one provider call, for progress UI ("Compiling… 12 s", "Confirm on your Ledger"): the domain modules
 * report a stage when it starts, the provider adds the method name and the time since the call started and hands it
 * to the integrator's `onProgress` (docs/provider.md). A leaf, so every layer can report without importing the
 * provider.
 */

/** A step of one provider call, told when it starts. */
export type ProgressStage =
  /** Importing o1js / mina-attestations (the first presentation of a page or process). */
  | 'loading-prover'
  /**
   * A presentation request is shown to the holder (the host's `confirmPresentation`): told at once to every valid
   * request, before anything is read from the credential store or computed on it; the next stage comes only after
   * the holder approved.
   */
  | 'awaiting-approval'
  /** Compiling the presentation circuit (from the prover-key cache, or from nothing). */
  | 'compiling'
  /**
   * The wallet's window cannot prove (the browser did not make it cross-origin isolated): it waits for the holder to
   * open its prover window, within a bound (src/wallet/prover.ts); compiling or proving goes on there once it is open.
   */
  | 'waiting-for-prover-window'
  /** The device is locked: unlock it (transports with device actions, e.g. Ledger's Device Management Kit). */
  | 'unlock-device'
  /** The Mina app is being opened on the device: confirm there. */
  | 'open-app'
  /** The device shows a review: the user approves or rejects there (the prompt says what). */
  | 'confirm-on-device'
  /** Making the proof. */
  | 'proving'
  /** Sending to the node or the local chain. */
  | 'broadcasting'
  /** The call succeeded. */
  | 'done'
  /** The call failed (its promise rejects with the `ProviderError`). */
  | 'failed';

/** How a domain module reports a stage; the provider adds the method name and the elapsed time. */
export type ReportProgress = (stage: ProgressStage, extra?: { prompt?: string; retry?: boolean }) => void;
