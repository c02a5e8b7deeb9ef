import { isIP } from 'node:net';
import { inRanges, parseAddress, parseRange, type Address, type AddressRange } from '../../contract/ip-address.js';

// Where the service may send requests on a merchant's behalf (webhook endpoints, provider base
// URLs). A URL is checked when it is saved, and every address it resolves to is checked again when
// a connection is made (safe-agent.ts), so a name that later resolves somewhere internal (DNS
// rebinding) still cannot reach it.

export type { Mode } from '../../contract/enums.js';
import type { Mode } from '../../contract/enums.js';
export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved';

export interface UrlPolicy {
  /** Test mode may reach loopback (WEBHOOKS_ALLOW_LOOPBACK_IN_TEST) for local development. */
  allowLoopbackInTest: boolean;
  /** What is sent there, as messages name it; webhooks unless said. */
  subject?: string;
  /**
   * Live mode's rules in test mode too (https, public hosts only): for addresses whose requests
   * carry credentials anyone can get in test mode (provider base URLs with free test keys).
   */
  liveGradeAlways?: boolean;
}

/** The mode whose rules apply: live for a policy that is live-grade in every mode. */
const gradeOf = (mode: Mode, policy: UrlPolicy): Mode => (policy.liveGradeAlways ? 'live' : mode);

export const MAX_URL_LENGTH = 2048;

function ranges(...cidrs: string[]): AddressRange[] {
  return cidrs.map((cidr) => parseRange(cidr)!);
}

// Checked in this order: the first list that holds the address names its kind.
const KINDS: Array<[Exclude<AddressKind, 'public'>, AddressRange[]]> = [
  // Cloud instance metadata and platform endpoints (AWS, ECS, GCP, Azure, Alibaba, Oracle).
  ['metadata', ranges(
    '169.254.169.254/32', '169.254.170.2/32', '169.254.169.123/32', '168.63.129.16/32', '100.100.100.200/32', '192.0.0.192/32',
    'fd00:ec2::254/128',
  )],
  ['loopback', ranges('127.0.0.0/8', '::1/128')],
  ['link-local', ranges('169.254.0.0/16', 'fe80::/10')],
  ['private', ranges(
    '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '198.18.0.0/15',
    'fc00::/7', 'fec0::/10',
  )],
  ['reserved', ranges(
    '0.0.0.0/8', '192.0.0.0/24', '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
    '::/96', '100::/64', '2001:db8::/32', 'ff00::/8',
  )],
];

/** The IPv4 address an IPv6 one carries (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16). */
function embeddedIpv4(address: Address): Address | undefined {
  if (address.family === 4) return undefined;
  const low32 = address.value & 0xffffffffn;
  if (address.value >> 32n === 0xffffn) return { family: 4, value: low32 };
  if (address.value >> 32n === 0x64ff9bn << 64n) return { family: 4, value: low32 };
  if (address.value >> 112n === 0x2002n) return { family: 4, value: (address.value >> 80n) & 0xffffffffn };
  return undefined;
}

function kindOf(address: Address): AddressKind {
  const inner = embeddedIpv4(address);
  if (inner) return kindOf(inner);
  for (const [kind, list] of KINDS) if (inRanges(address, list)) return kind;
  return 'public';
}

export function classifyAddress(raw: string): AddressKind {
  const address = parseAddress(raw.replace(/^\[|\]$/g, '').split('%')[0]);
  return address ? kindOf(address) : 'reserved';
}

/** Why `address` may not receive this mode's requests, or undefined when it may. */
export function addressProblem(address: string, mode: Mode, policy: UrlPolicy): string | undefined {
  const kind = classifyAddress(address);
  if (kind === 'public') return undefined;
  const grade = gradeOf(mode, policy);
  if (kind === 'loopback' && grade === 'test' && policy.allowLoopbackInTest) return undefined;
  const where = kind === 'loopback' && !policy.liveGradeAlways ? ` in ${mode} mode` : '';
  return `${address} is a ${kind} address, which ${policy.subject ?? 'webhooks'} may not reach${where}`;
}

const METADATA_NAMES = new Set([
  'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal',
]);

/** Why this URL cannot be saved for `mode` under `policy`, or undefined when it can. */
export function endpointUrlProblem(raw: string, mode: Mode, policy: UrlPolicy): string | undefined {
  const subject = policy.subject ?? 'webhooks';
  if (raw.length > MAX_URL_LENGTH) return `the URL must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid absolute URL';
  }
  if (policy.liveGradeAlways && url.protocol !== 'https:') return `the URL must use https (${subject} carry credentials)`;
  if (mode === 'live' && url.protocol !== 'https:') return 'live-mode endpoints must use https';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the URL must use https (or http in test mode)';
  if (url.username || url.password) return 'the URL must not carry credentials';
  if (url.hash) return 'the URL must not have a fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (isIP(host)) return addressProblem(host, mode, policy);
  if (METADATA_NAMES.has(host)) return `${host} is a cloud metadata service, which ${subject} may not reach`;
  if (host === 'localhost' || host.endsWith('.localhost')) return addressProblem('127.0.0.1', mode, policy);
  // A name that only an internal resolver knows (search domains, mDNS, cluster DNS).
  if (gradeOf(mode, policy) === 'live' && (!host.includes('.') || /\.(local|internal|localdomain|home\.arpa|cluster\.local)$/.test(host))) {
    return `${host} is not a public host name`;
  }
  return undefined;
}
