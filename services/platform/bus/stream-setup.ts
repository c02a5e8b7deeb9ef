import { StorageType, nanos, type ConsumerInfo, type JetStreamManager, type StreamInfo } from 'nats';
import type { Logger } from 'pino';

// The stream as configuration wants it (NATS_STREAM, NATS_STREAM_REPLICAS, NATS_STREAM_CLUSTER /
// NATS_STREAM_TAGS): created when missing, at start-up and whenever a part finds it gone (a NATS
// that came back without its store), its replicas brought to the configured number when they differ.

const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;

export interface StreamSpec {
  name: string;
  /** `<prefix>.>`: every event subject. */
  subject: string;
  /** Default 1. */
  replicas?: number;
  placement?: { cluster?: string; tags?: string[] };
}

const notFound = (err: unknown) => /stream not found/i.test((err as Error).message);

// NATS 2.9 removes an account's store directory when its last stream goes; a stream created in that
// instant fails with "error creating store for stream" and is created a moment later.
const storeRace = (err: unknown) => /error creating store/i.test((err as Error).message);
const STORE_RACE_TRIES = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function addStream(jsm: JetStreamManager, config: Parameters<JetStreamManager['streams']['add']>[0]): Promise<StreamInfo> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await jsm.streams.add(config);
    } catch (err) {
      if (!storeRace(err) || attempt >= STORE_RACE_TRIES) throw err;
      await sleep(50 * attempt);
    }
  }
}

/** Creates the stream or adds the subject and the configured replicas to it; answers its info. */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec, logger: Logger): Promise<StreamInfo> {
  const replicas = spec.replicas ?? 1;
  let info: StreamInfo;
  try {
    info = await jsm.streams.info(spec.name);
  } catch (err) {
    if (!notFound(err)) throw err;
    return addStream(jsm, {
      name: spec.name,
      subjects: [spec.subject],
      storage: StorageType.File,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      num_replicas: replicas,
      ...(spec.placement ? { placement: { cluster: spec.placement.cluster ?? '', tags: spec.placement.tags ?? [] } } : {}),
    });
  }
  const subjects = info.config.subjects ?? [];
  const had = info.config.num_replicas || 1;
  // A server outside a cluster takes an update to more replicas without having them (NATS 2.9):
  // it is not asked, and the operator is told.
  const clustered = info.cluster !== undefined;
  const wanted = clustered || replicas <= had ? replicas : had;
  if (wanted !== replicas) refused(logger, spec, had, 'the NATS server is not part of a cluster');
  if (subjects.includes(spec.subject) && had === wanted) return info;
  try {
    const updated = await jsm.streams.update(spec.name, {
      ...info.config, subjects: [...new Set([...subjects, spec.subject])], num_replicas: wanted,
    });
    if (had !== wanted) logger.info({ stream: spec.name, from: had, to: wanted }, 'NATS stream replicas changed to NATS_STREAM_REPLICAS');
    return updated;
  } catch (err) {
    // The stream still works as it is: say why it is not as configured, and go on with it.
    refused(logger, spec, had, (err as Error).message);
    return info;
  }
}

/** What has been reported already: the stream is checked every few seconds, the error said once. */
const reported = new Set<string>();

function refused(logger: Logger, spec: StreamSpec, had: number, why: string): void {
  const replicas = spec.replicas ?? 1;
  const key = `${spec.name}:${had}:${replicas}`;
  if (reported.has(key)) return;
  reported.add(key);
  logger.error(
    { stream: spec.name, replicas: had, wanted: replicas, err: why },
    `NATS stream ${spec.name} has ${had} replica(s) and NATS_STREAM_REPLICAS asks ${replicas}: not changed (${why}). ` +
    'A single server takes only 1; a cluster needs that many JetStream servers. Fix NATS_STREAM_REPLICAS or the cluster.',
  );
}

/**
 * The highest stream sequence up to which every durable consumer has acknowledged every message
 * it takes (its filter). A consumer with nothing pending or unacknowledged has taken everything
 * up to `lastSeq` (read before the consumers); any other counts by its ack floor.
 */
export function consumedSeq(lastSeq: number, consumers: ConsumerInfo[]): number {
  let floor = lastSeq;
  for (const c of consumers) {
    if (c.num_pending === 0 && c.num_ack_pending === 0) continue;
    floor = Math.min(floor, c.ack_floor.stream_seq);
  }
  return floor;
}

/** Every consumer of the stream, for the check's consumed sequence and the consumers that are missing. */
export async function listConsumers(jsm: JetStreamManager, stream: string): Promise<ConsumerInfo[]> {
  const all: ConsumerInfo[] = [];
  for await (const c of jsm.consumers.list(stream)) all.push(c);
  return all;
}
