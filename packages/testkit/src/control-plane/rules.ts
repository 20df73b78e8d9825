// What RBAC grants a user, as the real server evaluates it: SelfSubjectRulesReviews made while
// impersonating the user, less what a user without any binding gets (discovery, self reviews),
// told apart by scope: a namespace where no RoleBinding exists gives the cluster-wide rules.
import { apiJson } from './request.js';

/** One granted verb on one resource (or non-resource URL); namespace undefined: cluster-wide. */
export interface GrantedRule {
  readonly namespace: string | undefined;
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
  readonly resourceNames: string[];
  readonly nonResourceURLs: string[];
}

interface RulesReview {
  status: {
    resourceRules?: {
      verbs: string[];
      apiGroups?: string[];
      resources?: string[];
      resourceNames?: string[];
    }[];
    nonResourceRules?: { verbs: string[]; nonResourceURLs?: string[] }[];
  };
}

interface Admin {
  readonly url: string;
  readonly token: string;
  readonly caPem: string;
}

/** A namespace no binding names: what the review finds there is cluster-wide. */
const PROBE_NAMESPACE = 'fabrik-rules-probe-none';
const UNBOUND_USER = 'system:serviceaccount:fabrik-rules-probe-none:nobody';

/** The review's rules as atoms: `group|resource|name|verb` or `url|<path>|verb`. */
async function atoms(admin: Admin, user: string, namespace: string): Promise<Set<string>> {
  const review = await apiJson<RulesReview>({
    url: `${admin.url}/apis/authorization.k8s.io/v1/selfsubjectrulesreviews`,
    method: 'POST',
    token: admin.token,
    caPem: admin.caPem,
    headers: { 'Impersonate-User': user },
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } },
  });
  const out = new Set<string>();
  for (const r of review.status.resourceRules ?? [])
    for (const g of r.apiGroups ?? [])
      for (const res of r.resources ?? [])
        for (const name of r.resourceNames?.length ? r.resourceNames : [''])
          for (const v of r.verbs) out.add(`${g}|${res}|${name}|${v}`);
  for (const r of review.status.nonResourceRules ?? [])
    for (const u of r.nonResourceURLs ?? []) for (const v of r.verbs) out.add(`url|${u}|${v}`);
  return out;
}

const minus = (a: Set<string>, ...others: Set<string>[]) =>
  [...a].filter((x) => !others.some((o) => o.has(x))).sort();

function toRule(namespace: string | undefined, atom: string): GrantedRule {
  const parts = atom.split('|');
  if (parts[0] === 'url') {
    return {
      namespace,
      apiGroups: [],
      resources: [],
      resourceNames: [],
      verbs: [parts[2]!],
      nonResourceURLs: [parts[1]!],
    };
  }
  const [group, resource, name, verb] = parts as [string, string, string, string];
  return {
    namespace,
    apiGroups: [group],
    resources: [resource],
    resourceNames: name ? [name] : [],
    verbs: [verb],
    nonResourceURLs: [],
  };
}

export async function grantedRules(
  admin: Admin,
  user: string,
  namespaces: readonly string[],
): Promise<GrantedRule[]> {
  const baseline = await atoms(admin, UNBOUND_USER, PROBE_NAMESPACE);
  const cluster = await atoms(admin, user, PROBE_NAMESPACE);
  const rules = minus(cluster, baseline).map((a) => toRule(undefined, a));
  for (const ns of namespaces) {
    const here = await atoms(admin, user, ns);
    const unboundHere = await atoms(admin, UNBOUND_USER, ns);
    rules.push(...minus(here, cluster, unboundHere).map((a) => toRule(ns, a)));
  }
  return rules;
}
