import { createHash } from 'node:crypto';

/**
 * A number in [0, 1) fixed by an id and a purpose: a payment's split arm, exploration draw or
 * probe draw never changes when its route is planned again (a retry, a second replica), a demo
 * provider's answer to an attempt is the same when it is asked again, and draws for different
 * purposes are independent. Imported by file: the routing simulator runs it offline.
 */
export function stickyShare(id: string, purpose: string): number {
  const digest = createHash('sha256').update(`${purpose}:${id}`).digest();
  return digest.readUInt32BE(0) / 0x1_0000_0000;
}
