export { bundleCniPlugin, bundleProgram } from './bundle.js';
export type { BundleOptions, CodeCacheKey, ProgramBundleOptions } from './bundle.js';
