// A payment's timeline: its rows are read back in id order, so ids must follow write order.
import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { TimelineEventSchema, type TimelineEvent } from '../../../proto/gen/svc/payments/v1/payments_pb.js';
import { newId } from '../../platform/ids.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The next id in sort order: the random part plus one. */
export function successor(id: string): string {
  const cut = id.indexOf('_') + 1;
  const chars = id.slice(cut).split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const next = ALPHABET.indexOf(chars[i]) + 1;
    if (next < ALPHABET.length) {
      chars[i] = ALPHABET[next];
      return id.slice(0, cut) + chars.join('');
    }
    chars[i] = ALPHABET[0];
  }
  throw new Error(`no id follows ${id}`);
}

/**
 * Timeline ids that sort in the order they were made in this process. Several entries share one
 * commit time and a commit may fall in the same millisecond as the one before, where plain
 * time-ordered ids would sort at random.
 */
export function monotonicIds(): (at: Date) => string {
  let last = '';
  return (at) => {
    let id = newId('tle', at);
    if (id <= last) id = successor(last);
    last = id;
    return id;
  };
}

export interface TimelineRow {
  id: string;
  type: string;
  title: string;
  description: string;
  attemptId: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
}

export function timelineEventToProto(r: TimelineRow): TimelineEvent {
  return create(TimelineEventSchema, {
    id: r.id,
    type: r.type,
    title: r.title,
    description: r.description,
    attemptId: r.attemptId ?? undefined,
    data: r.data as JsonObject,
    createdAt: timestampFromDate(r.createdAt),
  });
}
