import type { Logger } from 'pino';
import { ConfigError } from '../config.js';
import { MAX_EVENT_BYTES } from '../../contract/limits.js';
import type { BrokerFacts } from './types.js';

// What a producing part checks about the NATS it reached before it starts: that its largest
// event fits (else it refuses to start), and whether an acknowledged event survives a broker
// crash (else it warns). docs/decisions/2026-11-23-no-event-blocks-another-event-durability.md, "No event blocks another" and "Event durability".

/** Room for the message's headers (Nats-Msg-Id, and trace headers later) beside the event. */
export const HEADER_ROOM_BYTES = 1024;

/** Replicas a stream needs so that a quorum outlives one crashed server. */
const DURABLE_REPLICAS = 3;

export interface BrokerFindings {
  /** Why the part must not start, or undefined. */
  refusal?: string;
  warnings: string[];
}

function versionBelow(version: string, major: number, minor: number): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(version);
  if (!m) return true;
  return Number(m[1]) < major || (Number(m[1]) === major && Number(m[2]) < minor);
}

export function brokerFindings(facts: BrokerFacts, largestEvent = MAX_EVENT_BYTES): BrokerFindings {
  const needed = largestEvent + HEADER_ROOM_BYTES;
  const limits = [`the server's max_payload (${facts.maxPayload} bytes)`];
  let fits = facts.maxPayload >= needed;
  if (facts.streamMaxMsgSize > 0 && facts.streamMaxMsgSize < needed) {
    fits = false;
    limits.push(`stream ${facts.stream}'s max_msg_size (${facts.streamMaxMsgSize} bytes)`);
  }
  const refusal = fits ? undefined
    : `cannot carry this service's largest event: ${limits.join(' or ')} is below ${needed} bytes ` +
      `(MAX_EVENT_BYTES ${largestEvent} + ${HEADER_ROOM_BYTES} for headers). Raise max_payload in the NATS ` +
      'server configuration (its default is 1 MiB) or the stream\'s max_msg_size.';

  const warnings: string[] = [];
  const old = versionBelow(facts.serverVersion, 2, 10);
  if (old) {
    warnings.push(
      `NATS ${facts.serverVersion} has no sync_interval (it exists from 2.10): JetStream acknowledges an ` +
      'event before it is on disk and syncs every 2 minutes, so a crash of the server or its machine can lose ' +
      'acknowledged events. The outbox keeps published events: after such a crash re-publish them with ' +
      '`svc outbox republish --part PART --since TIME`. Upgrade to NATS 2.10+ with ' +
      '`jetstream { sync_interval: always }`, or use a 3-replica stream.',
    );
  }
  if (facts.streamReplicas < DURABLE_REPLICAS) {
    warnings.push(
      `stream ${facts.stream} has ${facts.streamReplicas} replica(s): an acknowledged event survives a broker ` +
      'crash only if the server runs with `jetstream { sync_interval: always }` (NATS 2.10+), which a client ' +
      `cannot read${old ? ' and this server does not have' : ''}. Use a ${DURABLE_REPLICAS}-replica stream on ` +
      'a cluster, or check the server configuration.',
    );
  }
  return { refusal, warnings };
}

/** Refuses start-up (a ConfigError naming NATS_URL, exit 78) or logs the durability warnings. */
export function checkBroker(facts: BrokerFacts, logger: Logger, largestEvent = MAX_EVENT_BYTES): void {
  const { refusal, warnings } = brokerFindings(facts, largestEvent);
  if (refusal) throw new ConfigError('NATS_URL', `points at a NATS server that ${refusal}`);
  for (const warning of warnings) {
    logger.warn({ nats_version: facts.serverVersion, stream: facts.stream, replicas: facts.streamReplicas }, `WARNING: ${warning}`);
  }
}
