/** IPv6 text in the form iproute2 prints (compressed, lower case); IPv4 unchanged. */
export function canonicalIp(ip: string): string {
  return ip.includes(':') ? new URL(`http://[${ip}]`).hostname.slice(1, -1) : ip;
}

/** `ADDRESS/LEN` with the address in iproute2's form. */
export function canonicalCidr(cidr: string): string {
  const [ip = '', len] = cidr.split('/');
  return len === undefined ? canonicalIp(ip) : `${canonicalIp(ip)}/${len}`;
}

/** Compares two optional addresses as the kernel would (`undefined` on the desired side = any). */
export const sameIp = (desired: string | undefined, observed: string | undefined): boolean =>
  desired === undefined || (observed !== undefined && canonicalIp(desired) === canonicalIp(observed));
