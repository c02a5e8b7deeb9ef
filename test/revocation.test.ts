import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
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

test('a key revoked through one gateway replica is refused on the very next request by every other', async () => {
  const key = await stack.newMerchantKey('test');
  for (const g of gateways) assert.equal((await request(g.baseUrl, 'GET', '/v1/me', { key: key.secret })).status, 200);
  const revoked = await request(gateways[0].baseUrl, 'POST', `/manage/v1/keys/${key.keyId}/revoke`, { key: stack.operatorToken });
  assert.equal(revoked.status, 200);
  assert.ok(revoked.body.revoked_at);
  for (const baseUrl of [gateways[1].baseUrl, stack.baseUrl, gateways[0].baseUrl]) {
    const res = await request(baseUrl, 'GET', '/v1/me', { key: key.secret });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.type, 'authentication_error');
    assert.equal(res.body.error.code, 'invalid_api_key');
  }
  // Irreversible: revoking again keeps it revoked and keeps the first time.
  const again = await request(gateways[1].baseUrl, 'POST', `/manage/v1/keys/${key.keyId}/revoke`, { key: stack.operatorToken });
  assert.equal(again.body.revoked_at, revoked.body.revoked_at);
});
