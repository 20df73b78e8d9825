import { observeScopeOf, type DesiredState, type ObserveScope } from '../index.js';

/**
 * The scope the dumps of a scenario are recorded and decoded in: observeScopeOf's, without its
 * route protocol filter, so the recorded route dumps hold every route (the foreign ones too).
 */
export function unfilteredScopeOf(desired: DesiredState): ObserveScope {
  const { routeProtocol: _everyProtocol, ...scope } = observeScopeOf(desired);
  return scope;
}
