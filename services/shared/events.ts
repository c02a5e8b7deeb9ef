/**
 * What travels on the bus: the contract's webhook envelope plus the scope that lets consumers
 * file the event under the right merchant, project and mode.
 */
export interface EventEnvelope {
  id: string;
  type: string;
  mode: string;
  merchant_id: string;
  project_id: string;
  created_at: string;
  data: { object: Record<string, unknown> };
}

/** `payment.successful` travels on `<prefix>.payment.successful`. */
export function eventSubject(prefix: string, type: string): string {
  return `${prefix}.${type}`;
}
