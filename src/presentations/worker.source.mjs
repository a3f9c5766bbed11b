// Starts worker.ts from the TypeScript sources (tests, tsx) through tsx; dist uses the compiled .js.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
