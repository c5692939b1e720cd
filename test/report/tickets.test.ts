// Reports a ticket reader cannot re-run (issue 15 point 4): Markdown and HTML carry every evidence line (folded past
// the first few), the HTML lists the files read and links the references, its timeline reads at 700 px with no label
// over another and an axis that names its zone. Input as users make it: three nodes with long look-alike names whose
// logs run across midnight. Screenshots land in test/out/ (report-700.png, report-1280.png) to be looked at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { cli } from '../helpers/cli.js';
import { writeFixture, type Fixture } from '../tui/fixture.js';
import type { Analysis } from '../../src/contract/analysis.js';
import { sanitizeLine } from '../../src/util/sanitize.js';

const OUT = join(__dirname, '..', 'out');
const HOSTS: [string, string, string] = ['ip-172-20-31-10.eu-west-1.compute.internal', 'ip-172-20-31-11.eu-west-1.compute.internal', 'ip-172-20-31-12.eu-west-1.compute.internal'];
const CHROMIUM = '/usr/bin/chromium';

let fx: Fixture;
let analysis: Analysis;
beforeAll(() => {
  fx = writeFixture({ hosts: HOSTS, shiftMs: (13 * 60 + 55) * 60_000 });
  const r = cli(['analyze', fx.dir, '--year', '2024', '--format', 'json']);
  if (r.code !== 0) throw new Error(r.stderr);
  analysis = JSON.parse(r.stdout) as Analysis;
});
afterAll(() => fx.cleanup());

/** Every evidence line of every finding, as a report shows it (sanitised). */
function evidenceLines(): string[] {
  return analysis.nodes.flatMap((n) => n.findings.flatMap((f) => f.evidence.map((e) => `${e.file}:${e.line}  ${sanitizeLine(e.text, 8192)}`)));
}

describe('--format markdown for a ticket', () => {
  it('every evidence line is there (folded past the first three); each node table has a header row', () => {
    const out = cli(['analyze', fx.dir, '--year', '2024', '--format', 'markdown']).stdout;
    const lines = evidenceLines();
    expect(lines.length).toBeGreaterThan(20);
    for (const l of lines) expect(out, l).toContain(l);
    expect(out).not.toContain('--format json');
    expect(out.match(/<details>/g)?.length).toBe(out.match(/<\/details>/g)?.length);
    expect(out).toMatch(/<summary>\d+ more evidence lines<\/summary>/);
    const md = new MarkdownIt({ html: true });
    const tokens = md.parse(out, {});
    // The first table after each node's heading: a header row naming its columns, then one row of values.
    for (const name of HOSTS) {
      const h = tokens.findIndex((t, i) => t.type === 'inline' && t.content === name && tokens[i - 1]?.tag === 'h2');
      expect(h, name).toBeGreaterThan(0);
      const open = tokens.findIndex((t, i) => i > h && t.type === 'table_open');
      const headCells: string[] = [];
      for (let i = open; tokens[i]?.type !== 'thead_close'; i++) if (tokens[i]?.type === 'inline') headCells.push(tokens[i]!.content);
      expect(headCells).toEqual(['primary cause', 'kubelet', 'runtime', 'logs', 'evidence read', 'pods']);
      const body = tokens.slice(open, tokens.findIndex((t, i) => i > open && t.type === 'table_close'));
      expect(body.filter((t) => t.type === 'tr_open')).toHaveLength(2);
    }
    // Evidence sits in code blocks, inside and outside the folds.
    const fenced = tokens.filter((t) => t.type === 'fence').map((t) => t.content).join('\n');
    for (const l of lines) expect(fenced).toContain(l);
    // References as links.
    expect(md.render(out)).toMatch(/<a href="https:\/\/github\.com\/kubernetes\/kubernetes\/issues\/\d+">/);
  });
});

describe('--format html for a ticket', () => {
  it.skipIf(!existsSync(CHROMIUM))('in Chromium at 700 and 1280 px: every evidence line reachable, files and references listed, chart labels apart and readable (chromium missing: skipped)', async () => {
    const page = join(fx.dir, 'report.html');
    writeFileSync(page, cli(['analyze', fx.dir, '--year', '2024', '--format', 'html']).stdout);
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    mkdirSync(OUT, { recursive: true });
    try {
      for (const width of [700, 1280]) {
        const ctx = await browser.newContext({ viewport: { width, height: 900 } });
        const p = await ctx.newPage();
        await p.goto('file://' + page);
        // Nothing is wider than the window.
        expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        // The timeline: one per node; labels of a kind never overlap, and keep a readable size.
        expect(await p.locator('figure.timeline').count()).toBe(3);
        const boxes = await p.evaluate(() => [...document.querySelectorAll('figure.timeline')].map((fig) => {
          const of = (sel: string) => [...fig.querySelectorAll(sel)].map((e) => {
            const r = e.getBoundingClientRect();
            return { text: e.textContent ?? '', x0: r.left, x1: r.right, y0: r.top, y1: r.bottom, size: parseFloat(getComputedStyle(e).fontSize) };
          });
          return { ticks: of('.tick'), labels: of('.tl-label'), notes: of('.tl-note'), zone: fig.querySelector('.tl-zone')?.textContent ?? '' };
        }));
        for (const b of boxes) {
          expect(b.zone).toBe('time, UTC');
          expect(b.ticks.length).toBeGreaterThanOrEqual(3);
          expect(b.ticks.some((t) => /^03-12 /.test(t.text)), 'the new day dated').toBe(true);
          const all = [...b.ticks, ...b.labels, ...b.notes];
          for (const t of all) expect(t.size, t.text).toBeGreaterThanOrEqual(11);
          for (let i = 0; i < all.length; i++) {
            for (let j = i + 1; j < all.length; j++) {
              const a = all[i]!;
              const c = all[j]!;
              const overlap = a.x0 < c.x1 && c.x0 < a.x1 && a.y0 < c.y1 && c.y0 < a.y1;
              expect(overlap, `"${a.text}" over "${c.text}" at ${width}px`).toBe(false);
            }
          }
        }
        // Every evidence line is reachable: the folds open, and then every line shows.
        const folds = p.locator('details.more-evidence > summary');
        expect(await folds.count()).toBeGreaterThan(0);
        for (let i = 0; i < (await folds.count()); i++) await folds.nth(i).click();
        const text = await p.locator('body').innerText();
        for (const l of evidenceLines()) expect(text.replace(/\s+/g, ' '), l).toContain(l.replace(/\s+/g, ' '));
        expect(text).not.toContain('--format json');
        // The files read: one row each, with path, role, node, lines and time span.
        const arts = analysis.inputs.flatMap((inp) => inp.artifacts);
        const rows = await p.locator('table.files tbody tr').allInnerTexts();
        expect(rows).toHaveLength(arts.length);
        const kubelet = rows.find((r) => r.includes(`${HOSTS[0]}/kubelet.log`)) as string;
        expect(kubelet.replace(/\s+/g, ' ')).toMatch(/kubelet-log ip-172-20-31-10\.eu-west-1\.compute\.internal \d+ 2024-03-11 23:25:00 → 03-12 00:24:58/);
        // The findings' references are links.
        const refs = await p.locator('.refs a[href^="https://"]').count();
        expect(refs).toBeGreaterThan(0);
        await p.evaluate(() => document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')));
        await p.screenshot({ path: join(OUT, `report-${width}.png`), fullPage: true });
        await p.locator('figure.timeline').first().screenshot({ path: join(OUT, `timeline-${width}.png`) });
        await ctx.close();
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
