/* genperf Benchmarks page and report: the job page's Repeats section (a
 * --num-runs run or a scenario's repeats: the group's statistics, each with
 * its 95% interval as a whisker and every run as a dot). Loaded after app.js
 * (and compare.js), whose helpers it takes from window.gpPage, and sets
 * gpPage.renderRepeats, which app.js's job page calls (the same rules hold:
 * data only ever becomes text nodes). A file of its own so that app.js stays
 * under ~700 lines. */
'use strict';
(function () {
  const gp = window.gpPage;
  if (!gp) return;
  const el = gp.el, add = gp.add, num = gp.num, fmt = gp.fmt, jobHref = gp.jobHref, palette = gp.palette;

  /* --num-runs / a scenario's repeats: this job is one run of a group. Per
   * key statistic, the mean over the runs with its 95% Student-t interval as
   * a whisker and each run's value as a dot (this job's filled), on an axis
   * of its own (the statistics differ in unit and scale). The numbers are
   * the store's (v_repeat_groups), the ones `genperf results --groups` prints. */
  const SVG = 'http://www.w3.org/2000/svg';
  function svgEl(tag, attrs, title) {
    const e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { if (attrs[k] != null) e.setAttribute(k, String(attrs[k])); });
    if (title != null) { const t = document.createElementNS(SVG, 'title'); t.textContent = String(title); e.append(t); }
    return e;
  }
  function whisker(s, thisJob) {
    const W = 260, H = 26, pad = 8, y = H / 2;
    const mean = num(s.mean), lo = num(s.ci95_low), hi = num(s.ci95_high);
    const vals = (s.values || []).map(function (v) { return { v: num(v.value), job: v.job_id, k: v.repeat_index }; })
      .filter(function (v) { return v.v != null; });
    const all = vals.map(function (v) { return v.v; }).concat([mean, lo, hi].filter(function (v) { return v != null; }));
    let a = Math.min.apply(null, all), b = Math.max.apply(null, all);
    if (!(b > a)) { const w = Math.abs(a) * 0.01 || 1; a -= w; b += w; }
    const x = function (v) { return pad + (v - a) / (b - a) * (W - 2 * pad); };
    const svg = svgEl('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, class: 'gp-whisker',
      'data-metric': s.metric, 'data-stat': s.stat });
    svg.append(svgEl('line', { x1: pad, x2: W - pad, y1: H - 3, y2: H - 3, stroke: '#d8dde3' }));
    if (lo != null && hi != null) {
      const g = svgEl('g', { class: 'gp-ci', 'data-lo': lo, 'data-hi': hi, stroke: palette[0], 'stroke-width': 2 },
        '95% interval ' + fmt(lo) + ' … ' + fmt(hi));
      g.append(svgEl('line', { x1: x(lo), x2: x(hi), y1: y, y2: y }));
      g.append(svgEl('line', { x1: x(lo), x2: x(lo), y1: y - 6, y2: y + 6 }));
      g.append(svgEl('line', { x1: x(hi), x2: x(hi), y1: y - 6, y2: y + 6 }));
      svg.append(g);
    }
    if (mean != null) svg.append(svgEl('rect', { class: 'gp-mean', 'data-value': mean, x: x(mean) - 1.5, y: y - 8, width: 3, height: 16,
      fill: palette[0] }, 'mean ' + fmt(mean)));
    vals.forEach(function (v) {
      const mine = String(v.job) === String(thisJob);
      svg.append(svgEl('circle', { class: 'gp-run', 'data-value': v.v, 'data-job': v.job, cx: x(v.v), cy: y, r: mine ? 4 : 3,
        fill: mine ? palette[1] : '#fff', stroke: palette[1], 'stroke-width': 1.5 }, 'run ' + v.k + ' (job ' + v.job + '): ' + fmt(v.v)));
    });
    return svg;
  }
  function renderRepeats(body, d) {
    const g = d.repeat_group, jid = d.job && d.job.id;
    if (!g || typeof g !== 'object') return;
    const runs = g.runs || [];
    add(body, el('h3', null, 'Repeats: run ' + fmt(g.repeat_index) + ' of ' + fmt(g.n_runs) + ' (group ' + fmt(g.group_id) + ', ' + String(g.label == null ? '' : g.label) + ')'));
    add(body, el('p', { class: 'gp-meta' }, 'runs: ', runs.map(function (r, i) {
      const me = String(r.job_id) === String(jid);
      return [i ? ', ' : '', me ? el('b', null, 'run ' + fmt(r.repeat_index)) : el('a', { href: jobHref(r.job_id) }, 'run ' + fmt(r.repeat_index))];
    }), ' — mean over the runs, 95% interval of the mean (Student t) as the whisker, each run a dot (this one filled)'));
    const st = g.stats || [];
    if (!st.length) { add(body, el('p', { class: 'gp-note' }, 'no statistics stored for this group')); return; }
    add(body, el('table', { class: 'gp', id: 'gp-repeats' },
      el('thead', null, el('tr', null, el('th', { class: 't' }, 'metric'), el('th', { class: 't' }, 'stat'), el('th', { class: 't' }, 'unit'),
        el('th', null, 'mean'), el('th', null, '± 95%'), el('th', null, 'CV'), el('th', null, 'runs'), el('th', { class: 't' }, 'interval and runs'))),
      el('tbody', null, st.map(function (s) {
        const lo = num(s.ci95_low), hi = num(s.ci95_high);
        return el('tr', { 'data-metric': s.metric, 'data-stat': s.stat },
          el('td', { class: 't' }, String(s.metric_name || s.metric)), el('td', { class: 't' }, String(s.stat)),
          el('td', { class: 't' }, s.unit == null ? '' : String(s.unit)),
          el('td', { 'data-value': s.mean }, fmt(s.mean)),
          el('td', { 'data-value': lo != null && hi != null ? (hi - lo) / 2 : '' }, lo != null && hi != null ? fmt((hi - lo) / 2) : '–'),
          el('td', { 'data-value': s.cv == null ? '' : s.cv }, num(s.cv) == null ? '–' : (num(s.cv) * 100).toFixed(1) + '%'), el('td', null, fmt(s.n)),
          el('td', { class: 't' }, whisker(s, jid)));
      }))));
  }

  gp.renderRepeats = renderRepeats;
})();
