import type { DescMethod } from '@bufbuild/protobuf';
import { DisputesService } from '../../proto/gen/svc/payments/v1/disputes_pb.js';
import { ProviderNotificationsService } from '../../proto/gen/svc/payments/v1/provider_notifications_pb.js';
import { MAX_DISPUTE_DOCUMENT_RPC_BYTES, MAX_EVENT_BYTES, MAX_RPC_MESSAGE_BYTES } from '../contract/limits.js';

// The largest request a part reads, per method. A request may carry no more than its events can:
// the bus was checked to carry MAX_EVENT_BYTES, and an internal caller bypasses the gateway's body
// limit, so this is the only bound on, say, a payment's description. A provider's notification is
// the exception: it is forwarded whole with its headers (the gateway bounds it by
// MAX_PROVIDER_NOTIFICATION_BYTES) and nothing of it is emitted as it came. A dispute's evidence
// document is the other: stored in Postgres, never emitted (the gateway bounds it at 4 MiB decoded).

const key = (method: DescMethod) => `${method.parent.typeName}/${method.name}`;
const LARGER: ReadonlySet<string> = new Set([key(ProviderNotificationsService.method.receiveNotification)]);

const DOCUMENT = key(DisputesService.method.uploadDisputeDocument);

/** The largest of the limits below. */
export const LARGEST_READ_BYTES = Math.max(MAX_RPC_MESSAGE_BYTES, MAX_DISPUTE_DOCUMENT_RPC_BYTES);

export function readLimitOf(method: DescMethod): number {
  if (key(method) === DOCUMENT) return MAX_DISPUTE_DOCUMENT_RPC_BYTES;
  return LARGER.has(key(method)) ? MAX_RPC_MESSAGE_BYTES : MAX_EVENT_BYTES;
}
