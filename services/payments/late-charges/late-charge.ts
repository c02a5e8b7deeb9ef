// A charge a provider made for an attempt recorded failed, and where returning it stands (late_charges).
export type LateChargeStatus = 'returning' | 'returned' | 'return_refused';

export interface LateCharge {
  attemptId: string;
  paymentId: string;
  merchantId: string;
  projectId: string;
  mode: string;
  providerCode: string;
  providerAccountId: string;
  providerPaymentId: string;
  amount: bigint;
  currency: string;
  /** Only authorized at the provider (capture_method manual): released, not refunded. */
  held: boolean;
  status: LateChargeStatus;
}
