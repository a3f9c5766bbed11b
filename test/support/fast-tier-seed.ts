/**
 * The fast tier's properties draw one fixed sequence (vitest.unit.config.ts loads this in every test file there).
 * At a fifth of their counts, a property's check that its cases reached the signing code ("signed > 0") could miss
 * on an unlucky draw; the edit loop must not fail at random. `npm test` and CI draw a new seed each run, at the
 * full counts; `FC_SEED=<n> npm run test:unit` draws another sequence here.
 */
import fc from 'fast-check';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_204) });
