import { FrrIntentError, type FrrIntent, type FrrIntentIssue } from '../intent.js';
import { importSources, type LeakStrategy } from './leaks/leak-strategy.js';
import { netnsLeaks } from './leaks/netns.js';
import { vrfIbgpLeaks } from './leaks/vrf-ibgp.js';
import { underlayRouteMaps } from './loop-guard.js';
import { PolicyObjects } from './policy.js';
import { compareText, gracefulLines, HOSTNAME } from './printing.js';
import { BfdProfiles, underlayNeighbor } from './sessions.js';
import { FRR_MODEL_VERSION, type FrrModel, type FrrModelOptions } from './types.js';
import { l2VniBlocks, localVrf, vrfModel } from './vrfs.js';

// The intent -> view model step, assembled from one module per concern: types (the model the
// templates render), names (and the registry that refuses two objects of one name), printing
// (FRR's spellings and orders), policy, loop guard, sessions and BFD, VRFs, and the two leak
// strategies (the template sets).

export { FRR_MODEL_VERSION } from './types.js';
export type {
  FrrModel,
  FrrModelOptions,
  FrrNeighborModel,
  FrrNeighborAfModel,
  FrrVrfModel,
  FrrVrfIpv6Model,
  FrrIbgpLinkModel,
  FrrPrefixListModel,
  FrrPrefixListEntryModel,
  FrrRouteMapEntryModel,
  FrrLargeCommunityListModel,
  FrrCommunityListModel,
  FrrCommunityListEntryModel,
  FrrBfdProfileModel,
  FrrRouteTargetModel,
  FrrStaticRouteModel,
} from './types.js';
export { frrObjectNames } from './names.js';
export { vrfIbgpLinkNames, vrfIbgpRouterId } from './leaks/vrf-ibgp.js';

const LEAK_STRATEGIES = { netns: netnsLeaks, 'vrf-ibgp': vrfIbgpLeaks } as const;

/**
 * Turns a parsed intent into the view model of the templates. Pure: same intent, same model.
 * Throws {@link FrrIntentError} with every problem at once for what only the chosen template set
 * cannot express and for FRR names two intent objects would share.
 */
export function toFrrModel(intent: FrrIntent, options: FrrModelOptions = {}): FrrModel {
  const mode = options.mode ?? intent.mode;
  const hostname = options.hostname ?? null;
  const policy = new PolicyObjects();
  const leaks: LeakStrategy = LEAK_STRATEGIES[mode](intent, policy);
  const bfd = new BfdProfiles(intent.bfdProfiles);

  const declared = new Set(intent.vrfs.map((v) => v.name));
  const vrfs = intent.vrfs.map((vrf, i) => vrfModel(vrf, i, { intent, policy, bfd, leaks }));
  const leaksFromHbr = intent.vrfs.some((v) => importSources(v).some((s) => s.name === intent.hbrVrf));
  if (leaksFromHbr && !declared.has(intent.hbrVrf)) vrfs.push(localVrf(intent));
  vrfs.sort((a, b) => compareText(a.name, b.name));

  const routeMaps = underlayRouteMaps(intent, policy, (outbound, name) =>
    leaks.keepOutOfUnderlay(outbound, name),
  );
  const neighbors = intent.underlay.neighbors
    .map((n) => underlayNeighbor(n, routeMaps, bfd))
    .sort((a, b) => compareText(a.id, b.id));

  const issues: FrrIntentIssue[] = [
    ...(hostname !== null && !HOSTNAME.test(hostname)
      ? [{ path: 'hostname', message: 'must be a valid host name (letters, digits, - and .)' }]
      : []),
    ...leaks.refusals(),
    ...policy.names.conflicts(),
  ];
  if (issues.length > 0) throw new FrrIntentError(issues);

  return {
    version: FRR_MODEL_VERSION,
    mode,
    hostname,
    asn: intent.asn,
    routerId: intent.routerId,
    vtepPrefix: `${intent.vtepIp}/32`,
    multipathRelax: intent.underlay.multipathRelax,
    instanceLines: gracefulLines(intent),
    neighbors,
    underlayIpv6: neighbors.some((n) => n.ipv6 !== null),
    l2RouteTargets: l2VniBlocks(intent.asn, intent.layer2s),
    vrfs,
    l3Vrfs: vrfs.filter((v) => v.vni !== null || v.staticRoutes.length > 0),
    prefixLists: policy.prefixLists.sort((a, b) => compareText(a.name, b.name)),
    communityLists: policy.communityLists.sort((a, b) => compareText(a.name, b.name)),
    largeCommunityLists: policy.largeCommunityLists.sort((a, b) => compareText(a.name, b.name)),
    routeMaps: policy.routeMaps.sort((a, b) => compareText(a.name, b.name) || a.seq - b.seq),
    bfdProfiles: bfd.models(),
  };
}
