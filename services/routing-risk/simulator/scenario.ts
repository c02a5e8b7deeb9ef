// The simulator's synthetic day (npm run bench:routing, svc routing simulate): three providers whose approval rates
// differ by segment and drift through the day, one outage, a seeded stream of payments. Each
// payment carries its own random draws (one per account), shared by every strategy replayed over it
// (common random numbers), so strategies and the oracle are compared on the very same cards.
import type { ProviderAccount } from '../provider-account.js';
import type { SimSegment } from './outcome-memory.js';

export const DAY_MINUTES = 24 * 60;

function provider(code: string, name: string, feeFixed: bigint, feeBps: number): ProviderAccount {
  return {
    providerId: `prv_${code}`, providerCode: code, providerName: name, providerAccountId: `pac_${code}`, connected: true,
    currencies: [], countries: [], methods: ['card'], feeFixed, feeBps, latencyMs: 0,
  };
}

/** Alpha: the dear incumbent; Beta: the challenger; Gamma: the cheapest, approving less. */
export const ACCOUNTS = [
  provider('alpha', 'Alpha', 25n, 190),
  provider('beta', 'Beta', 20n, 210),
  provider('gamma', 'Gamma', 10n, 150),
];

export interface SegmentSpec extends SimSegment {
  /** Share of the day's payments. */
  share: number;
  /** Approval rate of each account (by code) at 00:00 and at 24:00, linear in between. */
  approval: Record<string, [start: number, end: number]>;
}

const seg = (currency: string, country: string, cardNetwork: string, share: number, approval: SegmentSpec['approval']): SegmentSpec =>
  ({ method: 'card', currency, country, cardNetwork, share, approval });

export const SEGMENTS: SegmentSpec[] = [
  seg('EUR', 'DE', 'visa', 0.30, { alpha: [0.94, 0.89], beta: [0.90, 0.92], gamma: [0.87, 0.87] }),
  seg('EUR', 'DE', 'mastercard', 0.15, { alpha: [0.90, 0.90], beta: [0.94, 0.94], gamma: [0.86, 0.88] }),
  seg('EUR', 'FR', 'visa', 0.20, { alpha: [0.91, 0.91], beta: [0.89, 0.90], gamma: [0.90, 0.90] }),
  seg('EUR', 'FR', 'mastercard', 0.10, { alpha: [0.88, 0.88], beta: [0.93, 0.91], gamma: [0.85, 0.85] }),
  seg('EUR', 'NL', 'visa', 0.15, { alpha: [0.95, 0.95], beta: [0.91, 0.91], gamma: [0.89, 0.89] }),
  seg('GBP', 'GB', 'visa', 0.10, { alpha: [0.90, 0.90], beta: [0.93, 0.93], gamma: [0.86, 0.93] }),
];

/**
 * Alpha answers nothing (time-outs) from 14:02:37 for 45 minutes, in seconds of the day: mid-bucket,
 * after its bucket already holds attempts, as an outage starts in life.
 */
export const OUTAGE = { account: 'pac_alpha', from: 14 * 3600 + 2 * 60 + 37, until: 14 * 3600 + 47 * 60 + 37 };

/** A card's own hard decline (stolen, closed): the same at every provider, never a provider's fault. */
export const HARD_DECLINE_RATE = 0.03;

export interface SimPayment {
  id: string;
  minute: number;
  /** Its second of the day (within `minute`). */
  second: number;
  segment: SegmentSpec;
  amount: bigint;
  /** Per account code: below its approval rate, approved (issuers answer each acquirer on its own). */
  draws: Record<string, number>;
  /** Below HARD_DECLINE_RATE: a hard card, hard everywhere. */
  hardDraw: number;
}

/** mulberry32: a small seeded generator, so every run replays the same day. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` payments over the day, busier in the afternoon, amounts from 5.00 to 500.00 (log-uniform). */
export function syntheticDay(count: number, seed = 26): SimPayment[] {
  const random = seeded(seed);
  const payments: SimPayment[] = [];
  for (let i = 0; i < count; i++) {
    // Day-shaped arrivals: accept a minute with a weight from 0.3 at night to 1 mid-afternoon.
    let minute: number;
    do minute = Math.floor(random() * DAY_MINUTES);
    while (random() > 0.3 + 0.7 * Math.sin((Math.PI * minute) / DAY_MINUTES) ** 2);
    let pick = random();
    const segment = SEGMENTS.find((s) => (pick -= s.share) < 0) ?? SEGMENTS[SEGMENTS.length - 1]!;
    const amount = BigInt(Math.round(500 * 100 ** random()));
    const draws = Object.fromEntries(ACCOUNTS.map((a) => [a.providerCode, random()]));
    const second = minute * 60 + Math.floor(random() * 60);
    payments.push({ id: `pay_sim_${i}`, minute, second, segment, amount, draws, hardDraw: random() });
  }
  return payments.sort((a, b) => a.second - b.second);
}

export function approvalOf(segment: SegmentSpec, accountCode: string, minute: number): number {
  const [start, end] = segment.approval[accountCode]!;
  return start + ((end - start) * minute) / DAY_MINUTES;
}

/** The account with the best approval rate for a segment at a minute (ties: the first listed). */
export function bestAt(segment: SegmentSpec, minute: number): string {
  return ACCOUNTS.reduce((best, a) => (approvalOf(segment, a.providerCode, minute) > approvalOf(segment, best.providerCode, minute) ? a : best)).providerCode;
}

export type SimOutcome = 'succeeded' | 'soft' | 'hard' | 'technical';

/** What `account` answers to payment `p`. */
export function outcomeAt(p: SimPayment, account: ProviderAccount): SimOutcome {
  if (account.providerAccountId === OUTAGE.account && p.second >= OUTAGE.from && p.second < OUTAGE.until) return 'technical';
  if (p.hardDraw < HARD_DECLINE_RATE) return 'hard';
  return p.draws[account.providerCode]! < approvalOf(p.segment, account.providerCode, p.minute) ? 'succeeded' : 'soft';
}
