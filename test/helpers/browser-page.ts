import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { projectPath } from '../../services/platform/paths.js';
import { linkIn, type Mailbox } from './mailbox.js';

// Debian's Chromium driven by playwright-core (which downloads no browser of its own) for the
// browser tests: launching it, registering an owner on the dashboard, watching a page for CSP
// violations and script errors, and screenshots at 1280 and 390 px; and the dashboard tests' start,
// a stack and a watched page.

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];
/** How every browser test launches Chromium (the sandbox test in a persistent context of its own). */
export const CHROMIUM_LAUNCH = { executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 60_000 };
export const SHOTS = projectPath('dist', 'test-screenshots');
export const WIDE = { width: 1280, height: 900 };
export const NARROW = { width: 390, height: 844 };

/** Why a browser test is skipped on a machine without Chromium; never in CI, which installs it. */
export const skipWithoutChromium = !existsSync(CHROMIUM) && !process.env.CI
  ? `${CHROMIUM} is not installed (apt-get install -y chromium); CI installs it and never skips this`
  : false;

export async function launchChromium(): Promise<Browser> {
  await mkdir(SHOTS, { recursive: true });
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: CI must install Chromium before the tests (.ci/run)`);
  return chromium.launch(CHROMIUM_LAUNCH);
}

export interface StackInBrowser<S> {
  stack: S;
  /** A page at 1280 px, watched (watch) from the start. */
  page: Page;
  seen: { requests: string[]; problems: string[] };
  /** Closes the browser, then the stack. */
  close(): Promise<void>;
}

/**
 * The dashboard browser tests' start: the stack `startStack` starts, then Chromium with one
 * watched page. What was started before a failure is closed again before the error is thrown.
 */
export async function startStackAndBrowser<S extends { close(): Promise<unknown> }>(
  startStack: () => Promise<S>,
): Promise<StackInBrowser<S>> {
  const stack = await startStack();
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: WIDE });
    const seen = { requests: [] as string[], problems: [] as string[] };
    watch(page, seen);
    const opened = browser;
    return {
      stack, page, seen,
      async close() {
        await opened.close();
        await stack.close();
      },
    };
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await stack.close().catch(() => undefined);
    throw err;
  }
}

/** The password the browser tests' owners register with. */
export const PASSWORD = 'correct horse battery staple';

/**
 * Registers `business` on the dashboard's register page, its owner `email`, and opens the link
 * mailed to confirm it; resolves on the API keys page the confirmation lands on.
 */
export async function registerOwner(
  page: Page, stack: { baseUrl: string; mailbox: Mailbox }, business: string, email: string,
  shot?: (name: string) => Promise<void>,
): Promise<void> {
  await page.goto(`${stack.baseUrl}/dashboard/register`);
  await page.getByLabel('Business name').fill(business);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await shot?.('02-register');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText(`we sent a link to ${email}`).waitFor();
  const link = linkIn(await stack.mailbox.waitFor(email, /^Confirm your dashboard account$/));
  assert.ok(link.startsWith(`${stack.baseUrl}/dashboard/confirm?token=`), link);
  await page.goto(link);
  await page.getByRole('button', { name: 'Confirm and sign in' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
}

/** Watches a page: every request's URL, CSP violations and script errors reported in the console. */
export function watch(page: Page, seen: { requests: string[]; problems: string[] }): void {
  page.setDefaultTimeout(20_000);
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy|Refused to/i.test(m.text())) seen.problems.push(`CSP: ${m.text()}`);
  });
  page.on('pageerror', (e) => seen.problems.push(`script error: ${e.message}`));
}

/**
 * Saves the page at both widths; at 390 px the page may not scroll sideways (tables scroll in their
 * own box, with a visible hint when wider), the header keeps to one row and ids in tables to one line.
 */
export async function shots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/${name}-1280.png`, fullPage: true });
  await page.setViewportSize(NARROW);
  try {
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    // Layout may still be settling after the resize under load: measure again for up to a second.
    let measured = { overflow: 0, culprits: [] as string[] };
    let layout = { headerRows: 0, hiddenWide: [] as string[], brokenIds: [] as string[] };
    for (let i = 0; i < 10; i++) {
      measured = (await page.evaluate(WIDER_THAN_SCREEN)) as typeof measured;
      layout = (await page.evaluate(NARROW_LAYOUT)) as typeof layout;
      if (measured.overflow <= 0 && layout.headerRows <= 1 && layout.hiddenWide.length === 0 && layout.brokenIds.length === 0) break;
      await page.waitForTimeout(100);
    }
    await page.screenshot({ path: `${SHOTS}/${name}-390.png`, fullPage: true });
    assert.ok(measured.overflow <= 0, `${name} is ${measured.overflow}px wider than a 390px screen: ${measured.culprits.join(', ')}`);
    assert.ok(layout.headerRows <= 1, `${name}: the header takes more than one row at 390px`);
    assert.deepEqual(layout.hiddenWide, [], `${name}: a table wider than its box at 390px has no visible scroll hint`);
    assert.deepEqual(layout.brokenIds, [], `${name}: an id in a table is broken over lines at 390px`);
  } finally {
    await page.setViewportSize(WIDE);
  }
}

const WIDER_THAN_SCREEN = `({
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  culprits: [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
    .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + String(e.className).split(' ').join('.') : ''))
    .slice(0, 12),
})`;

// At 390 px: the header's items share one row (each overlaps the others vertically); a table wider than
// its scrolling box is followed by a visible scroll hint; an id in a table cell is on one line.
const NARROW_LAYOUT = `(() => {
  const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const header = document.querySelector('header.top');
  const boxes = header ? [...header.children].filter(visible).map((e) => e.getBoundingClientRect()) : [];
  const oneRow = boxes.length === 0 || Math.max(...boxes.map((b) => b.top)) < Math.min(...boxes.map((b) => b.bottom));
  const wraps = [...document.querySelectorAll('.table-wrap')].filter(visible);
  const hiddenWide = wraps.filter((w) => w.scrollWidth > w.clientWidth + 1)
    .filter((w) => !(w.nextElementSibling && w.nextElementSibling.matches('.scroll-hint') && visible(w.nextElementSibling)))
    .map((w) => w.getAttribute('aria-label') || 'a table');
  const brokenIds = [...document.querySelectorAll('td .mono, td.mono')].filter(visible)
    .filter((e) => {
      const style = getComputedStyle(e);
      const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
      const text = document.createRange();
      text.selectNodeContents(e);
      return text.getBoundingClientRect().height > line * 1.6;
    })
    .map((e) => e.textContent.slice(0, 40));
  return { headerRows: oneRow ? 1 : 2, hiddenWide, brokenIds };
})()`;

/** A CSV file's rows as objects by header (RFC 4180: quoted cells, doubled quotes, CRLF). */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; }
    else cell += c;
  }
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}
