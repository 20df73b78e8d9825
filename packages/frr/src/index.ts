// @fabrik/frr: the renderer (@fabrik/frr/renderer, pure) and the runtime (@fabrik/frr/runtime,
// runs FRR's programs) in one entry point. A pipeline that only renders imports the renderer.
export * from './renderer.js';
export * from './runtime/index.js';
