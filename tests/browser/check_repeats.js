// Browser check of the job page's Repeats table (driven by report_repeats.sh).
// usage: node check_repeats.js URL AGGREGATE_JSON THIS_JOB_ID SHOTS_DIR
// For each key statistic of a `profile --num-runs 3` group the page must show the mean,
// the 95% interval and the CV of <stem>_genperf_aggregate.json (written by profile, not
// by the store: an independent source), draw the interval as a whisker whose ends sit
// at the interval's bounds on the axis the mean and the runs' dots share, one dot per
// run at that run's value, and this job's dot filled.
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const { chromium } = require('playwright-core');

const [url, aggPath, thisJob, shots] = process.argv.slice(2);
const agg = JSON.parse(fs.readFileSync(aggPath, 'utf8')).metrics;
const fails = [];
function check(ok, what) { if (!ok) fails.push(what); console.log((ok ? 'ok   ' : 'FAIL ') + what); }
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

(async () => {
  const prof = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'gp-chromium-'));
  const ctx = await chromium.launchPersistentContext(prof, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    viewport: { width: 1400, height: 1000 },
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#gp-repeats tbody tr', { timeout: 20000 }).catch(() => {});
  const rows = await page.$$eval('#gp-repeats tbody tr', (trs) => trs.map((tr) => {
    const svg = tr.querySelector('svg.gp-whisker'), ci = svg && svg.querySelector('g.gp-ci');
    const lines = ci ? [...ci.querySelectorAll('line')].map((l) => [+l.getAttribute('x1'), +l.getAttribute('x2')]) : [];
    const mean = svg && svg.querySelector('rect.gp-mean');
    return {
      metric: tr.dataset.metric, stat: tr.dataset.stat, cells: [...tr.children].map((td) => td.textContent),
      mean: +tr.children[3].dataset.value, half: tr.children[4].dataset.value, cv: tr.children[5].dataset.value,
      lo: ci ? +ci.dataset.lo : null, hi: ci ? +ci.dataset.hi : null, lines,
      meanX: mean ? +mean.getAttribute('x') + +mean.getAttribute('width') / 2 : null, meanV: mean ? +mean.dataset.value : null,
      dots: svg ? [...svg.querySelectorAll('circle.gp-run')].map((c) => ({ v: +c.dataset.value, x: +c.getAttribute('cx'),
        job: c.dataset.job, filled: c.getAttribute('fill') !== '#fff' })) : [],
    };
  }));
  const head = await page.$eval('#gp-main', (m) => [...m.querySelectorAll('h3')].map((h) => h.textContent).join(' | ')).catch(() => '');
  check(/Repeats: run \d of 3/.test(head), 'the page says which run of 3 this job is: ' + head);
  const want = [['time_to_first_token', 'avg'], ['time_to_first_token', 'p99'], ['inter_token_latency', 'avg'],
    ['request_latency', 'p99'], ['output_token_throughput', 'avg'], ['request_throughput', 'avg']];
  for (const [m, st] of want) {
    const r = rows.find((x) => x.metric === m && x.stat === st), a = agg[m] && agg[m][st];
    const what = m + ' ' + st;
    if (!r || !a) { check(false, what + ': a row and an aggregate entry'); continue; }
    check(close(r.mean, a.mean) && close(r.meanV, a.mean), what + ': mean ' + r.mean + ' = aggregate ' + a.mean);
    check(close(r.lo, a.ci95_low) && close(r.hi, a.ci95_high),
      what + ': whisker [' + r.lo + ', ' + r.hi + '] = aggregate [' + a.ci95_low + ', ' + a.ci95_high + ']');
    check(close(+r.half, (a.ci95_high - a.ci95_low) / 2), what + ': ± ' + r.half);
    check(close(+r.cv, a.cv) && r.cells[5] === (a.cv * 100).toFixed(1) + '%', what + ': CV ' + r.cells[5] + ' = aggregate ' + a.cv);
    // geometry: the whisker spans lo..hi on the axis the mean and the dots use
    const [x1, x2] = r.lines[0] || [NaN, NaN];
    const scale = (x2 - x1) / (r.hi - r.lo);
    const at = (v) => x1 + (v - r.lo) * scale;
    check(r.lines.length === 3 && x2 > x1 && r.meanX > x1 && r.meanX < x2, what + ': the mean is drawn inside the whisker');
    check(r.hi === r.lo || Math.abs(at(r.mean) - r.meanX) < 0.01, what + ': the mean sits at its value on the whisker\'s axis');
    const dv = r.dots.map((d) => d.v).sort((p, q) => p - q), av = a.values.slice().sort((p, q) => p - q);
    check(dv.length === 3 && dv.every((v, i) => close(v, av[i])), what + ': one dot per run at its value ' + JSON.stringify(dv));
    check(r.dots.every((d) => r.hi === r.lo || Math.abs(at(d.v) - d.x) < 0.01), what + ': each dot sits at its value on that axis');
    check(r.dots.filter((d) => d.filled).length === 1 && r.dots.find((d) => d.filled).job === thisJob, what + ': this job\'s dot is filled');
  }
  check(!errors.length, 'no page errors ' + JSON.stringify(errors));
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'repeats.png'), fullPage: true });
  await ctx.close();
  if (fails.length) { console.log(fails.length + ' check(s) failed'); process.exit(1); }
  console.log('all repeats checks passed');
})().catch((e) => { console.log('FAIL ' + e); process.exit(1); });
