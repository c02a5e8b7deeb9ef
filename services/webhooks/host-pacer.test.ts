import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHostPacer, hostOf } from './host-pacer.js';

test('slots of one host are spaced 1000 / perSecond ms apart; another host has its own', () => {
  const pacer = createHostPacer(4);
  const delays = Array.from({ length: 6 }, () => pacer.take('a.example', 10_000));
  assert.deepEqual(delays, [0, 250, 500, 750, 1000, 1250]);
  assert.equal(pacer.take('b.example', 10_000), 0, 'another host is not held back');
  assert.equal(pacer.waitFor('a.example', 10_000), 1500, 'waitFor tells without taking');
  assert.equal(pacer.waitFor('a.example', 10_000), 1500);
  assert.equal(pacer.take('a.example', 12_000), 0, 'a slot in the past is free now');
  assert.equal(pacer.take('a.example', 12_000), 250);
});

test('the host of an endpoint URL ignores port, path and case', () => {
  assert.equal(hostOf('https://Hooks.Example.com:8443/a?b=c'), 'hooks.example.com');
  assert.equal(hostOf('http://127.0.0.1:9/x'), hostOf('http://127.0.0.1:10/y'));
});
