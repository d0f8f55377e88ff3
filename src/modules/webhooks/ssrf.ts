import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may not go. Checked when an endpoint is created or changed (its host resolved now) and
 * again for every connection: the delivery resolves the host itself, checks every address, and connects to
 * the address it checked, so a DNS answer that changes between the check and the connect (rebinding)
 * cannot reach a refused address. Redirects are never followed.
 *
 * The ranges are Svix's: loopback, private (RFC 1918, unique local), link-local, CGNAT, multicast,
 * reserved and documentation ranges, and every IPv6 form embedding an IPv4 address (judged by the IPv4 rules). Cloud metadata services are
 * refused even where private addresses are allowed for development.
 */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv6');

const METADATA = new BlockList();
for (const address of ['169.254.169.254', '169.254.170.2', '169.254.169.123', '100.100.100.200', '192.0.0.192']) METADATA.addAddress(address, 'ipv4');
METADATA.addAddress('fd00:ec2::254', 'ipv6');
const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'metadata.azure.com', 'instance-data', 'instance-data.ec2.internal']);

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

const v4Of = (bytes: number[]) => new ipaddr.IPv4(bytes).toString();

/**
 * Every IPv4 address an IPv6 address embeds, each of which must pass the IPv4 rules: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96), IPv4-translated (::ffff:0:0:0/96, RFC 6145), NAT64 with the
 * well-known prefix (64:ff9b::/96, RFC 6052) and the local-use prefix (64:ff9b:1::/48, RFC 8215; its
 * operator picks where the IPv4 address sits, so every RFC 6052 layout the address fits counts), 6to4
 * (2002::/16, the relay's address in bits 16–47) and Teredo (2001::/32: the server in bits 32–63, the
 * client's obfuscated address in bits 96–127). ipaddr.js parses the address, so every spelling (a dotted
 * tail, zeros compressed anywhere) decodes alike.
 */
export function embeddedIpv4(address: string): string[] {
  if (!ipaddr.IPv6.isValid(address)) return [];
  const parsed = ipaddr.IPv6.parse(address);
  const bytes = parsed.toByteArray();
  const words = parsed.parts;
  const last32 = v4Of(bytes.slice(12));
  const zero = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zero(0, 5) && words[5] === 0xffff) return [last32]; // mapped
  if (zero(0, 6)) return [last32]; // compatible (:: and ::1 too: 0.0.0.0/8 is refused)
  if (zero(0, 4) && words[4] === 0xffff && words[5] === 0) return [last32]; // translated
  if (words[0] === 0x64 && words[1] === 0xff9b && zero(2, 6)) return [last32]; // NAT64, well-known prefix
  if (words[0] === 0x64 && words[1] === 0xff9b && words[2] === 1) {
    // NAT64, local use: the IPv4 address follows a prefix of 48, 56, 64 or 96 bits, skipping bits 64–71 (the
    // u octet), and the bits after it are zero (RFC 6052 §2.2). Every layout the address fits is a reading of it.
    const readings = [last32];
    for (const prefixBytes of [6, 7, 8]) {
      const rest = [...bytes.slice(prefixBytes, 8), ...bytes.slice(9)];
      if (rest.slice(4).every((b) => b === 0)) readings.push(v4Of(rest.slice(0, 4)));
    }
    return [...new Set(readings)];
  }
  if (words[0] === 0x2002) return [v4Of(bytes.slice(2, 6))]; // 6to4
  if (words[0] === 0x2001 && words[1] === 0) return [v4Of(bytes.slice(4, 8)), v4Of(bytes.slice(12).map((b) => b ^ 0xff))]; // Teredo
  return [];
}

/** Whether a webhook may connect to this IP address. */
export function checkAddress(address: string, allowPrivate: boolean): AddressVerdict {
  const family = isIP(address);
  if (family === 0) return { allowed: false, reason: `${address} is not an IP address` };
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const v4 = family === 6 ? embeddedIpv4(address) : [];
  if (METADATA.check(address, type) || v4.some((a) => METADATA.check(a, 'ipv4'))) {
    return { allowed: false, reason: `${address} is a cloud metadata address` };
  }
  if (allowPrivate) return { allowed: true };
  if (PRIVATE.check(address, type) || v4.some((a) => PRIVATE.check(a, 'ipv4'))) {
    return { allowed: false, reason: `${address} is a loopback, private, link-local, shared or reserved address` };
  }
  return { allowed: true };
}

/** A URL's host as a bare name or address (IPv6 brackets removed). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Rules a webhook URL must meet before any lookup: https (http only where private addresses are
 * allowed), no credentials in it, no metadata host names. Returns the refusal, or undefined.
 */
export function checkUrlShape(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute https URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'must be an https URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  const host = hostOf(url).toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(host)) return 'must not name a cloud metadata service';
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local'))) {
    return 'must not name a local or internal host';
  }
  if (isIP(host)) {
    const verdict = checkAddress(host, allowPrivate);
    if (!verdict.allowed) return `must not point to ${verdict.reason.replace(/^\S+ is /, '')}`;
  }
  return undefined;
}

/**
 * Resolves the host and checks every address it resolves to; any refused address refuses the URL (a
 * host answering with one public and one private address is refused). Returns the first address and all
 * of them (all checked), which the caller connects to. A lookup failure is reported as such (`unresolved`).
 */
export async function resolveChecked(
  host: string,
  allowPrivate: boolean,
): Promise<{ address: string; family: 4 | 6; addresses: { address: string; family: 4 | 6 }[] } | { refused: string } | { unresolved: string }> {
  if (isIP(host)) {
    const verdict = checkAddress(host, allowPrivate);
    const family = isIP(host) as 4 | 6;
    return verdict.allowed ? { address: host, family, addresses: [{ address: host, family }] } : { refused: verdict.reason };
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    return { unresolved: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})` };
  }
  if (addresses.length === 0) return { unresolved: `${host} does not resolve` };
  for (const { address } of addresses) {
    const verdict = checkAddress(address, allowPrivate);
    if (!verdict.allowed) return { refused: `${host} resolves to ${verdict.reason}` };
  }
  const checked = addresses.map(({ address, family }) => ({ address, family: family as 4 | 6 }));
  return { address: checked[0].address, family: checked[0].family, addresses: checked };
}
