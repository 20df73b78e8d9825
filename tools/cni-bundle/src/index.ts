export { bundleCniPlugin } from './bundle.js';
export type { BundleOptions } from './bundle.js';
