import { CniError, CniErrorCode } from './errors.js';

/** Splits CNI_ARGS (`K=V;K2=V2`) into pairs, in order. A pair without '=' is an error naming it. */
export function parseCniArgs(text: string): Array<[string, string]> {
  if (!text) return [];
  return text
    .split(';')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0)
        throw new CniError(
          CniErrorCode.invalidEnvironment,
          `CNI_ARGS: invalid pair ${JSON.stringify(pair)} (want KEY=VALUE)`,
        );
      return [pair.slice(0, at), pair.slice(at + 1)];
    });
}
