import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { fromConnectError } from '../services/contract/index.js';
import { systemClock } from '../services/platform/clock.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { admittedCallers, newInternalToken, withCredential } from '../services/platform/internal-callers.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { HealthState, createInProcessTransport } from '../services/platform/rpc.js';
import { routes } from '../services/routing-risk/service.js';
import { createStore } from '../services/routing-risk/store.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

// The planning request's card network and BIN range come from payments' credentials; a
// malformed one (a caller's bug: they name a segment in SQL and in a decision's reason) is refused
// naming the field, and nothing is decided or stored.

let db: TestDatabase;
let pool: Pool;

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 'routing_risk', 2);
  await migrate(pool, 'routing_risk', 'services/routing-risk');
});
after(async () => {
  await pool?.end();
  await db?.drop();
});

test('a malformed card network or BIN range is a validation error on its field; nothing is recorded', async () => {
  const token = newInternalToken();
  const transport = createInProcessTransport(routes(createStore(pool), systemClock), new HealthState([RoutingService.typeName]),
    createLogger('test', 'silent'), admittedCallers(token, []), undefined, { calls: 'direct', freezeMessages: true });
  const routing = createClient(RoutingService, withCredential(transport, token));
  const scope = { merchantId: 'mer_c', projectId: 'prj_c', mode: 'test' };
  const input = { paymentId: 'pay_c', amount: 1000n, currency: 'EUR', country: 'DE', paymentMethodType: 'card' };
  const cases: Array<[Record<string, string>, string]> = [
    [{ cardNetwork: 'Visa' }, 'card_network'],
    [{ cardNetwork: "visa' OR '1'='1" }, 'card_network'],
    [{ binRange: '4242424242424242' }, 'bin_range'],
    [{ binRange: '4242' }, 'bin_range'],
  ];
  for (const [card, param] of cases) {
    const err = await routing.planPayment({ scope, input, ...card })
      .then(() => assert.fail(`accepted ${JSON.stringify(card)}`), fromConnectError);
    assert.equal(err.code, 'validation_error', JSON.stringify(card));
    assert.equal(err.options.param, param);
    assert.ok(err.status >= 400 && err.status < 500, `${err.status}`);
  }
  const decided = await pool.query('SELECT (SELECT count(*) FROM risk_decisions)::int + (SELECT count(*) FROM routing_decisions)::int AS n');
  assert.equal(decided.rows[0].n, 0);
});
