import type { RouteCandidate } from '../../../proto/gen/svc/routing/v1/routing_pb.js';

export type AttemptOutcome =
  | 'success'
  | 'requires_action'
  | 'soft_decline'
  | 'hard_decline'
  | 'technical_error'
  | 'timeout'
  | 'provider_unavailable'
  | 'unknown';

export interface AuthorizeRequest {
  paymentId: string;
  attemptId: string;
  attemptNumber: number;
  amount: bigint;
  currency: string;
  methodType: string;
  captureMethod: string;
  candidate: RouteCandidate;
  /** Sandbox only: the scenario that forces this payment's outcomes. */
  testScenario?: string;
}

export interface AuthorizeResult {
  outcome: AttemptOutcome;
  providerPaymentId: string | null;
  providerCode: string | null;
  providerMessage: string | null;
  /** What the provider charges for this attempt, in minor units; 0 unless it succeeded. */
  fee: bigint;
}

/** How payments talks to one provider. A licensed provider plugs in by implementing this. */
export interface Connector {
  authorize(req: AuthorizeRequest): Promise<AuthorizeResult>;
}
