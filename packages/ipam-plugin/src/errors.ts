import { CniError, CniErrorCode, isCniError } from '@fabrik/cni-skel';
import {
  isAddressUnavailableError,
  isPoolContendedError,
  isPoolExhaustedError,
  isPoolNotFoundError,
  isPoolSetError,
} from '@fabrik/ippool';
import {
  isForbiddenError,
  isKubeConfigError,
  isObjectSchemaError,
  isServerError,
  isUnauthorizedError,
  isUnreachableError,
} from '@fabrik/kube';
import { poolField, type IpamConf } from './config.js';

/** fabrik-ipam's own error codes (the spec leaves 100 and up to plugins). */
export const IpamErrorCode = {
  /** Every address of the pool is in use; the message names the pool. */
  poolExhausted: 100,
  /** CHECK found the attachment's addresses different from the pools or from prevResult. */
  checkFailed: 101,
  /** A requested address (runtimeConfig.ips, CNI_ARGS IP) is another attachment's, reserved, or outside the pool. */
  addressUnavailable: 102,
} as const;

/**
 * The CNI error for a failure of a command: the API server unreachable, overloaded or the pool
 * contended is 11 (try again later; 50 for STATUS), what the config names and does not fit (a
 * missing or invalid pool, pools of one family) is 7 naming the field, exhaustion 100.
 */
export function toCniError(
  e: unknown,
  conf: IpamConf | undefined,
  command: 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS',
): unknown {
  if (isCniError(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  const options = { cause: e };
  const unavailable = command === 'STATUS' ? CniErrorCode.pluginNotAvailable : CniErrorCode.tryAgainLater;
  if (isUnreachableError(e) || isServerError(e) || isPoolContendedError(e))
    return new CniError(unavailable, `IPPool API: ${message}`, undefined, options);
  if (isUnauthorizedError(e) || isForbiddenError(e))
    return new CniError(
      command === 'STATUS' ? CniErrorCode.pluginNotAvailable : CniErrorCode.internal,
      `the API server refused fabrik-ipam's credentials (ipam.kubeconfig of the node settings): ${message}`,
      undefined,
      options,
    );
  if (isKubeConfigError(e))
    return new CniError(
      command === 'STATUS' ? CniErrorCode.pluginNotAvailable : CniErrorCode.invalidNetworkConfig,
      `invalid node settings: ipam.kubeconfig: ${message}`,
      undefined,
      options,
    );
  const poolIndex = (name: string) => conf?.pools.indexOf(name) ?? -1;
  const named = (name: string, text: string) => {
    const i = poolIndex(name);
    return i >= 0 && conf ? `invalid network config: ${poolField(conf, i)}: ${text}` : text;
  };
  if (isPoolNotFoundError(e))
    return new CniError(
      command === 'STATUS' ? CniErrorCode.pluginNotAvailable : CniErrorCode.invalidNetworkConfig,
      named(e.pool, message),
      undefined,
      options,
    );
  if (isObjectSchemaError(e))
    return new CniError(
      command === 'STATUS' ? CniErrorCode.pluginNotAvailable : CniErrorCode.invalidNetworkConfig,
      named(e.key, `IPPool ${e.key} is invalid: ${message}`),
      undefined,
      options,
    );
  if (isPoolSetError(e))
    return new CniError(
      CniErrorCode.invalidNetworkConfig,
      conf ? `invalid network config: ${poolField(conf, e.index)}: ${message}` : message,
      undefined,
      options,
    );
  if (isPoolExhaustedError(e)) return new CniError(IpamErrorCode.poolExhausted, message, undefined, options);
  if (isAddressUnavailableError(e))
    return new CniError(IpamErrorCode.addressUnavailable, message, undefined, options);
  return e;
}
