export { wrapProvider, FallbackProvider, type ChainProvider, type WrapProviderOptions } from './wrap.js';
