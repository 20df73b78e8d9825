export {
  KUBECTL_VERSIONS,
  KUSTOMIZATIONS,
  REPO_ROOT,
  kubectlPath,
  objectId,
  renderKustomization,
} from './render.js';
export type { KubeObject, KubectlVersion, Rendered } from './render.js';
export { validateObject } from './validate.js';
export { EXPECTED_GRANTS, flattenRules, grant } from './expected-rules.js';
export type { Grant } from './expected-rules.js';
