import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMANDS, HELP_WIDTH, generalUsage, usageOf, wrapWords } from './commands.js';

test('svc --help fits the help width and names every command with its whole usage and summary', () => {
  const help = generalUsage();
  const lines = help.split('\n');
  assert.deepEqual(lines.filter((l) => l.length > HELP_WIDTH), [], `no line over ${HELP_WIDTH} columns`);
  const flat = help.replace(/\s+/g, ' ');
  for (const c of COMMANDS) {
    assert.ok(flat.includes(usageOf(c).replace(/ \[--json\] \[--api-url URL\]$/, '')), usageOf(c));
    assert.ok(flat.includes(c.summary.replace(/\s+/g, ' ')), c.summary);
  }
});

test('wrapWords breaks between words only, indents the first and following lines, keeps every word in order', () => {
  const text = 'connect an account at a licensed provider; stripe: --secret-key --webhook-secret';
  const lines = wrapWords(text, '  ', '    ', 30);
  assert.ok(lines.every((l) => l.length <= 30), lines.join('\n'));
  assert.ok(lines[0].startsWith('  ') && !lines[0].startsWith('   '));
  assert.ok(lines.slice(1).every((l) => l.startsWith('    ') && !l.startsWith('     ')));
  assert.equal(lines.map((l) => l.trim()).join(' '), text);
  assert.deepEqual(wrapWords('a-word-longer-than-the-width', '', '', 10), ['a-word-longer-than-the-width'], 'never split inside a word');
});
