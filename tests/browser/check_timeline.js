// Browser check of the job page's timeline (--timeslice-duration; driven by report_timeline.sh).
// usage: node check_timeline.js URL SHOTS_DIR
// The timeline's charts must share one x axis (the same min, max and unit label) and
// one synced cursor, and show the overload: TTFT p50 and the server's waiting count
// climb above where they start. report_timeline.sh sends twice what the server can
// serve, so its FIFO queue (and each later request's wait) grows for as long as the
// sending lasts, on any host; how the thirds of the axis compare is not guaranteed
// (the drain after the last send, a busy host's timing), so the test does not ask.
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const { chromium } = require('playwright-core');

const [url, shots] = process.argv.slice(2);
const fails = [];
function check(ok, what) { if (!ok) fails.push(what); console.log((ok ? 'ok   ' : 'FAIL ') + what); }

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
  await page.waitForFunction(() => {
    const cs = document.querySelectorAll('#gp-timeline .gp-chart');
    return cs.length >= 5 && [...cs].every((c) => c.hasAttribute('data-drawn'));
  }, null, { timeout: 20000 }).catch(() => {});
  const charts = await page.$$eval('#gp-timeline .gp-chart', (cs) => cs.map((c) => {
    const u = c._uplot;
    return { title: c.dataset.chart, min: u.scales.x.min, max: u.scales.x.max, label: u.axes[0].label,
      sync: u.cursor.sync ? u.cursor.sync.key : null, xs: u.data[0], ys: u.data.slice(1) };
  }));
  const titles = charts.map((c) => c.title);
  console.log('charts: ' + JSON.stringify(titles));
  for (const t of ['Throughput over time', 'TTFT over time', 'Failures over time', 'server: requests waiting',
    'server: requests running', 'server: KV cache usage (%)', 'GPU power (W)'])
    check(titles.includes(t), 'timeline has "' + t + '"');
  const a = charts[0] || {};
  check(charts.length >= 5 && charts.every((c) => c.min === a.min && c.max === a.max && c.label === a.label && c.sync === 'gp-timeline'),
    'every timeline chart has the same x range and unit ' + JSON.stringify(charts.map((c) => [c.title, c.min, c.max, c.label, c.sync])));
  check(a.max > a.min, 'the shared x range is not empty');
  const climbs = (title, which) => {
    const c = charts.find((x) => x.title === title);
    if (!c) return false;
    const v = c.xs.map((x, i) => [x, c.ys[which][i]]).filter((p) => p[1] != null);
    if (v.length < 2) return false;
    const peak = v.reduce((m, p) => (p[1] > m[1] ? p : m), v[0]);
    console.log(title + ': first ' + JSON.stringify(v[0]) + ', peak ' + JSON.stringify(peak) + ' of ' + v.length + ' points');
    return peak[1] > v[0][1] && peak[0] > v[0][0];
  };
  check(climbs('TTFT over time', 0), 'TTFT p50 climbs above its first slice on the shared axis');
  check(climbs('server: requests waiting', 0), 'the server\'s waiting count climbs above its first sample on the same axis');
  check(!errors.length, 'no page errors ' + JSON.stringify(errors));
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'timeline.png'), fullPage: true });
  await ctx.close();
  if (fails.length) { console.log(fails.length + ' check(s) failed'); process.exit(1); }
  console.log('all timeline checks passed');
})().catch((e) => { console.log('FAIL ' + e); process.exit(1); });
