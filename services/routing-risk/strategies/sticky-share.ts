import { createHash } from 'node:crypto';

/**
 * A number in [0, 1) fixed by the payment id and a purpose: a payment's split arm, exploration
 * draw or probe draw never changes when its route is planned again (a retry, a second replica),
 * and draws for different purposes are independent.
 */
export function stickyShare(paymentId: string, purpose: string): number {
  const digest = createHash('sha256').update(`${purpose}:${paymentId}`).digest();
  return digest.readUInt32BE(0) / 0x1_0000_0000;
}
