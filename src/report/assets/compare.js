/* genperf Benchmarks page and report: the compare view (#/compare/ids/...,
 * #/compare/scenario/NAME): side-by-side tables, load and Pareto charts,
 * overlaid distributions. Loaded after app.js, whose helpers it takes from
 * window.gpPage (the same rules hold: data only ever becomes text nodes). */
'use strict';
(function () {
  const gp = window.gpPage;
  if (!gp) return;
  const bundle = gp.bundle, root = gp.root, charts = gp.charts, api = gp.api, el = gp.el, add = gp.add, num = gp.num,
    fmt = gp.fmt, jobHref = gp.jobHref, current = gp.current, clear = gp.clear, showError = gp.showError,
    palette = gp.palette, chart = gp.chart, padded = gp.padded;

  /* ---- compare ---------------------------------------------------------- */
  function viewCompare(kind, arg) {
    clear();
    add(root, el('h2', null, kind === 'scenario' ? ['Compare sweep ', el('span', null, arg)] : 'Compare jobs'));
    const body = el('div', { id: 'gp-compare' }); add(root, body);
    const gen = gp.gen();
    const path = '/api/compare?' + (kind === 'scenario' ? 'scenario=' + encodeURIComponent(arg) : 'ids=' + arg.split(',').map(encodeURIComponent).join(','));
    api(path).catch(function (e) {
      // A report holds the comparison of all its jobs; another selection is
      // built from the list rows it also holds (same numbers, same shape).
      const list = bundle && bundle.api['/api/jobs'];
      if (!list) throw e;
      const pick = kind === 'scenario' ? null : arg.split(',');
      return { points: (list.jobs || []).filter(function (j) {
        return pick ? pick.indexOf(String(j.id)) >= 0 : String(j.scenario) === arg;
      }).map(function (j) {
        const m = j.metrics || {};
        return { id: j.id, label: j.cell || ('job ' + j.id), model: j.model, endpoint_type: j.endpoint_type, concurrency: j.concurrency,
          request_rate: j.request_rate, request_throughput: m['request_throughput.avg'],
          output_token_throughput: m['output_token_throughput.avg'], time_to_first_token_p50: m['time_to_first_token.p50'],
          request_latency_p50: m['request_latency.p50'], request_latency_p99: m['request_latency.p99'],
          time_to_first_token_p99: m['time_to_first_token.p99'], inter_token_latency_p50: m['inter_token_latency.p50'],
          inter_token_latency_p99: m['inter_token_latency.p99'], output_token_throughput_per_user: m['output_token_throughput_per_user.avg'],
          tool: j.producer, gpu_count: j.gpu_count };
      }) };
    }).then(function (d) { return current(gen) ? renderCompare(body, d) : null; }).catch(function (e) { if (current(gen)) showError(body, e); });
  }

  /* A vertical marker at x (the search's limit) drawn over a chart. */
  function markX(x, text) {
    return function (u) {
      if (x == null || !u.scales.x || u.scales.x.min == null) return;
      const cx = u.valToPos(x, 'x', true), dpr = window.devicePixelRatio || 1, ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = '#1a7f37'; ctx.fillStyle = '#1a7f37'; ctx.lineWidth = 2 * dpr; ctx.setLineDash([5 * dpr, 4 * dpr]);
      ctx.beginPath(); ctx.moveTo(cx, u.bbox.top); ctx.lineTo(cx, u.bbox.top + u.bbox.height); ctx.stroke();
      ctx.font = (11 * dpr) + 'px system-ui, sans-serif';
      ctx.fillText(text, Math.min(cx + 4 * dpr, u.bbox.left + u.bbox.width - 70 * dpr), u.bbox.top + 12 * dpr);
      ctx.restore();
    };
  }
  function byTool(rows) {
    const g = {};
    rows.forEach(function (p) { const t = p.tool == null ? '' : String(p.tool); (g[t] = g[t] || []).push(p); });
    return g;
  }
  /* One chart against load (concurrency or request rate): defs are the y
   * series; jobs of different tools get their own (dashed) lines, so a
   * genperf and a GenAI-Perf run of the same cell sit side by side. */
  function loadChart(cbox, title, rows, xk, ylabel, defs, slo, limit) {
    const groups = byTool(rows), tools = Object.keys(groups).sort(), tables = [];
    const series = [{ label: xk === 'concurrency' ? 'concurrency' : 'req/s' }];
    tools.forEach(function (t, ti) {
      const seen = {}, rs = groups[t].filter(function (p) { const k = num(p[xk]); if (seen[k]) return false; seen[k] = 1; return true; });
      const tbl = [rs.map(function (p) { return num(p[xk]); })];
      defs.forEach(function (d, di) {
        tbl.push(rs.map(function (p) { return num(p[d.key]); }));
        series.push({ label: d.label + (tools.length > 1 ? ' · ' + (t || '?') : ''), stroke: palette[(di + ti * defs.length) % palette.length],
          dash: ti ? [6, 4] : undefined, spanGaps: true, points: { show: true } });
      });
      tables.push(tbl);
    });
    const data = tables.length === 1 ? tables[0] : uPlot.join(tables);
    if (slo != null) {
      data.push(data[0].map(function () { return slo; }));
      series.push({ label: 'SLO ' + fmt(slo) + ' ms', stroke: '#b42318', dash: [8, 5], width: 2, points: { show: false } });
    }
    const box = chart(cbox, title, slo != null ? 'dashed red: the SLO from the jobs\' goodput (-g)' : null, {
      scales: { x: { time: false, range: padded }, y: { range: function (u, mn, mx) { return [0, Math.max(mx, slo || 0) * 1.1 || 1]; } } },
      axes: [{ label: xk === 'concurrency' ? 'concurrency' : 'request rate (req/s)' }, { label: ylabel }],
      series: series, hooks: { draw: [markX(limit, 'limit ' + fmt(limit))] },
    }, data);
    if (slo != null) box.setAttribute('data-slo', String(slo));
    if (limit != null) box.setAttribute('data-limit', String(limit));
    return box;
  }

  /* The Pareto chart's y axes: throughput per GPU (default), or, for jobs
   * with GPU energy / --gpu-hour-cost figures, output tokens per joule or
   * dollars per million output tokens (lower is better there). */
  const paretoAxes = {
    tps: { key: 'output_token_throughput' },
    tpj: { key: 'output_tokens_per_joule', label: 'output tokens per joule', title: 'tokens per joule' },
    usd: { key: 'usd_per_million_output_tokens', label: '$ per million output tokens', title: '$ per million output tokens', lower: true },
  };

  /* Output tokens/s per GPU (or tokens/J, or $/Mtok) against tokens/s per
   * user: the serving trade-off. Better on both is up (down for $) and to
   * the right; the frontier joins the cells no other cell beats on both. */
  function paretoChart(cbox, pts, search, yk) {
    const ax = paretoAxes[yk] || paretoAxes.tps, tps = ax === paretoAxes.tps;
    const rows = pts.filter(function (p) { return num(p.output_token_throughput_per_user) != null && num(p[ax.key]) != null; })
      .map(function (p) { return { p: p, x: num(p.output_token_throughput_per_user), y: num(p[ax.key]) / (tps ? (num(p.gpu_count) || 1) : 1) }; })
      .sort(function (a, b) { return a.x - b.x || a.y - b.y; });
    if (!rows.length) return;
    let best = -Infinity;
    for (let i = rows.length - 1; i >= 0; i--) {
      const g = ax.lower ? -rows[i].y : rows[i].y;
      rows[i].front = g > best; if (rows[i].front) best = g;
    }
    const perGpu = pts.some(function (p) { return num(p.gpu_count) != null; });
    const ser = function (f) { return rows.map(function (r) { return f(r) ? r.y : null; }); };
    const dots = function (label, colour, size) { return { label: label, stroke: colour, paths: function () { return null; }, points: { show: true, size: size, fill: colour } }; };
    const series = [{ label: 'tokens/s per user' }];
    const data = [rows.map(function (r) { return r.x; })];
    if (search) {
      series.push(dots('meets target', palette[2], 8), dots('misses target', palette[1], 8));
      data.push(ser(function (r) { return r.p.meets === true; }), ser(function (r) { return r.p.meets !== true; }));
    } else { series.push(dots('cells', palette[0], 8)); data.push(ser(function () { return true; })); }
    series.push({ label: 'Pareto frontier', stroke: palette[4], spanGaps: true, points: { show: false } });
    data.push(ser(function (r) { return r.front; }));
    const lim = rows.filter(function (r) { return r.p.limit === true; })[0];
    if (lim) {
      series.push({ label: 'limit', stroke: '#1a7f37', paths: function () { return null; }, points: { show: true, size: 16, width: 3, stroke: '#1a7f37', fill: 'rgba(0,0,0,0)' } });
      data.push(ser(function (r) { return r === lim; }));
    }
    // without a GPU count the y axis is per server, and says so: "per GPU" there was a server's total
    const box = chart(cbox, 'Pareto: ' + (tps ? 'throughput per ' + (perGpu ? 'GPU' : 'server') : ax.title) + ' vs per user',
      'each point is one cell' + (tps && !perGpu ? ' (GPU count unknown: per server)' : '') + (lim ? '; the ring is the search limit' : ''), {
      scales: { x: { time: false, range: padded }, y: { range: padded } },
      axes: [{ label: 'output tokens/s per user' }, { label: tps ? (perGpu ? 'output tokens/s per GPU' : 'output tokens/s per server') : ax.label }],
      series: series,
    }, data);
    box.setAttribute('data-pareto', String(rows.filter(function (r) { return r.front; }).length));
    box.setAttribute('data-pareto-axis', tps ? 'tps' : yk);
    if (lim) box.setAttribute('data-limit', String(lim.p[search && search.search_type === 'request_rate' ? 'request_rate' : 'concurrency']));
  }

  /* Two or more jobs' per-request latencies overlaid as CDFs (one x grid). */
  function overlayDistributions(cbox, pts) {
    const few = pts.slice(0, 8);
    return Promise.all(few.map(function (p) { return api('/api/job/requests?id=' + encodeURIComponent(p.id)).catch(function () { return null; }); }))
      .then(function (rs) {
        [['ttft_ms', 'Time to first token'], ['latency_ms', 'Request latency']].forEach(function (m) {
          const sets = rs.map(function (r, i) {
            return { p: few[i], v: ((r && r[m[0]]) || []).map(num).filter(function (x) { return x != null; }).sort(function (a, b) { return a - b; }) };
          }).filter(function (s) { return s.v.length; });
          if (sets.length < 2) return;
          const lo = Math.min.apply(null, sets.map(function (s) { return s.v[0]; }));
          const hi = Math.max.apply(null, sets.map(function (s) { return s.v[s.v.length - 1]; }));
          const xs = [];
          for (let i = 0; i <= 150; i++) xs.push(lo + (hi - lo) * i / 150);
          const data = [xs].concat(sets.map(function (s) {
            let k = 0;
            return xs.map(function (x) { while (k < s.v.length && s.v[k] <= x) k++; return k / s.v.length; });
          }));
          chart(cbox, m[1] + ' distribution', 'share of requests at or below each latency (CDF), one line per job', {
            scales: { x: { time: false }, y: { range: [0, 1] } }, axes: [{ label: 'ms' }, { label: 'share of requests' }],
            series: [{ label: 'ms' }].concat(sets.map(function (s, i) {
              return { label: 'job ' + s.p.id + (s.p.tool ? ' · ' + s.p.tool : '') + ' · ' + (s.p.label || ''), stroke: palette[i % palette.length], points: { show: false } };
            })),
          }, data).setAttribute('data-overlay', String(sets.length));
        });
      });
  }

  function renderCompare(body, d) {
    const pts = d.points || [], search = d.search || null, slos = d.slos || {};
    if (search) {
      const unit = search.search_type === 'request_rate' ? ' req/s' : '';
      add(body, el('p', { class: 'gp-search', id: 'gp-search-summary' }, search.search_type + ' search: limit ',
        el('b', { id: 'gp-limit' }, search.limit == null ? 'none' : fmt(search.limit) + unit), ' · ',
        String(search.reason || search.stopped || ''), ' · goodput target ',
        num(search.goodput_target) == null ? '' : fmt(num(search.goodput_target) * 100) + '%', search.slos ? ' · SLOs ' + search.slos : ''));
    }
    // numbers of different models or endpoint types (chat vs completions) side by side
    // compare unlike things: say so above them
    const differ = [['model', 'models'], ['endpoint_type', 'endpoint types']].map(function (k) {
      const s = {}; pts.forEach(function (p) { if (p[k[0]] != null && p[k[0]] !== '') s[String(p[k[0]])] = 1; });
      return Object.keys(s).length > 1 ? k[1] + ' (' + Object.keys(s).sort().join(', ') + ')' : null;
    }).filter(Boolean);
    if (differ.length)
      add(body, el('p', { class: 'gp-err', id: 'gp-compare-mixed' }, 'These jobs differ in ' + differ.join(' and ') +
        ': their numbers are not measured on the same workload, so compare them with care.'));
    const cols = [['id', 'job'], ['label', 'cell'], ['tool', 'tool'], ['concurrency', 'concurrency'], ['request_rate', 'request rate'],
      ['request_throughput', 'requests/s'], ['output_token_throughput', 'output tokens/s'], ['output_token_throughput_per_user', 'tokens/s/user'],
      ['time_to_first_token_p50', 'TTFT p50'], ['time_to_first_token_p99', 'TTFT p99'], ['inter_token_latency_p99', 'ITL p99'],
      ['request_latency_p50', 'latency p50'], ['request_latency_p99', 'latency p99'], ['output_tokens_per_joule', 'tokens/J'],
      ['usd_per_million_output_tokens', '$/M output tokens'], ['good_share', 'good share'], ['pareto', 'Pareto']]
      .filter(function (c) { return c[0] === 'id' || c[0] === 'pareto' || pts.some(function (p) { return p[c[0]] != null && p[c[0]] !== ''; }); });
    // Pareto frontier on (latency p50 down, output tokens/s up): walk by latency, keep
    // each point that beats every lower-latency point's throughput.
    const usable = pts.filter(function (p) { return num(p.request_latency_p50) != null && num(p.output_token_throughput) != null; })
      .sort(function (a, b) { return num(a.request_latency_p50) - num(b.request_latency_p50) || num(b.output_token_throughput) - num(a.output_token_throughput); });
    let best = -Infinity;
    usable.forEach(function (p) { p.pareto = num(p.output_token_throughput) > best; if (p.pareto) best = num(p.output_token_throughput); });
    add(body, el('div', { class: 'gp-scroll' }, el('table', { class: 'gp', id: 'gp-compare-table' },
      el('thead', null, el('tr', null, cols.map(function (c) { return el('th', { class: 't' }, c[1]); }))),
      el('tbody', null, pts.map(function (p) {
        return el('tr', { class: p.limit ? 'gp-limit' : null, 'data-meets': p.meets == null ? null : String(p.meets) }, cols.map(function (c) {
          if (c[0] === 'id') return el('td', null, el('a', { href: jobHref(p.id) }, String(p.id)));
          if (c[0] === 'pareto') return el('td', null, p.pareto ? 'yes' : '');
          if (c[0] === 'label' && p.limit) return el('td', { class: 't' }, String(p.label), el('b', null, ' ◀ limit'));
          const v = p[c[0]];
          return el('td', { class: num(v) == null ? 't' : null }, c[0] === 'good_share' && num(v) != null ? fmt(num(v) * 100) + '%' : fmt(v));
        }));
      })))));
    const cbox = el('div', { class: 'gp-charts' }); add(body, cbox);
    let xk = 'concurrency';
    if (search && search.search_type === 'request_rate') xk = 'request_rate';
    else if (!pts.some(function (p) { return num(p.concurrency) != null; })) xk = 'request_rate';
    const byX = pts.filter(function (p) { return num(p[xk]) != null; }).sort(function (a, b) { return num(a[xk]) - num(b[xk]); });
    const limit = search ? num(search.limit) : null, xname = xk === 'concurrency' ? 'concurrency' : 'request rate';
    if (byX.length) {
      loadChart(cbox, 'Throughput vs ' + xname, byX, xk, 'output tokens/s', [{ key: 'output_token_throughput', label: 'output tokens/s' }], null, limit);
      if (byX.some(function (p) { return num(p.time_to_first_token_p50) != null; }))
        loadChart(cbox, 'TTFT vs ' + xname, byX, xk, 'time to first token (ms)', [{ key: 'time_to_first_token_p50', label: 'TTFT p50' },
          { key: 'time_to_first_token_p99', label: 'TTFT p99' }], num(slos.time_to_first_token), limit);
      if (byX.some(function (p) { return num(p.inter_token_latency_p50) != null; }))
        loadChart(cbox, 'ITL vs ' + xname, byX, xk, 'inter-token latency (ms)', [{ key: 'inter_token_latency_p50', label: 'ITL p50' },
          { key: 'inter_token_latency_p99', label: 'ITL p99' }], num(slos.inter_token_latency), limit);
    }
    // the Pareto chart in its own box, redrawn when its y axis is switched
    // (offered only when some job has energy or cost figures)
    const pbox = el('div', { id: 'gp-pareto' }); add(cbox, pbox);
    const axes = ['tpj', 'usd'].filter(function (k) { return pts.some(function (p) { return num(p[paretoAxes[k].key]) != null; }); });
    const drawPareto = function (yk) {
      Array.prototype.slice.call(pbox.querySelectorAll('.gp-chart')).forEach(function (b) {
        const i = charts.indexOf(b._uplot);
        if (i >= 0) charts.splice(i, 1);
        if (b._uplot) b._uplot.destroy();
        b.remove();
      });
      paretoChart(pbox, pts, search, yk);
    };
    if (axes.length) {
      const sel = el('select', { id: 'gp-pareto-axis' }, el('option', { value: 'tps' }, 'output tokens/s per GPU'),
        axes.map(function (k) { return el('option', { value: k }, paretoAxes[k].label); }));
      sel.addEventListener('change', function () { drawPareto(sel.value); });
      add(pbox, el('p', { class: 'gp-note' }, 'Pareto y axis: ', sel));
    }
    drawPareto('tps');
    if (usable.length) {
      chart(cbox, 'Throughput vs latency (Pareto)', 'each point is one job / sweep cell; the line joins the Pareto-optimal ones', {
        scales: { x: { time: false, range: padded }, y: { range: padded } }, axes: [{ label: 'request latency p50 (ms)' }, { label: 'output tokens/s' }],
        series: [{ label: 'latency p50 (ms)' },
          { label: 'jobs', stroke: palette[0], paths: function () { return null; }, points: { show: true, size: 7, fill: palette[0] } },
          { label: 'Pareto frontier', stroke: palette[1], spanGaps: true, points: { show: true, size: 10, stroke: palette[1], fill: 'rgba(0,0,0,0)' } }],
      }, [usable.map(function (p) { return num(p.request_latency_p50); }), usable.map(function (p) { return num(p.output_token_throughput); }),
        usable.map(function (p) { return p.pareto ? num(p.output_token_throughput) : null; })]);
    }
    if (!usable.length && !byX.length) add(cbox, el('p', { class: 'gp-note' }, 'nothing to chart: the jobs have no throughput/latency metrics'));
    if (pts.length >= 2 && pts.length <= 8) return overlayDistributions(cbox, pts);
  }

  gp.viewCompare = viewCompare;
})();
