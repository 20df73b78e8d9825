export { BASES, baseRecipe, baseTag, ensureBase, mmdebstrapArgs } from './base.js';
export type { BaseBuildDirs, BaseName, BaseRecipe } from './base.js';
export {
  CONTEXT_LABEL,
  REPO_ROOT,
  WORK_DIR,
  ensureImages,
  gitRevision,
  notBuildable,
  sharedCacheDir,
} from './build.js';
export type { BuiltImage, EnsureImagesOptions } from './build.js';
export { IMAGES, REPOSITORY_PREFIX } from './catalogue.js';
export type { AppContent, BundleContent, ImageSpec } from './catalogue.js';
export { nodeBinary } from './node-dist.js';
export { buildImage, imageExists, imageLabel, imageSize, podmanRunEnv } from './podman.js';
export type { BuildOptions } from './podman.js';
export {
  ProductionTreeError,
  isRuntimeFile,
  listFiles,
  planProductionTree,
  treePathOf,
} from './production-tree.js';
export type { TreeEntry } from './production-tree.js';
