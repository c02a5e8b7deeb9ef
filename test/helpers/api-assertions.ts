// What the public API's tests check the same way for each resource: the timestamps it writes, the
// shape of an error answer, and that a refused request left no payment behind.
import assert from 'node:assert/strict';
import type { TestStack } from './stack.js';

/** A timestamp as the API writes it: ISO 8601 in UTC, to the millisecond. */
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An error answer: its status, type, code and param (absent unless `param` is given), and a request id. */
export function expectError(res: { status: number; body: any }, status: number, type: string, code: string, param?: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.type, type);
  assert.equal(res.body.error.code, code);
  assert.equal(res.body.error.param, param);
  assert.match(res.body.request_id, /^req_/);
}

/** Runs `refused` and checks that the stack's database holds as many payments after it as before. */
export async function expectNoPaymentCreated(stack: Pick<TestStack, 'query'>, refused: () => Promise<void>): Promise<void> {
  const before = await countPayments(stack);
  await refused();
  assert.equal(await countPayments(stack), before);
}

async function countPayments(stack: Pick<TestStack, 'query'>): Promise<number> {
  return (await stack.query('SELECT count(*)::int AS n FROM payments.payments')).rows[0].n as number;
}
