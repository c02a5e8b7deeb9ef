// A charge a provider made for an attempt recorded failed, and where returning it stands (late_charges).
import type { Minor } from '../../contract/money.js';

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
  amount: Minor;
  currency: string;
  /** Only authorized at the provider (capture_method manual): released, not refunded. */
  held: boolean;
  status: LateChargeStatus;
}
