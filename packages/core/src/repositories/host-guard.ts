import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { PorticoError, badRequest } from '../errors.js';

/** The setting that lets a host through: named in refusals so an operator knows what to change. */
export const allowedHostsSetting = 'PORTICO_GIT_ALLOWED_HOSTS';

/** Why an address is not a public one, in the words of a refusal. */
export type AddressCategory = 'loopback' | 'link-local' | 'private' | 'metadata' | 'unspecified' | 'multicast' | 'reserved';

/** Cloud metadata endpoints (AWS, GCP, Azure, OpenStack: 169.254.169.254; AWS IPv6; Alibaba). */
const metadataAddresses = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

const ranges: Array<[AddressCategory, string, number, 'ipv4' | 'ipv6']> = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['multicast', 'ff00::', 8, 'ipv6'],
];

const lists = new Map<AddressCategory, BlockList>();
for (const [category, network, prefix, family] of ranges) {
  const list = lists.get(category) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  lists.set(category, list);
}

/** An IPv4 address carried inside an IPv6 one (`::ffff:10.0.0.1`, NAT64 `64:ff9b::a00:1`) is judged as IPv4. */
function unwrap(address: string): string {
  const lower = address.toLowerCase();
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return mapped[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return address;
}

/** The category of a non-public address; undefined for a public one. */
export function addressCategory(raw: string): AddressCategory | undefined {
  const address = unwrap(raw);
  if (metadataAddresses.has(address.toLowerCase())) return 'metadata';
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  for (const [category, list] of lists) if (list.check(address, family)) return category;
  return undefined;
}

/** `PORTICO_GIT_ALLOWED_HOSTS`: host names (exact, any case) and CIDRs or single addresses. */
export interface AllowedHosts {
  names: ReadonlySet<string>;
  networks: BlockList;
}

/** Parses the setting; throws naming the entry that is neither a host name nor a CIDR (start-up stops). */
export function parseAllowedHosts(entries: readonly string[]): AllowedHosts {
  const names = new Set<string>();
  const networks = new BlockList();
  for (const entry of entries) {
    const [network, prefixText, extra] = entry.split('/');
    const family = isIP(network ?? '');
    if (family && extra === undefined) {
      const max = family === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) throw new Error(`${allowedHostsSetting}: "${entry}" has an invalid prefix length`);
      networks.addSubnet(network!, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(entry)) {
      names.add(entry.toLowerCase());
    } else {
      throw new Error(`${allowedHostsSetting}: "${entry}" is neither a host name nor a CIDR`);
    }
  }
  return { names, networks };
}

export type Lookup = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Where an outbound Git connection may go. `resolve` answers the address to connect to (the caller connects to
 * that address, never to the name again, so a second DNS answer cannot differ) or throws 400 naming the host,
 * the address and why it is refused.
 */
export interface HostGuard {
  resolve(host: string): Promise<string>;
}

export function createHostGuard(allowed: AllowedHosts, lookup: Lookup = systemLookup): HostGuard {
  const nameAllowed = (host: string) => allowed.names.has(host.toLowerCase().replace(/\.$/, ''));
  const check = (host: string, address: string) => {
    if (nameAllowed(host)) return;
    const plain = unwrap(address);
    if (allowed.networks.check(plain, isIP(plain) === 4 ? 'ipv4' : 'ipv6')) return;
    const category = addressCategory(address);
    if (!category) return;
    const shown = host === address ? `address ${address}` : `"${host}" resolves to ${address}, which`;
    throw badRequest(`repository host refused: ${shown} is a ${category} address (allow it with ${allowedHostsSetting})`, {
      field: 'repoURL', host, address, category, setting: allowedHostsSetting,
    });
  };
  return {
    async resolve(host) {
      const bare = host.replace(/^\[|\]$/g, '');
      if (isIP(bare)) {
        check(bare, bare);
        return bare;
      }
      let answers: Array<{ address: string; family: number }>;
      try {
        answers = await lookup(bare);
      } catch (err) {
        throw new PorticoError('GITOPS_ERROR', `unknown host: "${bare}" does not resolve`, { host: bare, cause: 'unknown-host' }, { cause: err });
      }
      if (answers.length === 0) throw new PorticoError('GITOPS_ERROR', `unknown host: "${bare}" does not resolve`, { host: bare, cause: 'unknown-host' });
      // Every answer is judged: a name with one public and one private address is refused as a whole.
      for (const answer of answers) check(bare, answer.address);
      return answers[0]!.address;
    },
  };
}
