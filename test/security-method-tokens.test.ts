// Tokens at rest: payments.payment_method_credentials held stored methods' provider and vault
// tokens unencrypted, so a database dump or backup alone could charge every stored card. Now each
// token is sealed with the provider credentials' secret box (AES-256-GCM under PROVIDER_SECRET_KEY);
// rows stored before are sealed when the payments part starts with the key, the copy migration 0016
// left in payment_methods.provider_token is cleared, and payments still send every token, sealed or
// (during the upgrade) not yet. A rotation of the key (PROVIDER_SECRET_KEY_OTHER, docs/operations.md)
// seals them, and the provider credentials, anew under the new key.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AuthorizeRequest, Connector } from '../services/payments/index.js';
import { createSecretBox } from '../services/platform/secret-box.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

const KEY = randomBytes(32).toString('hex');
const token = (what: string) => `tok_${what}_${randomBytes(8).toString('hex')}`;

/** Approves every payment and keeps the token each was sent. */
function recordingStripe() {
  const tokens: string[] = [];
  const connector = {
    async authorize(req: AuthorizeRequest) {
      tokens.push(req.paymentMethodToken ?? '');
      return { outcome: 'success', providerPaymentId: `pi_${req.attemptId}`, providerCode: null, providerMessage: null, fee: 0n };
    },
    async getStatus() {
      return { found: false };
    },
    async refund() {
      return { outcome: 'success', providerRefundId: 're_1', providerCode: null, providerMessage: null };
    },
  } as Connector;
  return { connector, tokens };
}

describe('stored methods\' tokens at rest', () => {
  const stripe = recordingStripe();
  let db: TestDatabase;
  let stack: TestStack;
  let m: { merchantId: string; projectId: string; secret: string };

  const start = (env: Record<string, string> = { PROVIDER_SECRET_KEY: KEY }) =>
    startTestStack({ database: db, env, connectors: { stripe: stripe.connector } });
  const restart = async (env?: Record<string, string>) => {
    const closing = stack;
    stack = undefined as unknown as TestStack;
    await closing.close();
    stack = await start(env);
  };
  const rawTokens = async () => (await stack.query(
    `SELECT c.token AS credential, p.provider_token AS legacy
     FROM payments.payment_method_credentials c JOIN payments.payment_methods p ON p.id = c.payment_method_id`)).rows;
  const createMethod = async (t: string) => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payment-methods', {
      key: m.secret, body: { type: 'card', provider_token: t, provider_code: 'stripe' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as string;
  };
  const payWith = async (pm: string) => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret, body: { amount: 1000, currency: 'EUR', country: 'DE', payment_method: { type: 'card', id: pm } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    return stripe.tokens.at(-1);
  };

  before(async () => {
    db = await createTestDatabase();
    stack = await start();
    m = await stack.newMerchantKey('test');
    const account = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'test', provider: 'stripe', name: 'Stripe test', credentials: { secret_key: 'sk_test_x', webhook_secret: 'whsec_x' },
    });
    assert.equal(account.status, 201, JSON.stringify(account.body));
  });
  after(async () => {
    await stack?.close();
    await db?.drop();
  });

  test('a new method\'s tokens are not in the table; payments still send them', async () => {
    const [first, vaulted, second] = [token('first'), token('vaulted'), token('second')];
    const pm = await createMethod(first);
    for (const body of [
      { type: 'vault_token', token: vaulted, vault: 'basis_theory' },
      { type: 'provider_token', token: second, provider_code: 'adyen' },
    ]) {
      const res = await request(stack.baseUrl, 'POST', `/v1/payment-methods/${pm}/credentials`, { key: m.secret, body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const dump = JSON.stringify(await rawTokens());
    for (const t of [first, vaulted, second]) assert.ok(!dump.includes(t), `${t} is not readable in the table`);
    assert.ok((await rawTokens()).every((r) => /^aes256gcm:/.test(r.credential) && r.legacy === null));
    assert.equal(await payWith(pm), first, 'the payment is sent the token as it was given');
    const listed = await request(stack.baseUrl, 'GET', `/v1/payment-methods/${pm}/credentials`, { key: m.secret });
    assert.equal(listed.body.data.length, 3);
  });

  test('rows stored before are read during the upgrade, then sealed at the next start, the old copy cleared', async () => {
    const [legacy, marked] = [token('legacy'), token('marked')];
    const before = await createMethod(token('replaced'));
    const plain = await createMethod(token('replaced'));
    // As rows an earlier version wrote: the token as it is, or marked plain (stored without a key),
    // and the copy migration 0016 left on the method.
    await stack.query('UPDATE payments.payment_method_credentials SET token = $2 WHERE payment_method_id = $1', [before, legacy]);
    await stack.query('UPDATE payments.payment_methods SET provider_token = $2 WHERE id = $1', [before, legacy]);
    await stack.query('UPDATE payments.payment_method_credentials SET token = $2 WHERE payment_method_id = $1', [plain, `plain:${marked}`]);
    assert.equal(await payWith(before), legacy, 'a token not yet sealed is still sent');
    assert.equal(await payWith(plain), marked);

    // A restart on the same database: migration 0024 runs as on an upgrade, and the part seals at start.
    await stack.query(`DELETE FROM payments.schema_migrations WHERE version = '0024-sealed-method-tokens.sql'`);
    await restart();
    const dump = JSON.stringify(await rawTokens());
    for (const t of [legacy, marked]) assert.ok(!dump.includes(t), `${t} is no longer readable in the table`);
    assert.ok((await rawTokens()).every((r) => /^aes256gcm:/.test(r.credential) && r.legacy === null), dump);
    assert.equal(await payWith(before), legacy, 'sealed, it is still sent as it was given');
    assert.equal(await payWith(plain), marked);
  });

  test('a key rotation seals every token and the provider credentials anew under the new key; payments go on', async () => {
    const rotated = token('rotated');
    const pm = await createMethod(rotated);
    const NEW = randomBytes(32).toString('hex');
    await restart({ PROVIDER_SECRET_KEY: NEW, PROVIDER_SECRET_KEY_OTHER: KEY });
    const box = (hex: string) => createSecretBox(Buffer.from(hex, 'hex'), { variable: 'PROVIDER_SECRET_KEY', allowPlain: false });
    const tokens = (await rawTokens()).map((r) => r.credential as string);
    const accounts = (await stack.query('SELECT sealed FROM payments.provider_credentials')).rows.map((r) => r.sealed as string);
    assert.ok(tokens.length >= 3 && accounts.length === 1);
    for (const sealed of [...tokens, ...accounts]) {
      assert.doesNotThrow(() => box(NEW).open(sealed), 'the new key alone opens it');
      assert.throws(() => box(KEY).open(sealed), 'the old key opens nothing any more');
    }
    assert.ok(tokens.some((t) => box(NEW).open(t) === rotated));
    assert.equal(await payWith(pm), rotated);
    await restart({ PROVIDER_SECRET_KEY: NEW });
    assert.equal(await payWith(pm), rotated, 'without the old key, as after the rotation');
  });
});
