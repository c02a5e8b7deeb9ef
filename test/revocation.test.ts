import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { startGatewayProcesses, type GatewayProcess } from './helpers/gateways.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

let stack: TestStack;
let gateways: GatewayProcess[];

before(async () => {
  stack = await startTestStack();
  gateways = await startGatewayProcesses(stack, 2);
});
after(async () => {
  for (const g of gateways ?? []) await g.process.stop();
  await stack?.close();
});

test('a key revoked through one gateway replica is refused there at once and by every other within the documented second', async () => {
  const key = await stack.newMerchantKey('test');
  for (const g of gateways) assert.equal((await request(g.baseUrl, 'GET', '/v1/me', { key: key.secret })).status, 200);
  const revoked = await request(gateways[0].baseUrl, 'POST', `/manage/v1/keys/${key.keyId}/revoke`, { key: stack.operatorToken });
  assert.equal(revoked.status, 200);
  assert.ok(revoked.body.revoked_at);
  const refused = await request(gateways[0].baseUrl, 'GET', '/v1/me', { key: key.secret });
  assert.equal(refused.status, 401, 'the replica that revoked it refuses the very next request');
  for (const baseUrl of [gateways[1].baseUrl, stack.baseUrl]) {
    // The others learn it by notification (docs/performance.md, "Admission from memory").
    const res = await eventually('the revocation on another replica', async () => {
      const r = await request(baseUrl, 'GET', '/v1/me', { key: key.secret });
      return r.status === 200 ? undefined : r;
    }, 1_000);
    assert.equal(res.status, 401);
    assert.equal(res.body.error.type, 'authentication_error');
    assert.equal(res.body.error.code, 'invalid_api_key');
  }
  // Irreversible: revoking again keeps it revoked and keeps the first time.
  const again = await request(gateways[1].baseUrl, 'POST', `/manage/v1/keys/${key.keyId}/revoke`, { key: stack.operatorToken });
  assert.equal(again.body.revoked_at, revoked.body.revoked_at);
});
