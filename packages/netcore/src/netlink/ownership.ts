// How fabrik marks what it owns in a namespace: links by their ifalias, routes by their
// rtnetlink protocol number.

/** The rtnetlink protocol number that marks fabrik's routes (unused by iproute2 and FRR). */
export const FABRIK_ROUTE_PROTOCOL = 249;

/** The ifalias that marks a link as owned by `owner` (plus an optional label). */
export const ownershipMark = (owner: string, label?: string): string =>
  `fabrik:${owner}${label ? `:${label}` : ''}`;

/** True when `alias` carries `owner`'s mark. Links of other owners count as foreign. */
export const isOwnedBy = (alias: string | undefined, owner: string): boolean =>
  alias !== undefined && (alias === ownershipMark(owner) || alias.startsWith(`${ownershipMark(owner)}:`));
