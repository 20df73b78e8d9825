// The base error class is @fabrik/api's (every package depends on it); re-exported for the code
// that imported it from here.
export { FabrikError, isFabrikError, errorGuard } from '@fabrik/api';
