// The HTML report in a browser at 700 and 1280 px (issue 26.8 and 26.4's cluster table): long look-alike node names stay
// on one line (they do not break at their hyphens), the cluster table links each node to its section and says it scrolls
// when the window is narrow, and the "max" label of a lane stands clear of a kubelet-start line at the chart's left
// edge. One page, one browser, two viewports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { writeFixture, type Fixture } from '../tui/fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const HOSTS: [string, string, string] = ['ip-172-20-31-10.eu-west-1.compute.internal', 'ip-172-20-31-11.eu-west-1.compute.internal', 'ip-172-20-31-12.eu-west-1.compute.internal'];

let fx: Fixture;
let page: string;
beforeAll(() => {
  fx = writeFixture({ hosts: HOSTS });
  page = join(fx.dir, '..', `report-${process.pid}.html`);
  const r = cli(['analyze', fx.dir, '--year', '2024', '-o', page]);
  expect(r.code, r.stderr).toBe(0);
}, 60_000);
afterAll(() => {
  fx.cleanup();
  if (page) rmSync(page, { force: true });
});

interface Box { x: number; y: number; width: number; height: number }
const overlap = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('HTML at 700 and 1280 px', () => {
  it.skipIf(!existsSync(CHROMIUM))('names on one line, the cluster table links and says it scrolls, the max label clear of the kubelet start', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    try {
      for (const width of [700, 1280]) {
        const ctx = await browser.newContext({ viewport: { width, height: 900 } });
        const p = await ctx.newPage();
        await p.goto('file://' + page);
        // Every node name in a table is one line box: an <a> that wrapped has several client rects.
        const rects = await p.locator('td.nodename a').evaluateAll((as) => as.map((a) => [a.textContent, a.getClientRects().length]));
        expect(rects.length).toBe(5);
        for (const [name, n] of rects) expect(n, `${String(name)} at ${width} px`).toBe(1);
        // The cluster table links to the node sections.
        const hrefs = await p.locator('table.flapped td.nodename a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
        expect(hrefs).toEqual(['#node-1', '#node-2']);
        for (const h of hrefs) expect(await p.locator(h as string).count()).toBe(1);
        // Narrow: the hint says the table scrolls (and it does); wide: no hint.
        const hint = p.locator('#cluster .scroll-hint');
        expect(await hint.isVisible()).toBe(width < 1000);
        if (width < 1000) expect(await p.locator('#cluster .wide', { has: p.locator('table.flapped') }).evaluate((d) => d.scrollWidth > d.clientWidth)).toBe(true);
        // The first node's chart: a kubelet start at its left edge; the "max" label beside it, not on it.
        const section = p.locator('#node-1');
        const start = await section.locator('line.restart').first().boundingBox();
        const label = await section.locator('.tl-note', { hasText: /^max / }).first().boundingBox();
        expect(start && label).toBeTruthy();
        expect(overlap({ ...start!, x: start!.x - 1, width: start!.width + 2 }, label!), `at ${width} px`).toBe(false);
        await ctx.close();
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
