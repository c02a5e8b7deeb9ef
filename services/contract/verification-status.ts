// Where a merchant's business verification stands, in the one vocabulary every reader uses: the
// management API (`svc status`, `svc merchant list`), the dashboard's session and its operator
// console. The merchants table keeps only the flag that gates live keys (pending until an operator
// approves); what the merchant did is in its latest submission. Imports nothing, so the dashboard
// may import it too.

export const VERIFICATION_STATUSES = ['not_submitted', 'pending', 'rejected', 'approved'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/**
 * approved once an operator approved the merchant, else its latest submission's status (pending:
 * waiting for a decision; rejected: it may submit again), else not_submitted.
 */
export function verificationStatus(merchantFlag: string | null | undefined, latestSubmission: string | null | undefined): VerificationStatus {
  if (merchantFlag === 'approved') return 'approved';
  return latestSubmission === 'pending' || latestSubmission === 'rejected' ? latestSubmission : 'not_submitted';
}
