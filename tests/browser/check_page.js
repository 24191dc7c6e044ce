// Browser checks for the Benchmarks page and reports (driven by tests/browser/*.sh).
// usage: node check_page.js SPEC.json
// SPEC: {"base": "http://127.0.0.1:N/" or "file:///.../report.html", "offline": bool,
//        "jobs": N, "model": "...", "job": ID, "metrics": {"request_latency.avg": 12.3, ...},
//        "charts_min": 3, "hardware": bool, "compare": "1,2" | null, "shots": DIR, "tag": "ui"}
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const { chromium } = require('playwright-core');

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const fails = [];
function check(ok, what) { if (!ok) fails.push(what); console.log((ok ? 'ok   ' : 'FAIL ') + what); }

async function distinctColours(page, png) {
  // Decode the screenshot with the browser's own PNG decoder and count colours.
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return seen.size;
  }, png.toString('base64'));
}

async function canvasInk(page, sel) {
  // Pixels of the chart canvases that are not background: proof that uPlot drew.
  return page.evaluate((s) => {
    let ink = 0;
    document.querySelectorAll(s + ' canvas').forEach((cv) => {
      const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) ink++;
    });
    return ink;
  }, sel);
}

// Every Hardware chart's y axis: its tick labels are all different from their
// neighbours and the axis is as wide as the longest label (a 50 px axis once
// showed 23.078 GiB as "3.078", with "23.078" repeated). want: {"chart": title,
// "prefix": "23.07"} names a chart whose labels must all start with prefix.
async function checkAxes(page, want) {
  const axes = await page.$$eval('#gp-hardware .gp-chart[data-drawn]', (cs) => cs.map((c) => {
    const u = c._uplot;
    if (!u) return { chart: c.dataset.chart, missing: true };
    const a = u.axes[1], labels = (a._values || []).map(String);
    const longest = labels.reduce((m, l) => (l.length > m.length ? l : m), '');
    u.ctx.font = a.font[0];
    return { chart: c.dataset.chart, labels, size: a._size, need: a.ticks.size + a.gap + u.ctx.measureText(longest).width / devicePixelRatio };
  }));
  for (const a of axes) {
    if (a.missing) { check(false, `chart ${a.chart} exposes its uPlot instance`); continue; }
    const rep = a.labels.filter((l, i) => l !== '' && i > 0 && l === a.labels[i - 1]);
    check(a.labels.length >= 2 && rep.length === 0, `${a.chart}: y tick labels differ from their neighbours (${JSON.stringify(a.labels)})`);
    check(a.size >= a.need, `${a.chart}: y axis (${a.size} px) is as wide as its longest label needs (${a.need.toFixed(1)} px)`);
  }
  if (want) {
    const a = axes.find((x) => x.chart === want.chart);
    check(!!a && a.labels && a.labels.length >= 2 && a.labels.every((l) => l === '' || l.startsWith(want.prefix)),
      `${want.chart}: tick labels show the whole value ${want.prefix}… (${a ? JSON.stringify(a.labels) : 'no such chart'})`);
  }
}

(async () => {
  const prof = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'gp-chromium-'));
  const ctx = await chromium.launchPersistentContext(prof, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 1000 },
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  const dialogs = [], errors = [], external = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const baseOrigin = spec.base.startsWith('http') ? new URL(spec.base).origin : null;
  await page.route('**/*', (route) => {
    const u = route.request().url();
    const local = spec.offline ? (u.startsWith('file:') || u.startsWith('data:'))
      : (u.startsWith(baseOrigin) || u.startsWith('data:'));
    if (!local) { external.push(u); return route.abort(); }
    return route.continue();
  });
  const go = async (hash) => {
    await page.goto(spec.base + hash, { waitUntil: 'load' });
    if (hash) await page.evaluate((h) => { if (location.hash !== h) location.hash = h; }, hash);
  };
  const shot = async (name) => {
    fs.mkdirSync(spec.shots, { recursive: true });
    const file = path.join(spec.shots, spec.tag + '-' + name + '.png');
    const png = await page.screenshot({ path: file, fullPage: true });
    const n = await distinctColours(page, png);
    check(n >= 16, `${name} screenshot ${file} is not blank (${n} distinct colours)`);
  };
  try {
    if (spec.empty) {
      // an empty store: the list says how to add jobs
      await go('');
      await page.waitForSelector('#gp-empty-store', { timeout: 10000 }).catch(() => {});
      const t = await page.$eval('#gp-empty-store', (e) => e.textContent).catch(() => '');
      check(/genperf ingest/.test(t) && /--db/.test(t), `an empty store says how to add jobs (${JSON.stringify(t)})`);
      await shot('empty');
      throw null; // ends the page checks: an empty store has no job to open
    }
    if (spec.split) {
      // a job over several --urls with failures: every endpoint and its
      // share, and the failed requests' texts grouped with their counts
      await go('#/job/' + spec.split.job);
      await page.waitForSelector('#gp-metric-table', { timeout: 10000 }).catch(() => {});
      const eps = await page.$$eval('#gp-endpoints tbody tr', (r) => r.map((x) => x.children[0].textContent + ' ' + x.children[2].textContent));
      check(eps.length === spec.split.endpoints && eps.every((t) => /%$/.test(t)),
        `the job page lists ${spec.split.endpoints} endpoints with their shares (${JSON.stringify(eps)})`);
      const errs = await page.$$eval('#gp-errors tbody tr', (r) => r.map((x) => [Number(x.children[0].textContent), x.children[1].textContent, x.children[2].textContent]));
      const total = errs.reduce((a, e) => a + e[0], 0);
      check(total === spec.split.failed && errs.some((e) => e[1] === '500' && e[2].includes(spec.split.text)),
        `the job page groups its ${spec.split.failed} failed requests by error text (${JSON.stringify(errs)})`);
      await shot('split');
      throw null;
    }
    // 1. Benchmarks list.
    await go(spec.offline ? '#/' : '');
    await page.waitForSelector('#gp-jobs tbody tr', { timeout: 10000 });
    const rows = await page.$$eval('#gp-jobs tbody tr', (r) => r.length);
    check(rows === spec.jobs, `list shows ${spec.jobs} jobs (got ${rows})`);
    const models = await page.$$eval('#gp-jobs td[data-col=model]', (t) => t.map((x) => x.textContent));
    check(models.includes(spec.model), `model name shown as text: ${JSON.stringify(spec.model)} (got ${JSON.stringify(models.slice(0, 3))})`);
    if (spec.status_bad) {
      const st = await page.$$eval('#gp-jobs td[data-status]', (t) => t.map((x) => [x.dataset.status, x.className, x.title]));
      const hit = st.filter((x) => x[0] === spec.status_bad);
      check(hit.length === 1 && hit[0][1].includes('gp-status-bad') && hit[0][2].length > 0 &&
        st.every((x) => x[0] === spec.status_bad || !x[1].includes('gp-status-bad')),
        `status ${spec.status_bad} is marked in the list, and only it (${JSON.stringify(st)})`);
    }
    const injected = await page.$$eval('#gp-main script, #gp-main img', (s) => s.length);
    check(injected === 0, `no element injected from data (got ${injected})`);
    if (spec.sort) {
      await page.selectOption('select[name=sort]', spec.sort);
      await page.selectOption('select[name=order]', 'asc');
      const vals = await page.$$eval(`#gp-jobs td[data-metric="${spec.sort}"]`, (t) => t.map((x) => Number(x.dataset.value)));
      const sorted = vals.slice().sort((a, b) => a - b);
      check(vals.length > 0 && JSON.stringify(vals) === JSON.stringify(sorted), `list sorts by ${spec.sort} ascending (${vals})`);
      const h = await page.evaluate(() => location.hash);
      check(h.includes('sort=' + encodeURIComponent(spec.sort)) && h.includes('order=asc'), `the sort is kept in the URL (${h})`);
      // The same URL opened afresh gives the same order.
      await page.evaluate((j) => { location.hash = '#/job/' + j; }, spec.job);
      await page.evaluate((hh) => { location.hash = hh; }, h);
      await page.waitForSelector('#gp-jobs tbody tr', { timeout: 10000 });
      const again = await page.$$eval(`#gp-jobs td[data-metric="${spec.sort}"]`, (t) => t.map((x) => Number(x.dataset.value)));
      check(JSON.stringify(again) === JSON.stringify(sorted), `reopening ${h} restores the sort`);
    }
    if (spec.sort) {
      // the sort menu: a group per metric, statistics in percentile order
      const groups = await page.$$eval('select[name=sort] optgroup', (g) => g.map((x) => [x.label, [...x.querySelectorAll('option')].map((o) => o.value)]));
      const order = ['avg', 'min', 'p1', 'p5', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99', 'max', 'std'];
      const lat = (groups.find((g) => g[0] === 'request_latency') || [null, []])[1].map((v) => v.split('.')[1]);
      const inOrder = lat.every((v, i) => i === 0 || order.indexOf(lat[i - 1]) < order.indexOf(v));
      check(groups.length >= 2 && lat.length >= 5 && inOrder, `sort menu grouped, request_latency's stats in percentile order (${JSON.stringify(lat)})`);
    }
    if (spec.sweep_links) {
      const above = await page.evaluate(() => {
        const s = document.querySelector('#gp-sweeps'), t = document.querySelector('#gp-jobs');
        return !!(s && t && s.querySelector('a') && (s.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING));
      });
      check(above, '"Compare a sweep" links sit above the job list');
    }
    await shot('list');

    // 2. Job page: numbers and charts.
    await go(`#/job/${spec.job}`);
    await page.waitForSelector('#gp-metric-table tbody tr', { timeout: 10000 });
    for (const [k, want] of Object.entries(spec.metrics || {})) {
      const [m, s] = k.split('.');
      const got = await page.$eval(`#gp-metric-table tr[data-metric="${m}"] td[data-stat="${s}"]`, (t) => [t.dataset.value, t.textContent]).catch(() => null);
      const ok = got && Math.abs(Number(got[0]) - want) <= 1e-9 * Math.max(1, Math.abs(want));
      check(!!ok, `job ${spec.job} ${k} = ${want} (page: ${got ? got.join(' shown as ') : 'missing'})`);
    }
    const title = await page.$eval('#gp-model', (e) => e.textContent).catch(() => null);
    check(title === spec.model, `job header shows the model as text (${JSON.stringify(title)})`);
    if (spec.fidelity) { // the fidelity verdict of the job's <stem>_genperf.json, in the header
      const f = await page.$eval('#gp-fidelity', (e) => [e.dataset.verdict, e.className, e.textContent]).catch(() => null);
      check(!!f && f[0] === spec.fidelity.verdict && f[1].includes('gp-status-bad') === (spec.fidelity.verdict === 'limiting') &&
        f[2].includes(spec.fidelity.text), `job header shows the fidelity verdict ${JSON.stringify(spec.fidelity)} (${JSON.stringify(f)})`);
    }
    await page.waitForFunction((n) => document.querySelectorAll('#gp-metrics .gp-chart[data-drawn]').length >= n, spec.charts_min, { timeout: 10000 }).catch(() => {});
    const drawn = await page.$$eval('#gp-metrics .gp-chart[data-drawn]', (c) => c.map((x) => x.dataset.chart));
    check(drawn.length >= spec.charts_min, `job page draws >= ${spec.charts_min} charts (${drawn.join('; ')})`);
    check((await canvasInk(page, '#gp-metrics')) > 500, 'job charts have ink on their canvases');
    if (!spec.offline) {
      const href = await page.$eval('#gp-download', (a) => a.getAttribute('href')).catch(() => null);
      check(href === `/report?id=${spec.job}`, `job page links its HTML report (${href})`);
    }
    await shot('job');

    // 3. Hardware tab.
    await page.click('#tab-hardware');
    await page.waitForSelector('#gp-hardware', { timeout: 10000 });
    if (spec.hardware) {
      await page.waitForFunction(() => document.querySelectorAll('#gp-hardware .gp-chart[data-drawn]').length >= 2, null, { timeout: 10000 }).catch(() => {});
      const hw = await page.$$eval('#gp-hardware .gp-chart[data-drawn]', (c) => c.map((x) => x.dataset.chart));
      check(hw.length >= 2, `Hardware tab draws telemetry charts (${hw.join('; ')})`);
      check((await canvasInk(page, '#gp-hardware')) > 500, 'Hardware charts have ink on their canvases');
      // GPU charts hold GPU series only (the host's memory once appeared as "GPU memory used")
      const gpuSeries = await page.$$eval('#gp-hardware .gp-chart[data-chart^="GPU "]', (c) => c.map((x) =>
        [x.dataset.chart, [...x.querySelectorAll('.u-legend .u-series .u-label')].slice(1).map((l) => l.textContent)]));
      const bad = gpuSeries.filter(([, ls]) => ls.some((l) => !/^gpu/.test(l)));
      check(bad.length === 0, `GPU charts draw only GPU devices (${JSON.stringify(bad)})`);
      if (spec.hardware_labels) {
        // several hosts: one series per host, labelled "device @ host"
        const labels = await page.$$eval('#gp-hardware .gp-chart .u-legend .u-series .u-label', (l) => l.map((x) => x.textContent));
        for (const want of spec.hardware_labels)
          check(labels.includes(want), `Hardware tab has a series labelled ${JSON.stringify(want)} (${JSON.stringify(labels)})`);
      }
      await checkAxes(page, spec.hardware_axis);
      if (spec.hardware_axis) {
        const notes = await page.$$eval('#gp-hardware .gp-note', (n) => n.map((x) => x.id));
        check(!notes.includes('gp-no-gpu') && !notes.includes('gp-short-run'), `a long run with GPUs has no no-GPU or short-run note (${notes})`);
        // the summary table (the UI's; a report file has none) fits a 1,280 px window
        await page.setViewportSize({ width: 1280, height: 1000 });
        const right = await page.$eval('#gp-telemetry-summary', (t) => t.getBoundingClientRect().right).catch(() => null);
        check(right != null && right <= 1280, `telemetry summary table fits 1,280 px (right edge at ${right})`);
        await shot('hardware-1280');
        await page.setViewportSize({ width: 1400, height: 1000 });
      }
    } else {
      await page.waitForSelector('#gp-no-telemetry', { timeout: 10000 }).catch(() => {});
      check(!!(await page.$('#gp-no-telemetry')), 'Hardware tab says there is no telemetry');
    }
    await shot('hardware');

    // 3b. A short run without GPUs: its one sample per metric is drawn, and notes say why the tab is thin.
    if (spec.hardware_short) {
      await go(`#/job/${spec.hardware_short}/hardware`);
      await page.waitForFunction(() => document.querySelectorAll('#gp-hardware .gp-chart[data-drawn]').length >= 1, null, { timeout: 10000 }).catch(() => {});
      const hw = await page.$$eval('#gp-hardware .gp-chart[data-drawn]', (c) => c.map((x) => x.dataset.chart));
      check(hw.every((t) => !t.includes('_')), `Hardware chart titles are display names, not raw metric names (${JSON.stringify(hw)})`);
      check(hw.includes('server: requests waiting'), `num_requests_waiting is titled "server: requests waiting" (${JSON.stringify(hw)})`);
      // the series colour on the canvas: a one-sample series drawn as a point, not left empty
      const dots = await page.$$eval('#gp-hardware .gp-chart[data-drawn] canvas', (cs) => cs.map((cv) => {
        const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 31) < 40 && Math.abs(d[i + 1] - 111) < 40 && d[i + 2] > 200 && d[i + 3] > 0) n++;
        return n;
      }));
      check(dots.length >= 1 && dots.every((n) => n >= 12), `each one-sample series is drawn as a point (series-coloured pixels per chart: ${dots})`);
      for (const id of ['gp-no-gpu', 'gp-short-run']) {
        const t = await page.$eval('#' + id, (e) => e.textContent).catch(() => null);
        check(!!t, `Hardware tab of job ${spec.hardware_short} shows #${id} (${JSON.stringify(t)})`);
      }
      await checkAxes(page, null);
      await shot('hardware-short');
    }

    // 4. Compare view.
    if (spec.compare) {
      await go(`#/compare/ids/${spec.compare}`);
      await page.waitForFunction(() => document.querySelectorAll('#gp-compare .gp-chart[data-drawn]').length >= 2, null, { timeout: 10000 }).catch(() => {});
      const cc = await page.$$eval('#gp-compare .gp-chart[data-drawn]', (c) => c.map((x) => x.dataset.chart));
      check(cc.length >= 2, `compare view draws Pareto and concurrency charts (${cc.join('; ')})`);
      if (spec.compare_mixed) {
        // jobs of different endpoint types: the view warns, naming what differs
        const w = await page.$eval('#gp-compare-mixed', (e) => e.textContent).catch(() => null);
        check(!!w && w.includes(spec.compare_mixed), `compare warns that the jobs differ in ${spec.compare_mixed} (${JSON.stringify(w)})`);
      }
      if (spec.pareto_y) {
        // no GPU count: the Pareto chart is per server, in its title and on its axis
        const p = await page.$$eval('#gp-compare .gp-chart[data-pareto]', (c) => c.map((x) => [x.dataset.chart, x._uplot ? x._uplot.axes[1].label : null]));
        check(p.length === 1 && p[0][1] === spec.pareto_y && p[0][0].includes(spec.pareto_y.replace('output tokens/s ', '')),
          `Pareto chart says ${JSON.stringify(spec.pareto_y)} (${JSON.stringify(p)})`);
      }
      for (const a of spec.pareto_axes || []) {
        // energy / cost as the Pareto chart's y axis (issue 32): the select redraws it, one chart
        await page.selectOption('#gp-pareto-axis', a.value).catch(() => {});
        await page.waitForFunction((v) => { const b = document.querySelector('#gp-compare .gp-chart[data-pareto-axis]');
          return b && b.dataset.paretoAxis === v && b.dataset.drawn; }, a.value, { timeout: 10000 }).catch(() => {});
        const p = await page.$$eval('#gp-compare .gp-chart[data-pareto]', (c) => c.map((x) => [x.dataset.paretoAxis, x._uplot ? x._uplot.axes[1].label : null, x.dataset.pareto]));
        check(p.length === 1 && p[0][0] === a.value && p[0][1] === a.label && p[0][2] === String(a.front),
          `Pareto y axis ${a.value}: one chart labelled ${JSON.stringify(a.label)}, ${a.front} on the frontier (${JSON.stringify(p)})`);
      }
      await shot('compare');
    }
    // 5. A job the store does not hold: one message, no empty tabs.
    if (spec.missing_job) {
      const seen = errors.length;
      await go(`#/job/${spec.missing_job}/hardware`);
      await page.waitForSelector('#gp-missing', { timeout: 10000 }).catch(() => {});
      const m = await page.evaluate(() => [document.querySelectorAll('#gp-main .gp-err').length,
        !!document.querySelector('#gp-missing'), document.querySelectorAll('.gp-tabs, #gp-hardware, #gp-metrics').length]);
      check(m[0] === 1 && m[1] && m[2] === 0, `missing job ${spec.missing_job}: one message, no tabs (errors ${m[0]}, tabs/bodies ${m[2]})`);
      await shot('missing-job');
      // the browser logs the API's 404 itself; that one is expected here
      errors.splice(seen, errors.length - seen, ...errors.slice(seen).filter((x) => !/status of 404/.test(x)));
    }
  } catch (e) {
    if (e !== null) check(false, 'exception: ' + (e && e.stack || e));
  }
  check(dialogs.length === 0, `no dialog opened (alert from data would show here: ${JSON.stringify(dialogs)})`);
  check(errors.length === 0, `no script errors (${JSON.stringify(errors.slice(0, 3))})`);
  if (spec.offline) check(external.length === 0, `report needs no network (${JSON.stringify(external.slice(0, 3))})`);
  await ctx.close();
  fs.rmSync(prof, { recursive: true, force: true });
  console.log(fails.length ? `${fails.length} check(s) failed` : 'all browser checks passed');
  process.exit(fails.length ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
