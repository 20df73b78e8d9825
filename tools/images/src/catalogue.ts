import type { BaseName } from './base.js';

// fabrik's container images: what each holds and where its Containerfile is. The Containerfiles
// live in deploy/images/<image>/ rather than next to an app because images and apps do not map
// one to one: fabrik-hbr is agent-netns plus FRR, fabrik-cni carries two plugins and installs them.

/** A workspace app packaged as its production tree (see production-tree.ts), started by its bin. */
export interface AppContent {
  readonly kind: 'app';
  readonly bin: string;
}

/** Single-file bundles (dist/<name> of each app), copied to /opt/fabrik/cni/plugins. */
export interface BundleContent {
  readonly kind: 'bundles';
  readonly bundles: readonly { readonly app: string; readonly file: string }[];
}

export interface ImageSpec {
  readonly name: string;
  readonly base: BaseName;
  /** The app (repository path) whose package.json version tags the image. */
  readonly app: string;
  readonly content: AppContent | BundleContent;
}

export const IMAGES: readonly ImageSpec[] = [
  {
    name: 'fabrik-hbr',
    base: 'frr',
    app: 'apps/agent-netns',
    content: { kind: 'app', bin: 'fabrik-agent-netns' },
  },
  {
    name: 'fabrik-agent-host',
    base: 'node',
    app: 'apps/agent-host',
    content: { kind: 'app', bin: 'fabrik-agent-host' },
  },
  {
    name: 'fabrik-cni',
    base: 'node',
    app: 'apps/cni-ovs',
    content: {
      kind: 'bundles',
      bundles: [
        { app: 'apps/cni-ovs', file: 'fabrik-ovs' },
        { app: 'apps/ipam', file: 'fabrik-ipam' },
      ],
    },
  },
];

/** Where `npm run images` puts an image: `localhost/fabrik/<name>`. */
export const REPOSITORY_PREFIX = 'localhost/fabrik';
