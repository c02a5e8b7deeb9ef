import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { PayoutStatus } from '../contract/enums.js';
import { PayoutSchema, type Payout } from '../../proto/gen/svc/payouts/v1/payouts_pb.js';
import type { Minor } from '../contract/money.js';

/** A payout as payouts stores it; the proto and contract shapes are derived from it. */
export interface PayoutRecord {
  id: string;
  merchantId: string;
  projectId: string;
  mode: string;
  status: PayoutStatus;
  amount: Minor;
  currency: string;
  destination: {
    type: string;
    token: string | null;
    display: string;
    holderName: string | null;
    country: string | null;
  };
  description: string | null;
  reference: string | null;
  metadata: Record<string, unknown>;
  testScenario: string | null;
  providerId: string | null;
  providerCode: string | null;
  providerName: string | null;
  providerAccountId: string | null;
  providerPayoutId: string | null;
  routingRule: string | null;
  feeAmount: Minor;
  failure: { code: string; category: string; message: string } | null;
  sendAfter: Date;
  sentAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type { PayoutStatus };

/** What a payout takes from the settled funds. */
export const cost = (p: Pick<PayoutRecord, 'amount' | 'feeAmount'>): bigint => p.amount + p.feeAmount;

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

export function payoutToProto(p: PayoutRecord): Payout {
  return create(PayoutSchema, {
    id: p.id,
    mode: p.mode,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    destination: {
      type: p.destination.type,
      token: opt(p.destination.token),
      display: p.destination.display,
      holderName: opt(p.destination.holderName),
      country: opt(p.destination.country),
    },
    route: {
      provider: p.providerId ? { id: p.providerId, code: p.providerCode ?? '', name: p.providerName ?? '' } : undefined,
      providerAccountId: opt(p.providerAccountId),
      providerPayoutId: opt(p.providerPayoutId),
      rule: opt(p.routingRule),
      // A payout that never queued (no eligible provider) is never sent.
      scheduledFor: p.providerId ? timestampFromDate(p.sendAfter) : undefined,
    },
    feeAmount: p.feeAmount,
    feeCurrency: p.currency,
    failure: opt(p.failure),
    description: opt(p.description),
    reference: opt(p.reference),
    metadata: p.metadata as JsonObject,
    createdAt: timestampFromDate(p.createdAt),
    updatedAt: timestampFromDate(p.updatedAt),
  });
}
