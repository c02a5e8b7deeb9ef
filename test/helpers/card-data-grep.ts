// The card-data grep: everything a test stack wrote (every table of every schema of
// its database as text, every message of its JetStream stream, the log lines captured) searched
// for a card's number, expiry and CVC. The same search run on a stand-in's own record proves it
// can find what is there.
import { connect } from 'nats';
import type { TestStack } from './stack.js';

export interface CardUnderTest {
  number: string;
  expMonth: string;
  expYear: string;
  cvc: string;
}

/**
 * Where the card's data appears in `text`: the number anywhere (also grouped in fours), the CVC
 * and expiry as the value of a field named for them (a bare three-digit CVC would match any text).
 */
export function cardDataIn(text: string, card: CardUnderTest): string[] {
  const found: string[] = [];
  const grouped = card.number.replace(/(\d{4})(?=\d)/g, '$1 ');
  if (text.includes(card.number) || text.includes(grouped)) found.push('number');
  if (new RegExp(`(cvc|cvv|security_?code)\\W{1,6}${card.cvc}\\b`, 'i').test(text)) found.push('cvc');
  const expiry = new RegExp(`(exp\\w*month\\W{1,6}0?${Number(card.expMonth)}\\b.*exp\\w*year\\W{1,6}${card.expYear})|\\b${card.expMonth}/(20)?${card.expYear.slice(-2)}\\b`, 'is');
  if (expiry.test(text)) found.push('expiry');
  return found;
}

/** Every row of every table the stack's database holds, as Postgres prints rows. */
export async function databaseText(stack: TestStack): Promise<string> {
  const { rows: tables } = await stack.query(
    `SELECT table_schema, table_name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const parts: string[] = [];
  for (const t of tables) {
    const { rows } = await stack.query(`SELECT t::text AS row FROM "${t.table_schema}"."${t.table_name}" t`);
    parts.push(`-- ${t.table_schema}.${t.table_name}\n${rows.map((r) => r.row).join('\n')}`);
  }
  return parts.join('\n');
}

/** Every message the stack's JetStream stream holds (subjects, headers and payloads), as text. */
export async function streamText(stack: TestStack): Promise<string> {
  const nats = stack.testBus.nats;
  if (!nats) throw new Error('the card-data grep needs the real JetStream bus (NATS_URL)');
  const nc = await connect({ servers: nats.url });
  try {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(nats.stream);
    const parts: string[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(nats.stream, { seq }).catch(() => undefined);
      if (m) parts.push(`${m.subject} ${m.header ? [...m.header.keys()].map((k) => `${k}=${m.header!.get(k)}`).join(' ') : ''}\n${new TextDecoder().decode(m.data)}`);
    }
    if (parts.length === 0) throw new Error('the stream holds no message: the grep would prove nothing');
    return parts.join('\n');
  } finally {
    await nc.close();
  }
}
