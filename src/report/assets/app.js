/* genperf Benchmarks page and report (one script for both).
 *
 * Data comes from the JSON endpoints of `genperf ui` (/api/...), or, in a
 * report written by `genperf report`, from the same endpoint answers embedded
 * in <script type="application/json" id="gp-bundle"> keyed by request path.
 * Every string that came from a file or a server is put in the page as a text
 * node (el() below); nothing built from data ever goes through innerHTML.
 * Charts are uPlot (embedded by the build, scripts/fetch-web-assets.sh).
 */
'use strict';
(function () {
  const bundleEl = document.getElementById('gp-bundle');
  const bundle = bundleEl ? JSON.parse(bundleEl.textContent) : null;
  const root = document.getElementById('gp-main');
  const charts = [];

  function api(path) {
    if (bundle) {
      if (Object.prototype.hasOwnProperty.call(bundle.api, path)) return Promise.resolve(bundle.api[path]);
      return Promise.reject(new Error('this report does not contain ' + path));
    }
    return fetch(path, { headers: { Accept: 'application/json' } }).then(function (r) {
      return r.json().catch(function () { return null; }).then(function (j) {
        if (!r.ok) throw new Error((j && j.error) || ('HTTP ' + r.status + ' for ' + path));
        return j;
      });
    });
  }

  /* The only way this script creates elements: strings become text nodes. */
  function el(tag, attrs) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const k of Object.keys(attrs)) {
        const v = attrs[k];
        if (v == null || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, String(v));
      }
    }
    for (let i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function add(e, kid) {
    if (kid == null || kid === false) return;
    if (Array.isArray(kid)) { kid.forEach(function (k) { add(e, k); }); return; }
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }

  function num(v) {
    if (v == null || v === '') return null;
    const n = typeof v === 'number' ? v : Number(v);
    return Number.isFinite(n) ? n : null;
  }
  function fmt(v) {
    const n = num(v);
    if (n == null) return v == null ? '' : String(v);
    if (Number.isInteger(n) && Math.abs(n) < 1e15) return String(n);
    const a = Math.abs(n);
    if (a >= 1e6 || (a > 0 && a < 1e-3)) return n.toExponential(3);
    return n.toFixed(2);
  }
  function jobHref(id, tab) { return '#/job/' + encodeURIComponent(String(id)) + (tab ? '/' + tab : ''); }

  /* Each view bumps this; an answer that arrives after the user (or a hash
   * change) moved on belongs to a view no longer shown and is dropped. Without
   * it a slow /api/jobs answer rendered the list after the compare view had
   * started, and the list's replaceState('#/') pulled the page back to it. */
  let viewGen = 0;
  function current(gen) { return gen === viewGen; }
  function clear() {
    viewGen++;
    while (charts.length) charts.pop().destroy();
    while (root.firstChild) root.removeChild(root.firstChild);
  }
  function showError(where, e) {
    add(where, el('p', { class: 'gp-err' }, String(e && e.message ? e.message : e)));
  }

  /* ---- charts ---------------------------------------------------------- */
  const palette = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#bf3989', '#0a7d8c', '#57606a'];

  /* Tick labels with the fewest decimals that write every tick exactly, so
   * neighbours never read the same: uPlot's default keeps 3, and a host
   * memory axis at 23.0775 and 23.078 GiB showed "23.078" twice. */
  function tickLabels(u, splits) {
    const fin = splits.filter(function (v) { return v != null && Number.isFinite(v); });
    let d = 0;
    while (d < 10 && fin.some(function (v) { return Math.abs(Number(v.toFixed(d)) - v) > Math.abs(v) * 1e-12 + 1e-12; })) d++;
    const f = new Intl.NumberFormat('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
    return splits.map(function (v) { return v == null ? '' : f.format(v); });
  }
  /* A y axis as wide as its longest tick label (after uPlot's example
   * "axis-autosize", without its reuse of the first cycle's size: the labels
   * can still change then, and 90..100 got a 40 px axis for "100.0"): the
   * fixed 50 px cut "23.078" to "3.078". */
  function axisWidth(u, values, ai) {
    const a = u.axes[ai];
    let w = a.ticks.size + a.gap, longest = '';
    (values || []).forEach(function (v) { if (String(v).length > longest.length) longest = String(v); });
    if (longest) { u.ctx.font = a.font[0]; w += u.ctx.measureText(longest).width / devicePixelRatio; }
    return Math.ceil(w) + 2;
  }

  function chart(parent, title, caption, opts, data) {
    const box = el('div', { class: 'gp-chart', 'data-chart': title });
    add(parent, box);
    const o = Object.assign({ title: title, width: 560, height: 260 }, opts);
    o.hooks = Object.assign({}, opts.hooks);
    o.hooks.draw = (o.hooks.draw || []).concat([function () { box.setAttribute('data-drawn', '1'); }]);
    o.axes = (o.axes || [{}, {}]).map(function (a, i) {
      const b = Object.assign({ values: tickLabels }, a);
      if (i > 0 && !a.size) b.size = axisWidth;
      return b;
    });
    // the instance on its box lets the browser tests read the tick labels drawn
    box._uplot = new uPlot(o, data, box);
    charts.push(box._uplot);
    if (caption) add(box, el('div', { class: 'cap' }, caption));
    return box;
  }

  function histogram(parent, title, values, unit) {
    const vs = (values || []).map(num).filter(function (v) { return v != null; });
    if (!vs.length) { add(parent, el('p', { class: 'gp-note' }, title + ': no per-request data')); return; }
    let lo = Math.min.apply(null, vs), hi = Math.max.apply(null, vs);
    if (hi === lo) { lo -= 0.5; hi += 0.5; }
    const nb = Math.max(5, Math.min(40, Math.ceil(Math.sqrt(vs.length))));
    const w = (hi - lo) / nb, xs = [], ys = [];
    for (let i = 0; i < nb; i++) { xs.push(lo + w * (i + 0.5)); ys.push(0); }
    vs.forEach(function (v) { ys[Math.min(nb - 1, Math.floor((v - lo) / w))]++; });
    chart(parent, title, vs.length + ' requests, ' + nb + ' bins', {
      scales: { x: { time: false, range: function () { return [lo, hi]; } },
        y: { range: function (u, mn, mx) { return [0, Math.max(1, mx) * 1.1]; } } },
      axes: [{ label: unit }, { label: 'requests' }],
      series: [{ label: unit }, { label: 'requests', stroke: palette[0], fill: 'rgba(31,111,235,0.35)',
        paths: uPlot.paths.bars({ size: [0.9, 100] }), points: { show: false } }],
    }, [xs, ys]);
  }

  /* ---- Benchmarks list ------------------------------------------------- */
  const listState = { model: '', framework: '', hardware: '', from: '', to: '', sort: 'created_at', desc: true, picked: {} };
  const listCols = ['request_throughput.avg', 'output_token_throughput.avg', 'time_to_first_token.p50',
    'inter_token_latency.p50', 'request_latency.p50', 'request_latency.p99'];

  function sortKey(j, k) {
    if (k === 'id' || k === 'concurrency' || k === 'request_rate') return num(j[k]);
    if (k === 'created_at' || k === 'model' || k === 'framework' || k === 'hardware') return j[k] == null ? null : String(j[k]);
    return num((j.metrics || {})[k]);
  }

  const stateKeys = ['model', 'framework', 'hardware', 'from', 'to', 'sort'];
  /* The list's filters live in the fragment (#/?model=...&sort=...&order=asc) so a view can be shared. */
  function loadListState(query) {
    const q = new URLSearchParams(query || '');
    stateKeys.forEach(function (k) { if (q.has(k)) listState[k] = q.get(k); });
    if (q.has('order')) listState.desc = q.get('order') !== 'asc';
  }
  function saveListState() {
    const q = new URLSearchParams();
    stateKeys.forEach(function (k) { if (listState[k] && !(k === 'sort' && listState[k] === 'created_at')) q.set(k, listState[k]); });
    if (!listState.desc) q.set('order', 'asc');
    const h = '#/' + (q.toString() ? '?' + q.toString() : '');
    // Only a list fragment is the list's to rewrite. Setting location.hash queues
    // hashchange as a task; a /api/jobs answer that lands before it must not put '#/'
    // over the fragment just set (CI saw the compare view never start that way).
    if (routeOf(location.hash).view !== 'list') return;
    if (location.hash !== h && !(location.hash === '' && h === '#/')) history.replaceState(null, '', h);
  }

  function viewList(query) {
    loadListState(query);
    clear();
    add(root, el('h2', null, 'Benchmarks'));
    const box = el('div'); add(root, box);
    const gen = viewGen;
    api('/api/jobs').then(function (d) { if (current(gen)) renderList(box, d.jobs || []); })
      .catch(function (e) { if (current(gen)) showError(box, e); });
  }

  /* A job that did not complete cleanly stands out in the list, with why. */
  const statusWhy = {
    interrupted: 'stopped by a signal (Ctrl-C): the metrics cover what was measured until then',
    completed_with_errors: 'some requests failed (see requests_failed)',
    failed: 'no request succeeded',
  };
  function statusAttrs(st) {
    const why = st == null ? null : statusWhy[String(st)];
    return { class: why ? 't gp-status-bad' : 't', 'data-status': st == null ? null : String(st), title: why || null };
  }

  // What the empty-store note suggests, one command a line: a run, then its
  // ingest (genperf profile writes artifacts, not a store). MODEL, the URL and
  // STORE are the reader's; tests/e2e/ui_empty_store.sh runs these lines
  // against genperf serve, so each must stay a command that works.
  const emptyStoreCmds = [
    'genperf profile -m MODEL --url http://127.0.0.1:8000 --endpoint-type chat --streaming --tokenizer builtin --request-count 20 --artifact-dir runs',
    'genperf ingest runs --db STORE',
  ];
  const sortStats = ['avg', 'min', 'p1', 'p5', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99', 'max', 'std'];
  function renderList(box, jobs) {
    if (!jobs.length) {
      // an empty store is not an error: say how jobs get in
      add(box, el('div', { class: 'gp-note', id: 'gp-empty-store' },
        el('p', null, 'This store has no jobs yet. Run a benchmark, then ingest its artifact directory ' +
          '(MODEL and the URL are your server\'s, STORE is the --db this page reads):'),
        emptyStoreCmds.map(function (c) { return el('pre', { class: 'gp-cmd' }, c); }),
        el('p', null, 'Existing artifact directories (genperf\'s or GenAI-Perf\'s) are ingested the same way; ' +
          'genperf run and genperf search take --db and store each run as it ends. See docs/store.md.')));
      return;
    }
    const distinct = function (k) {
      const s = {}; jobs.forEach(function (j) { if (j[k] != null && j[k] !== '') s[String(j[k])] = 1; });
      return Object.keys(s).sort();
    };
    const metricKeys = {}; jobs.forEach(function (j) { Object.keys(j.metrics || {}).forEach(function (k) { metricKeys[k] = 1; }); });
    const sel = function (k, label) {
      const s = el('select', { name: k, onchange: function () { listState[k] = s.value; draw(); } },
        el('option', { value: '' }, 'all'), distinct(k).map(function (v) { return el('option', { value: v }, v); }));
      s.value = listState[k];
      return el('label', null, label, s);
    };
    const date = function (k, label) {
      const i = el('input', { type: 'date', name: k, onchange: function () { listState[k] = i.value; draw(); } });
      i.value = listState[k];
      return el('label', null, label, i);
    };
    // one group per metric, its statistics in percentile order (avg, min, p1 ... p99, max, std), not
    // alphabetical (p1, p10, p25, p5, ...): finding request_latency.p99 was a hunt in one long list
    const byMetric = {};
    Object.keys(metricKeys).forEach(function (k) {
      const dot = k.lastIndexOf('.'), m = dot < 0 ? k : k.slice(0, dot);
      (byMetric[m] = byMetric[m] || []).push(k);
    });
    const statRank = function (k) { const i = sortStats.indexOf(k.slice(k.lastIndexOf('.') + 1)); return i < 0 ? 99 : i; };
    const sortSel = el('select', { name: 'sort', onchange: function () { listState.sort = sortSel.value; draw(); } },
      el('optgroup', { label: 'job' }, ['created_at', 'id', 'model', 'concurrency', 'request_rate']
        .map(function (k) { return el('option', { value: k }, k); })),
      Object.keys(byMetric).sort().map(function (m) {
        return el('optgroup', { label: m }, byMetric[m].sort(function (a, b) { return statRank(a) - statRank(b) || (a < b ? -1 : 1); })
          .map(function (k) { return el('option', { value: k }, k); }));
      }));
    sortSel.value = listState.sort;
    const order = el('select', { name: 'order', onchange: function () { listState.desc = order.value === 'desc'; draw(); } },
      el('option', { value: 'desc' }, 'descending'), el('option', { value: 'asc' }, 'ascending'));
    order.value = listState.desc ? 'desc' : 'asc';
    const cmpBtn = el('button', { type: 'button', onclick: function () {
      const ids = Object.keys(listState.picked).filter(function (k) { return listState.picked[k]; });
      if (ids.length) location.hash = '#/compare/ids/' + ids.map(encodeURIComponent).join(',');
    } }, 'Compare selected');
    const repBtn = bundle ? null : el('button', { type: 'button', id: 'gp-report-selected', onclick: function () {
      const ids = Object.keys(listState.picked).filter(function (k) { return listState.picked[k]; });
      if (ids.length) location.href = '/report?id=' + ids.map(encodeURIComponent).join(',');
    } }, 'HTML report of selected');
    add(box, el('div', { class: 'gp-filters' }, sel('model', 'model'), sel('framework', 'framework'),
      sel('hardware', 'hardware'), date('from', 'from'), date('to', 'to'),
      el('label', null, 'sort by', sortSel), el('label', null, 'order', order), cmpBtn, repBtn));
    const tbl = el('div'); add(box, tbl);

    function draw() {
      while (tbl.firstChild) tbl.removeChild(tbl.firstChild);
      const st = listState;
      try { saveListState(); } catch (e) { /* file:// pages may refuse replaceState; the view still works */ }
      let rows = jobs.filter(function (j) {
        if (st.model && String(j.model) !== st.model) return false;
        if (st.framework && String(j.framework) !== st.framework) return false;
        if (st.hardware && String(j.hardware) !== st.hardware) return false;
        const day = j.created_at ? String(j.created_at).slice(0, 10) : '';
        if (st.from && (!day || day < st.from)) return false;
        if (st.to && (!day || day > st.to)) return false;
        return true;
      });
      rows = rows.slice().sort(function (a, b) {
        const x = sortKey(a, st.sort), y = sortKey(b, st.sort);
        if (x == null && y == null) return 0;
        if (x == null) return 1;
        if (y == null) return -1;
        const c = x < y ? -1 : x > y ? 1 : 0;
        return st.desc ? -c : c;
      });
      const cols = listCols.slice();
      if (metricKeys[st.sort] && cols.indexOf(st.sort) < 0) cols.push(st.sort);
      // "request_latency.p50" as two lines: metric over stat, so the table stays narrow.
      // Short names for the usual metrics keep the list inside a 1,280 px window; the title has the key.
      const short = { request_throughput: 'requests/s', output_token_throughput: 'output tok/s', time_to_first_token: 'TTFT',
        inter_token_latency: 'ITL', request_latency: 'latency', output_token_throughput_per_user: 'tok/s/user' };
      const metricLabel = function (label) {
        const dot = label.lastIndexOf('.');
        if (dot < 0) return label;
        const m = label.slice(0, dot);
        return [short[m] || m, el('br'), el('span', { class: 'gp-stat' }, label.slice(dot + 1))];
      };
      const th = function (k, label, cls) {
        return el('th', { class: 'sortable ' + (cls || ''), 'data-sort': k, title: k,
          onclick: function () { if (st.sort === k) st.desc = !st.desc; else { st.sort = k; st.desc = true; } draw(); } },
        metricLabel(label), st.sort === k ? (st.desc ? ' ▼' : ' ▲') : '');
      };
      const scenarios = {};
      const body = rows.map(function (j) {
        if (j.scenario != null && j.scenario !== '') scenarios[String(j.scenario)] = 1;
        const cb = el('input', { type: 'checkbox', onchange: function () { st.picked[j.id] = cb.checked; } });
        cb.checked = !!st.picked[j.id];
        return el('tr', { 'data-job': j.id },
          el('td', null, cb),
          el('td', null, el('a', { href: jobHref(j.id) }, String(j.id))),
          el('td', { class: 't nowrap', title: j.created_at || null }, j.created_at ? [String(j.created_at).slice(0, 10), el('br'), String(j.created_at).slice(11, 16)] : ''),
          el('td', { class: 't', 'data-col': 'model' }, j.model == null ? '' : String(j.model)),
          el('td', { class: 't' }, j.framework == null ? '' : String(j.framework)),
          el('td', { class: 't' }, j.hardware == null ? '' : String(j.hardware)),
          el('td', { class: 't' }, j.scenario == null ? '' : String(j.scenario), j.cell ? [' / ', String(j.cell)] : null),
          el('td', null, fmt(j.concurrency)),
          el('td', null, fmt(j.request_rate)),
          el('td', statusAttrs(j.status), j.status == null ? '' : String(j.status)),
          cols.map(function (k) {
            const v = (j.metrics || {})[k];
            return el('td', { 'data-metric': k, 'data-value': v == null ? '' : String(v) }, fmt(v));
          }));
      });
      add(tbl, el('p', { class: 'gp-meta' }, rows.length + ' of ' + jobs.length + ' jobs'));
      // the sweep links sit above the list, where a long list does not push them out of sight
      const sweeps = el('p', { id: 'gp-sweeps' }); add(tbl, sweeps);
      // The table scrolls inside its box, never the page: the list fits a 1,280 px window.
      add(tbl, el('div', { class: 'gp-scroll' }, el('table', { class: 'gp', id: 'gp-jobs' },
        el('thead', null, el('tr', null, el('th', null, ''), th('id', 'job'), th('created_at', 'date', 't'),
          th('model', 'model', 't'), th('framework', 'framework', 't'), th('hardware', 'hardware', 't'),
          el('th', { class: 't' }, 'scenario / cell'), th('concurrency', 'conc.'),
          th('request_rate', 'rate'), el('th', { class: 't' }, 'status'),
          cols.map(function (k) { return th(k, k); }))),
        el('tbody', null, body))));
      const sc = Object.keys(scenarios).sort();
      if (sc.length) {
        add(sweeps, ['Compare a sweep: ', sc.map(function (s, i) {
          return [i ? ', ' : '', el('a', { href: '#/compare/scenario/' + encodeURIComponent(s) }, s)];
        })]);
      } else sweeps.remove();
    }
    draw();
  }

  /* ---- one job ---------------------------------------------------------- */
  const statCols = ['avg', 'min', 'max', 'p1', 'p5', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99', 'std'];

  function viewJob(id, tab) {
    clear();
    const q = '?id=' + encodeURIComponent(id);
    const head = el('div'); add(root, head);
    const tabs = el('nav', { class: 'gp-tabs' },
      el('a', { href: jobHref(id), class: tab !== 'hardware' ? 'on' : null, id: 'tab-metrics' }, 'Metrics'),
      el('a', { href: jobHref(id, 'hardware'), class: tab === 'hardware' ? 'on' : null, id: 'tab-hardware' }, 'Hardware'),
      bundle ? null : el('a', { href: '/report?id=' + encodeURIComponent(id), id: 'gp-download', download: 'genperf-report-' + id + '.html' }, 'HTML report ⤓'));
    add(root, tabs);
    const body = el('div', { id: tab === 'hardware' ? 'gp-hardware' : 'gp-metrics' }); add(root, body);
    const gen = viewGen;
    api('/api/job' + q).then(function (d) {
      if (!current(gen)) return null;
      renderJobHead(head, d.job || {});
      if (tab === 'hardware') return renderHardware(body, q, d);
      return renderMetrics(body, q, d);
    }, function (e) {
      if (!current(gen)) return;
      // no job: one message and a way back, not a header and tabs over nothing
      clear();
      add(root, [el('p', { class: 'gp-err', id: 'gp-missing' }, String(e && e.message ? e.message : e)),
        el('p', null, el('a', { href: '#/' }, 'Back to Benchmarks'))]);
    }).catch(function (e) { showError(body, e); });
  }

  const headKeys = ['framework', 'hardware', 'gpu_count', 'tp', 'concurrency', 'request_rate', 'isl', 'osl',
    'streaming', 'status', 'requests_ok', 'requests_failed', 'created_at', 'duration_s', 'scenario', 'cell', 'server_url', 'host'];

  function renderJobHead(head, j) {
    add(head, el('h2', null, 'Job ', String(j.id == null ? '' : j.id), ' — ', el('span', { id: 'gp-model' }, j.model == null ? '' : String(j.model))));
    const shown = headKeys.filter(function (k) { return j[k] != null && j[k] !== ''; });
    add(head, el('p', { class: 'gp-meta' }, shown.map(function (k, i) { return [i ? ' · ' : '', k + ': ', el('b', null, fmt(j[k]))]; })));
    // the fidelity verdict of <stem>_genperf.json: did the client limit this run? (docs/profile.md)
    const fid = j.fidelity;
    if (fid && typeof fid === 'object') {
      const lim = fid.client_limited === true, why = Array.isArray(fid.reasons) ? fid.reasons.map(String) : [];
      add(head, el('p', { class: lim ? 'gp-meta gp-status-bad' : 'gp-meta', id: 'gp-fidelity', 'data-verdict': lim ? 'limiting' : 'not limiting' },
        'client: ', el('b', null, lim ? 'limiting' : 'not limiting'), lim && why.length ? ' — ' + why.join('; ') : ''));
    }
    const rest = Object.keys(j).filter(function (k) {
      return k !== 'id' && k !== 'model' && shown.indexOf(k) < 0 && j[k] != null && j[k] !== '' && typeof j[k] !== 'object';
    });
    if (rest.length) {
      add(head, el('details', { class: 'gp-meta' }, el('summary', null, 'all job fields'),
        el('table', { class: 'gp' }, el('tbody', null, rest.map(function (k) {
          return el('tr', null, el('th', { class: 't' }, k), el('td', { class: 't' }, String(j[k])));
        })))));
    }
  }

  function renderMetrics(body, q, d) {
    const ms = d.metrics || [];
    add(body, el('h3', null, 'GenAI-Perf metrics'));
    if (!ms.length) add(body, el('p', { class: 'gp-note' }, 'no metrics stored for this job'));
    else {
      add(body, el('table', { class: 'gp', id: 'gp-metric-table' },
        el('thead', null, el('tr', null, el('th', { class: 't' }, 'metric'), el('th', { class: 't' }, 'unit'),
          statCols.map(function (s) { return el('th', null, s); }))),
        el('tbody', null, ms.map(function (m) {
          return el('tr', { 'data-metric': m.metric },
            el('td', { class: 't' }, String(m.metric)), el('td', { class: 't' }, m.unit == null ? '' : String(m.unit)),
            statCols.map(function (s) {
              const v = m[s];
              return el('td', { 'data-stat': s, 'data-value': v == null ? '' : String(v), title: v == null ? null : String(v) }, fmt(v));
            }));
        }))));
    }
    gp.renderRepeats(body, d); /* jobparts.js */
    renderSplitAndErrors(body, d);
    renderTimeline(body, q, d);
    const cbox = el('div', { class: 'gp-charts' }); add(body, cbox);
    return api('/api/job/requests' + q).then(function (r) {
      histogram(cbox, 'Time to first token', r.ttft_ms, 'ms');
      histogram(cbox, 'Request latency', r.latency_ms, 'ms');
      const ip = r.itl_by_position;
      if (ip && ip.position && ip.position.length) {
        chart(cbox, 'Inter-token latency by output token position', 'mean over requests; position 1 is the gap between the first and second output chunk', {
          scales: { x: { time: false } }, axes: [{ label: 'output token position' }, { label: 'ms' }],
          series: [{ label: 'position' }, { label: 'mean ITL (ms)', stroke: palette[1], points: { show: ip.position.length < 60 } }],
        }, [ip.position, ip.avg_ms]);
      } else if (r.itl_vs_osl && r.itl_vs_osl.osl && r.itl_vs_osl.osl.length) {
        const pts = r.itl_vs_osl.osl.map(function (o, i) { return [num(o), num(r.itl_vs_osl.itl_ms[i])]; })
          .filter(function (p) { return p[0] != null && p[1] != null; }).sort(function (a, b) { return a[0] - b[0]; });
        chart(cbox, 'Inter-token latency by output length', 'per-request mean ITL against its output length (the store keeps no per-chunk times, so ITL by exact token position is not available here)', {
          scales: { x: { time: false, range: padded } }, axes: [{ label: 'output tokens' }, { label: 'ms' }],
          series: [{ label: 'OSL' }, { label: 'ITL (ms)', stroke: palette[1], paths: function () { return null; }, points: { show: true, size: 5, fill: palette[1] } }],
        }, [pts.map(function (p) { return p[0]; }), pts.map(function (p) { return p[1]; })]);
      } else {
        add(cbox, el('p', { class: 'gp-note' }, 'no inter-token latency data (non-streaming run?)'));
      }
    }).catch(function (e) { showError(cbox, e); });
  }

  /* --timeslice-duration: the run over time. Every chart gets the same x
   * range in the same unit (s since the job's first telemetry sample; the
   * slices carry offset_s onto it) and one synced cursor, so the TTFT that
   * rises and the server's queue that builds sit at the same x. A slice is
   * drawn at its middle. */
  const timelineTel = ['num_requests_running', 'num_requests_waiting', 'kv_cache_usage_pct', 'power_w', 'gpu_util_pct'];
  function renderTimeline(body, q, d) {
    const sl = d.timeslices || [];
    if (!sl.length) return;
    const box = el('div', { class: 'gp-charts', id: 'gp-timeline' });
    add(body, [el('h3', null, 'Timeline (' + sl.length + ' slices of ' + fmt(num(sl[0].end_s) - num(sl[0].start_s)) + ' s)'), box]);
    const gen = viewGen;
    api('/api/job/telemetry' + q).catch(function () { return { series: [] }; }).then(function (t) {
      if (!current(gen)) return;
      const tel = (t.series || []).filter(function (s) { return timelineTel.indexOf(s.metric) >= 0 && (s.device === 'server' || /^gpu/.test(String(s.device))); });
      const xs = sl.map(function (s) { return num(s.offset_s) + (num(s.start_s) + num(s.end_s)) / 2; });
      let lo = Math.min(0, num(sl[0].offset_s) + num(sl[0].start_s));
      let hi = Math.max.apply(null, sl.map(function (s) { return num(s.offset_s) + num(s.end_s); }));
      tel.forEach(function (s) { (s.t_s || []).forEach(function (x) { x = num(x); if (x != null) { lo = Math.min(lo, x); hi = Math.max(hi, x); } }); });
      const x = { time: false, auto: false, min: lo, max: hi > lo ? hi : lo + 1 };
      const opts = function (unit, names) {
        return { scales: { x: Object.assign({}, x) }, cursor: { sync: { key: 'gp-timeline' } },
          axes: [{ label: 's since job start' }, { label: unit }],
          series: [{ label: 's' }].concat(names.map(function (n, i) { return { label: n, stroke: palette[i % palette.length], spanGaps: true, points: { show: xs.length < 40 } }; })) };
      };
      const col = function (k) { return sl.map(function (s) { return num(s[k]); }); };
      chart(box, 'Throughput over time', 'per slice (requests assigned by their start)', opts('per s', ['output tok/s', 'requests/s']),
        [xs, col('output_token_throughput'), col('request_throughput')]);
      chart(box, 'TTFT over time', null, opts('ms', ['TTFT p50', 'TTFT p99']), [xs, col('ttft_p50_ms'), col('ttft_p99_ms')]);
      chart(box, 'Failures over time', 'failed requests per slice', opts('requests', ['failures']), [xs, col('failures')]);
      timelineTel.forEach(function (m) {
        const ss = tel.filter(function (s) { return s.metric === m; });
        if (!ss.length) return;
        const tables = ss.map(function (s) {
          const pts = s.t_s.map(function (tx, i) { return [num(tx), num(s.v[i])]; }).filter(function (pt) { return pt[0] != null; })
            .sort(function (a, b) { return a[0] - b[0]; });
          return [pts.map(function (pt) { return pt[0]; }), pts.map(function (pt) { return pt[1]; })];
        });
        chart(box, telName(m), null, opts('', ss.map(function (s) { return String(s.device); })),
          tables.length === 1 ? tables[0] : uPlot.join(tables));
      });
    }).catch(function (e) { showError(box, e); });
  }

  /* Several --urls: every endpoint and its share; several -m: every model;
   * failed requests: what they said, grouped, so "12 failed" comes with why. */
  function renderSplitAndErrors(body, d) {
    const eps = d.endpoints || [], errs = d.errors || [];
    if (eps.length) {
      add(body, el('h3', null, 'Endpoints (' + eps.length + ')'));
      add(body, el('table', { class: 'gp', id: 'gp-endpoints' },
        el('thead', null, el('tr', null, ['url', 'requests', 'share', 'failed', 'req/s', 'out tok/s', 'TTFT p50', 'TTFT p99', 'ITL p50', 'ITL p99']
          .map(function (h, i) { return el('th', { class: i ? null : 't' }, h); }))),
        el('tbody', null, eps.map(function (e) {
          return el('tr', null, el('td', { class: 't' }, String(e.url)), el('td', null, fmt(e.requests)),
            el('td', null, e.request_share == null ? '' : (100 * e.request_share).toFixed(1) + '%'), el('td', null, fmt(e.failed)),
            [e.request_throughput, e.output_token_throughput, e.ttft_p50_ms, e.ttft_p99_ms, e.itl_p50_ms, e.itl_p99_ms]
              .map(function (v) { return el('td', null, fmt(v)); }));
        }))));
    }
    const mods = d.models || [];
    if (mods.length) { /* several -m: the same split by model */
      add(body, el('h3', null, 'Models (' + mods.length + ')'));
      add(body, el('table', { class: 'gp', id: 'gp-models' },
        el('thead', null, el('tr', null, ['model', 'requests', 'share', 'weight', 'failed', 'req/s', 'out tok/s', 'TTFT p50', 'TTFT p99', 'ITL p50', 'ITL p99', 'latency p50', 'latency p99']
          .map(function (h, i) { return el('th', { class: i ? null : 't' }, h); }))),
        el('tbody', null, mods.map(function (m) {
          const pct = function (v) { return v == null ? '' : (100 * v).toFixed(1) + '%'; };
          return el('tr', null, el('td', { class: 't' }, String(m.model)), el('td', null, fmt(m.requests)),
            el('td', null, pct(m.request_share)), el('td', null, pct(m.weight)), el('td', null, fmt(m.failed)),
            [m.request_throughput, m.output_token_throughput, m.ttft_p50_ms, m.ttft_p99_ms, m.itl_p50_ms, m.itl_p99_ms,
              m.latency_p50_ms, m.latency_p99_ms].map(function (v) { return el('td', null, fmt(v)); }));
        }))));
    }
    if (errs.length) {
      const n = errs.reduce(function (a, e) { return a + (num(e.n) || 0); }, 0);
      add(body, el('h3', null, 'Failed requests (' + n + ')'));
      add(body, el('table', { class: 'gp', id: 'gp-errors' },
        el('thead', null, el('tr', null, el('th', null, 'count'), el('th', null, 'HTTP'), el('th', { class: 't' }, 'error'))),
        el('tbody', null, errs.map(function (e) {
          return el('tr', null, el('td', null, fmt(e.n)), el('td', null, e.http_status == null ? '' : String(e.http_status)),
            el('td', { class: 't' }, String(e.error)));
        }))));
    }
  }

  const telOrder = ['power_w', 'gpu_util_pct', 'mem_used_bytes', 'cpu_util_pct'];
  const telLabel = { power_w: 'GPU power (W)', gpu_util_pct: 'GPU utilisation (%)', mem_used_bytes: 'GPU memory used (GiB)',
    mem_total_bytes: 'GPU memory total (GiB)', cpu_util_pct: 'CPU utilisation (%)', cpu_pct: 'genperf process CPU (%)',
    energy_j: 'GPU energy counter (J)', temp_c: 'GPU temperature (°C)', sm_clock_mhz: 'SM clock (MHz)',
    power_limit_w: 'GPU power limit (W)', mem_util_pct: 'GPU memory utilisation (%)', load1: 'load average (1 min)',
    mem_available_bytes: 'host memory available (GiB)', num_requests_running: 'server: requests running',
    num_requests_waiting: 'server: requests waiting', kv_cache_usage_pct: 'server: KV cache usage (%)',
    prefix_cache_hit_rate: 'server: prefix cache hit rate', sm_active_pct: 'GPU SM active (%)',
    enc_util_pct: 'GPU encoder utilisation (%)', dec_util_pct: 'GPU decoder utilisation (%)',
    mem_free_bytes: 'GPU memory free (GiB)', mem_clock_mhz: 'GPU memory clock (MHz)', mem_temp_c: 'GPU memory temperature (°C)',
    pcie_tx_bytes_per_s: 'GPU PCIe sent (GiB/s)', pcie_rx_bytes_per_s: 'GPU PCIe received (GiB/s)' };
  /* A name no table knows still reads as words with its unit, never as
   * the raw sampler key: "ecc_sbe_volatile" -> "ecc sbe volatile". */
  function telName(m) {
    if (telLabel[m]) return telLabel[m];
    const units = [[/_bytes_per_s$/, ' (GiB/s)'], [/_bytes$/, ' (GiB)'], [/_pct$/, ' (%)'], [/_w$/, ' (W)'],
      [/_mhz$/, ' (MHz)'], [/_c$/, ' (°C)'], [/_us$/, ' (µs)'], [/_j$/, ' (J)']];
    for (const u of units) if (u[0].test(m)) return m.replace(u[0], '').replace(/_/g, ' ') + u[1];
    return m.replace(/_/g, ' ');
  }
  /* Summary column names as short words that may wrap, so the table fits a
   * 1,280 px window (with raw keys as headers it was 1,770 px wide). */
  function sumHead(c) {
    return c.replace(/_pct$/, ' %').replace(/_gib$/, ' GiB').replace(/_w$/, ' W').replace(/_j$/, ' J')
      .replace(/_s$/, ' s').replace(/^mem_/, 'mem ').replace(/_/g, ' ');
  }
  // fewer samples than this in every series (10 s at the default 1 s
  // interval): the charts cannot show a trend, and the tab says so
  const shortRunSamples = 10;

  function renderHardware(body, q, d) {
    const sum = d.telemetry_summary || [];
    const notes = el('div', { id: 'gp-hardware-notes' }); add(body, notes);
    if (sum.length) {
      const cols = Object.keys(sum[0]);
      add(body, el('h3', null, 'Telemetry summary'));
      add(body, el('table', { class: 'gp gp-wrap-head', id: 'gp-telemetry-summary' },
        el('thead', null, el('tr', null, cols.map(function (c) { return el('th', { class: 't', title: c }, sumHead(c)); }))),
        el('tbody', null, sum.map(function (r) {
          return el('tr', null, cols.map(function (c) { return el('td', { class: num(r[c]) == null ? 't' : null }, fmt(r[c])); }));
        }))));
    }
    const cbox = el('div', { class: 'gp-charts' }); add(body, cbox);
    return api('/api/job/telemetry' + q).then(function (t) {
      const series = t.series || [];
      if (!series.length) { add(cbox, el('p', { class: 'gp-note', id: 'gp-no-telemetry' }, 'no telemetry samples stored for this job')); return; }
      if (!series.some(function (s) { return /^gpu/.test(String(s.device)); }) &&
          !sum.some(function (r) { return /^gpu/.test(String(r.device)); }))
        add(notes, el('p', { class: 'gp-note', id: 'gp-no-gpu' }, 'No GPU was sampled for this job: genperf reads GPUs through NVML ' +
          '(or a DCGM exporter) on the machine that ran it, and found none there (no NVIDIA driver or device visible to it, ' +
          'or the server ran on another machine). Host and server metrics are shown below.'));
      let most = 0, span = 0;
      series.forEach(function (s) {
        const ts = (s.t_s || []).map(num).filter(function (x) { return x != null; });
        most = Math.max(most, ts.length);
        if (ts.length) span = Math.max(span, Math.max.apply(null, ts) - Math.min.apply(null, ts));
      });
      if (most < shortRunSamples)
        add(notes, el('p', { class: 'gp-note', id: 'gp-short-run' }, 'Short run: at most ' + most + ' sample' + (most === 1 ? '' : 's') +
          ' per metric over ' + fmt(span) + ' s, too few to show a trend; run longer, or sample more often with --telemetry-interval.'));
      const byMetric = {};
      // a GPU-labelled metric name (mem_used_bytes) is also what the host sampler writes:
      // only GPU samples are drawn under the GPU label, other devices get their own chart
      series.forEach(function (s) {
        const k = !/^gpu/.test(String(s.device)) && /^GPU /.test(telLabel[s.metric] || '') ? s.device + ':' + s.metric : s.metric;
        (byMetric[k] = byMetric[k] || []).push(s);
      });
      const names = Object.keys(byMetric).sort(function (a, b) {
        const x = telOrder.indexOf(a), y = telOrder.indexOf(b);
        return (x < 0 ? 99 : x) - (y < 0 ? 99 : y) || (a < b ? -1 : a > b ? 1 : 0);
      });
      names.forEach(function (m) {
        const ss = byMetric[m];
        const scale = /_bytes(_per_s)?$/.test(m) ? 1 / 1073741824 : 1;
        const tables = ss.map(function (s) {
          const pts = s.t_s.map(function (x, i) { return [num(x), num(s.v[i])]; })
            .filter(function (p) { return p[0] != null; }).sort(function (a, b) { return a[0] - b[0]; });
          const xs = [], ys = [];
          pts.forEach(function (p) { if (xs.length && xs[xs.length - 1] === p[0]) return; xs.push(p[0]); ys.push(p[1] == null ? null : p[1] * scale); });
          return [xs, ys];
        });
        const data = tables.length === 1 ? tables[0] : uPlot.join(tables);
        const dm = m.split(':');
        // a series of one sample has no line to draw: it is drawn as a point,
        // centred on a 2 s x range (uPlot's own range for one x is 0..100)
        const lone = tables.map(function (tb) { return tb[1].filter(function (v) { return v != null; }).length < 2; });
        chart(cbox, dm.length > 1 ? dm[0] + ' ' + telName(dm[1]).replace(/^GPU /, '') : telName(m), null, {
          scales: { x: data[0].length < 2 ? { time: false, auto: false, min: (data[0][0] || 0) - 1, max: (data[0][0] || 0) + 1 } : { time: false } }, axes: [{ label: 's since job start' }, {}],
          series: [{ label: 's' }].concat(ss.map(function (s, i) {
            // several hosts (mpirun): one series per host, "gpu0 @ node-a"
            return { label: String(s.device) + (s.host != null ? ' @ ' + s.host : ''), stroke: palette[i % palette.length], spanGaps: true,
              points: lone[i] ? { show: true, size: 8, fill: palette[i % palette.length] } : { show: false } };
          })),
        }, data);
      });
    }).catch(function (e) { showError(cbox, e); });
  }

  /* x range with a margin so points at the ends are not cut in half */
  function padded(u, mn, mx) {
    const d = mx > mn ? (mx - mn) * 0.06 : Math.max(Math.abs(mx) * 0.1, 1);
    return [mn - d, mx + d];
  }

  /* The compare view is compare.js, and the job page's Repeats section is
   * jobparts.js, files of their own (each under ~700 lines); they read the
   * helpers above through window.gpPage and set gpPage.viewCompare and
   * gpPage.renderRepeats. All three scripts have run when route() first runs. */
  const gp = window.gpPage = {
    bundle: bundle, root: root, charts: charts, api: api, el: el, add: add, num: num, fmt: fmt, jobHref: jobHref,
    current: current, clear: clear, showError: showError, palette: palette, chart: chart, padded: padded,
    gen: function () { return viewGen; }, viewCompare: null, renderRepeats: null,
  };

  /* ---- routing ---------------------------------------------------------- */
  /* The view a fragment shows ('job', 'compare' or 'list', the fallback) and
   * its decoded parts: route() and saveListState() read fragments alike. */
  function routeOf(hash) {
    const h = hash || (bundle && bundle.start) || '#/';
    const parts = h.replace(/^#\/?/, '').split('/').map(function (s) { try { return decodeURIComponent(s); } catch (e) { return s; } });
    const view = parts[0] === 'job' && parts[1] ? 'job' : parts[0] === 'compare' && parts[1] && parts[2] != null ? 'compare' : 'list';
    return { view: view, parts: parts };
  }
  function route() {
    const r = routeOf(location.hash), parts = r.parts;
    document.body.setAttribute('data-view', parts[0] || 'list');
    if (r.view === 'job') viewJob(parts[1], parts[2] || '');
    else if (r.view === 'compare') gp.viewCompare(parts[1], parts.slice(2).join('/'));
    else viewList(parts[0] && parts[0].charAt(0) === '?' ? parts[0].slice(1) : '');
  }
  window.addEventListener('hashchange', route);
  if (typeof uPlot === 'undefined') {
    add(root, el('p', { class: 'gp-err' }, 'chart library missing from this build'));
    return;
  }
  // after compare.js and jobparts.js, which come next in the page, have set gp.viewCompare and gp.renderRepeats
  document.addEventListener('DOMContentLoaded', route);
})();
