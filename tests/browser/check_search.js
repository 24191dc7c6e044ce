// Browser checks of a search's charts and of the list page's width (driven by report_search.sh).
// usage: node check_search.js SPEC.json
// SPEC: {"base": URL or file://, "offline": bool, "search": "#/compare/...", "two": "#/compare/ids/A,B",
//        "limit": N, "jobs": N, "slo_ttft": ms, "slo_itl": ms, "shots": DIR, "tag": "..."}
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const { chromium } = require('playwright-core');

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const fails = [];
function check(ok, what) { if (!ok) fails.push(what); console.log((ok ? 'ok   ' : 'FAIL ') + what); }

(async () => {
  const prof = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'gp-chromium-'));
  const ctx = await chromium.launchPersistentContext(prof, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 800 },
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  const errors = [], dialogs = [], external = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const origin = spec.base.startsWith('http') ? new URL(spec.base).origin : null;
  let slowList = 0; // ms to hold back /api/jobs (the race of check 4)
  await page.route('**/*', async (route) => {
    const u = route.request().url();
    const local = spec.offline ? (u.startsWith('file:') || u.startsWith('data:')) : (u.startsWith(origin) || u.startsWith('data:'));
    if (!local) { external.push(u); return route.abort(); }
    if (slowList && new URL(u).pathname === '/api/jobs') await new Promise((r) => setTimeout(r, slowList));
    return route.continue();
  });
  const go = async (hash) => {
    await page.goto(spec.base + (spec.offline ? hash : ''), { waitUntil: 'load' });
    await page.evaluate((h) => { if (location.hash !== h) location.hash = h; }, hash);
  };
  const shot = (name) => page.screenshot({ path: path.join(spec.shots, spec.tag + '-' + name + '.png') });
  const drawn = () => page.$$eval('#gp-compare .gp-chart[data-drawn]', (c) => c.map((x) => ({
    title: x.dataset.chart, slo: x.dataset.slo, limit: x.dataset.limit, pareto: x.dataset.pareto, overlay: x.dataset.overlay,
    ink: Array.from(x.querySelectorAll('canvas')).reduce((n, cv) => {
      const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
      return n;
    }, 0) })));
  try {
    // 1. The list at 1280x800: no horizontal overflow of the page.
    await go('#/');
    await page.waitForSelector('#gp-jobs tbody tr', { timeout: 10000 });
    const rows = await page.$$eval('#gp-jobs tbody tr', (r) => r.length);
    check(rows === spec.jobs, `list shows the search's ${spec.jobs} jobs (got ${rows})`);
    const w = await page.evaluate(() => [document.documentElement.scrollWidth, document.querySelector('#gp-jobs').getBoundingClientRect().right]);
    check(w[0] <= 1280, `list page fits 1280 px (document scrollWidth ${w[0]})`);
    check(w[1] <= 1280, `the whole job table is visible at 1280 px (it ends at ${Math.round(w[1])} px)`);
    await shot('list-1280');

    // 1b. A list redraw never rewrites a fragment that is not the list's: location.hash = X
    // queues hashchange as a task, and a /api/jobs answer landing before it put '#/' over X,
    // so the compare view never started (CI saw check 3 fail that way). replaceState stands in
    // for "hash set, hashchange not yet run"; the sort select redraws the list.
    if (!spec.offline) {
      const kept = await page.evaluate((h) => {
        history.replaceState(null, '', h);
        const s = document.querySelector('select[name=sort]');
        s.value = 'id';
        s.dispatchEvent(new Event('change'));
        return location.hash;
      }, spec.two);
      check(kept === spec.two, `a list redraw leaves a compare fragment alone (hash ${kept})`);
    }

    // 2. The search's cells: the charts a serving engineer reads at a glance.
    await go(spec.search);
    const want = ['Throughput vs concurrency', 'TTFT vs concurrency', 'ITL vs concurrency', 'Pareto: throughput per GPU vs per user'];
    await page.waitForFunction((n) => document.querySelectorAll('#gp-compare .gp-chart[data-drawn]').length >= n, want.length, { timeout: 10000 }).catch(() => {});
    const cs = await drawn();
    // the Pareto chart is per GPU when the jobs know their GPU count, per server otherwise
    const by = Object.fromEntries(cs.map((c) => [c.title.replace(/^Pareto: throughput per (GPU|server) vs per user$/, 'Pareto: throughput per GPU vs per user'), c]));
    for (const t of want) check(by[t] && by[t].ink > 300, `"${t}" is drawn (${by[t] ? by[t].ink + ' px of ink' : 'missing; have ' + cs.map((c) => c.title).join('; ')})`);
    for (const t of want) check(by[t] && Number(by[t].limit) === spec.limit, `"${t}" marks the limit ${spec.limit} (${by[t] && by[t].limit})`);
    check(by['TTFT vs concurrency'] && Number(by['TTFT vs concurrency'].slo) === spec.slo_ttft, `TTFT chart draws the ${spec.slo_ttft} ms SLO line`);
    check(by['ITL vs concurrency'] && Number(by['ITL vs concurrency'].slo) === spec.slo_itl, `ITL chart draws the ${spec.slo_itl} ms SLO line`);
    check(by['Throughput vs concurrency'] && by['Throughput vs concurrency'].slo === undefined, 'no SLO line on the throughput chart');
    check(by['Pareto: throughput per GPU vs per user'] && Number(by['Pareto: throughput per GPU vs per user'].pareto) >= 1, 'Pareto frontier has points');
    const lim = await page.$eval('#gp-limit', (e) => e.textContent).catch(() => null);
    check(lim === String(spec.limit), `search summary names the limit (${lim})`);
    const limRow = await page.$$eval('#gp-compare-table tr.gp-limit', (r) => r.length);
    check(limRow === 1, `one table row is marked as the limit (${limRow})`);
    const missing = await page.$$eval('#gp-compare-table tr[data-meets=false]', (r) => r.length);
    check(missing >= 1, `cells that miss the target are marked (${missing})`);
    await shot('search');

    // 3. Two jobs compared: their latency distributions overlaid.
    await go(spec.two);
    await page.waitForFunction(() => document.querySelectorAll('#gp-compare .gp-chart[data-overlay][data-drawn]').length >= 2, null, { timeout: 20000 }).catch(() => {});
    const ov = (await drawn()).filter((c) => c.overlay);
    check(ov.length >= 2 && ov.every((c) => Number(c.overlay) === 2 && c.ink > 300),
      `two jobs' TTFT and latency distributions overlaid (${ov.map((c) => c.title + ' x' + c.overlay).join('; ')}; ` +
      `at ${await page.evaluate(() => location.hash + ', view ' + document.body.getAttribute('data-view'))})`);
    await shot('overlay');

    // 4. The list's answer arriving after the page moved on to a compare view must not pull
    // it back to the list (it did: CI saw check 3 fail when /api/jobs was slow under load).
    if (!spec.offline) {
      slowList = 1500;
      await go(spec.two);
      await page.waitForTimeout(2500);
      const where = await page.evaluate(() => [location.hash, document.body.getAttribute('data-view'),
        document.querySelectorAll('#gp-compare').length, document.querySelectorAll('#gp-jobs').length]);
      check(where[0] === spec.two && where[1] === 'compare' && where[2] === 1 && where[3] === 0,
        `a slow list answer leaves the compare view in place (hash ${where[0]}, view ${where[1]}, compare ${where[2]}, list ${where[3]})`);
      slowList = 0;
    }
  } catch (e) {
    check(false, 'exception: ' + (e && e.stack || e));
  }
  check(dialogs.length === 0, `no dialog opened (${JSON.stringify(dialogs)})`);
  check(errors.length === 0, `no script errors (${JSON.stringify(errors.slice(0, 3))})`);
  if (spec.offline) check(external.length === 0, `report needs no network (${JSON.stringify(external.slice(0, 3))})`);
  await ctx.close();
  fs.rmSync(prof, { recursive: true, force: true });
  console.log(fails.length ? `${fails.length} check(s) failed` : 'all search browser checks passed');
  process.exit(fails.length ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
