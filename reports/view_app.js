/* view_app.js - the page of `iopsy view` and the Explore section of an analysis report: a counter
 * tree with a regex search, stacked uPlot charts on one synchronised time axis, the analysis's
 * findings shaded on them. Names from captures are set with textContent only; the data comes from
 * the JSON element (iopsy-view-data in a report, whose iopsy-data is the analysis's own; iopsy-data
 * in the page), parsed with JSON.parse. The explorer's ids all start with "v-" ($ adds it). */
(function () {
  'use strict';
  var D = JSON.parse((document.getElementById('iopsy-view-data') || document.getElementById('iopsy-data')).textContent);
  var $ = function (id) { return document.getElementById('v-' + id); };
  var el = function (tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  var S = D.series, charts = [], active = null, logScale = false, zoom = null, syncing = false;
  var COLORS = ['#0969da', '#cf222e', '#1a7f37', '#8250df', '#bf8700', '#1b7c83', '#e16f24', '#57606a',
    '#a40e26', '#4d2d00'];
  var SEVCOL = { critical: 'rgba(207,34,46,0.10)', warning: 'rgba(191,135,0,0.10)', info: 'rgba(9,105,218,0.08)' };

  function label(s) {
    return s.o + '\\' + s.k + (s.i ? '(' + s.i + ')' : '') + (s.vm ? ' VM ' + s.vm : '') +
      (D.caps.length > 1 ? ' [' + (s.c + 1) + ']' : '');
  }
  function pad(n, w) { n = String(n); while (n.length < (w || 2)) n = '0' + n; return n; }
  function fmtTime(t, off) {
    var d = new Date((t + off) * 1000);
    return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' +
      pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds());
  }

  /* x and y of a series: a downsampled capture gives two points per bucket (its minimum then its
   * maximum, at the bucket's start and middle), so a short stall stays visible zoomed out */
  var xcache = {};
  function capX(ci) {
    if (xcache[ci]) return xcache[ci];
    var c = D.caps[ci], t = c.t, x = [];
    if (c.per <= 1) x = t.slice();
    else for (var k = 0; k < t.length; k++) {
      var nx = k + 1 < t.length ? t[k + 1] : t[k] + (k ? t[k] - t[k - 1] : 1);
      x.push(t[k], t[k] + (nx - t[k]) / 2);
    }
    return (xcache[ci] = x);
  }
  function seriesY(s) {
    var y = [], c = D.caps[s.c];
    if (c.per <= 1 || !s.hi) y = s.lo.slice();
    else for (var k = 0; k < s.lo.length; k++) y.push(s.lo[k], s.hi[k]);
    if (logScale) for (var j = 0; j < y.length; j++) if (y[j] !== null && y[j] <= 0) y[j] = null;
    return y;
  }
  function chartData(idx) {
    var caps = {}, order = [];
    idx.forEach(function (i) { var c = S[i].c; if (!caps[c]) { caps[c] = []; order.push(c); } caps[c].push(i); });
    if (order.length === 1) {
      var d = [capX(order[0])];
      caps[order[0]].forEach(function (i) { d.push(seriesY(S[i])); });
      return { data: d, idx: caps[order[0]] };
    }
    var tables = [], flat = [];
    order.forEach(function (c) {
      var tb = [capX(c)];
      caps[c].forEach(function (i) { tb.push(seriesY(S[i])); flat.push(i); });
      tables.push(tb);
    });
    return { data: uPlot.join(tables), idx: flat };
  }
  function fullRange() {
    var lo = Infinity, hi = -Infinity;
    D.caps.forEach(function (c, i) { var x = capX(i); if (x.length) { lo = Math.min(lo, x[0]); hi = Math.max(hi, x[x.length - 1]); } });
    return lo <= hi ? [lo, hi] : null;
  }

  /* each severity's windows merged where they overlap, so several findings of one episode shade it
   * once, not darker */
  var SHADES = (function () {
    var by = {}, out = [];
    D.findings.forEach(function (f) { (by[f.sev] = by[f.sev] || []).push([Math.min(f.s, f.e), Math.max(f.s, f.e)]); });
    Object.keys(by).forEach(function (sev) {
      var iv = by[sev].sort(function (a, b) { return a[0] - b[0]; }), cur = null;
      iv.forEach(function (w) {
        if (cur && w[0] <= cur[1]) cur[1] = Math.max(cur[1], w[1]);
        else { cur = [w[0], w[1]]; out.push({ s: cur, sev: sev }); }
      });
    });
    return out;
  })();
  function shade(u) {
    if (!SHADES.length) return;
    var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    SHADES.forEach(function (w) {
      var a = u.valToPos(w.s[0], 'x', true), b = u.valToPos(w.s[1], 'x', true);
      var l = Math.max(Math.min(a, b), u.bbox.left), r = Math.min(Math.max(a, b), u.bbox.left + u.bbox.width);
      if (r < l) return;
      ctx.fillStyle = SEVCOL[w.sev] || SEVCOL.info;
      ctx.fillRect(l, top, Math.max(r - l, 2), h);
    });
    ctx.restore();
  }

  function unitOf(idx) {
    var us = {};
    idx.forEach(function (i) { us[S[i].u || ''] = 1; });
    var k = Object.keys(us);
    return k.length === 1 ? k[0] : k.filter(function (x) { return x; }).join(', ');
  }

  function build(ch) {
    if (ch.u) { ch.u.destroy(); ch.u = null; }
    if (!ch.idx.length) { ch.box.hidden = true; return; }
    ch.box.hidden = false;
    var cd = chartData(ch.idx);
    ch.order = cd.idx;
    var series = [{ value: function (u, v) { return v == null ? '-' : fmtTime(v, 0) + ' UTC'; } }];
    cd.idx.forEach(function (i, n) {
      series.push({ label: label(S[i]) + (S[i].u ? ' (' + S[i].u + ')' : ''), stroke: COLORS[n % COLORS.length],
        width: 1, spanGaps: false, points: { show: false } });
    });
    var w = Math.max(400, ch.box.clientWidth - 10);
    var opts = {
      width: w, height: 240, series: series,
      /* the axis in the customer's zone, whatever the browser's */
      tzDate: function (ts) {
        var d = new Date((ts + D.tz.off) * 1000);
        return new Date(d.getTime() + d.getTimezoneOffset() * 60000);
      },
      scales: { x: { time: true }, y: logScale ? { distr: 3 } : {} },
      axes: [{}, { label: unitOf(cd.idx), size: 60 }],
      cursor: { sync: { key: 'iopsy', setSeries: false }, drag: { x: true, y: false } },
      legend: { live: true },
      hooks: {
        drawClear: [shade],
        setScale: [function (u, key) {
          if (key !== 'x' || syncing) return;
          var mn = u.scales.x.min, mx = u.scales.x.max;
          zoom = [mn, mx];
          syncing = true;
          charts.forEach(function (o) { if (o.u && o.u !== u) o.u.setScale('x', { min: mn, max: mx }); });
          syncing = false;
          readRange();
        }],
        setCursor: [function (u) {
          var l = u.cursor.left;
          if (l == null || l < 0) return;
          var t = u.posToVal(l, 'x');
          $('readout').textContent = fmtTime(t, D.tz.off) + ' ' + D.tz.name + ' | ' + fmtTime(t, 0) + ' UTC';
        }]
      }
    };
    ch.u = new uPlot(opts, cd.data, ch.plot);
    if (zoom) { syncing = true; ch.u.setScale('x', { min: zoom[0], max: zoom[1] }); syncing = false; }
  }
  function readRange() {
    var r = zoom || fullRange();
    document.body.dataset.range = r ? r[0] + ',' + r[1] : '';
  }

  function newChart() {
    var ch = { idx: [], u: null };
    ch.box = el('div', 'chart');
    var ctl = el('div', 'ctl');
    var rm = el('button', '', 'Remove chart');
    rm.type = 'button';
    rm.addEventListener('click', function (ev) {
      ev.stopPropagation();
      if (ch.u) ch.u.destroy();
      ch.box.remove();
      charts = charts.filter(function (c) { return c !== ch; });
      if (active === ch) setActive(charts[charts.length - 1] || null);
    });
    ctl.appendChild(rm);
    ch.plot = el('div', 'plot');
    ch.box.appendChild(ctl);
    ch.box.appendChild(ch.plot);
    ch.box.addEventListener('mousedown', function () { setActive(ch); });
    $('charts').appendChild(ch.box);
    charts.push(ch);
    setActive(ch);
    return ch;
  }
  function setActive(ch) {
    charts.forEach(function (c) { c.box.classList.toggle('active', c === ch); });
    active = ch;
  }
  function addSeries(list, fresh) {
    var ch = fresh || !active ? newChart() : active;
    list.forEach(function (i) { if (ch.idx.indexOf(i) < 0) ch.idx.push(i); });
    $('hint').hidden = true;
    build(ch);
    document.body.dataset.charts = charts.length;
    return ch;
  }

  /* one new chart per unit (ms, IO/s, IOs outstanding ...), as the reports draw them */
  function addByUnit(list) {
    var by = {}, order = [];
    list.forEach(function (i) { var u = S[i].u || ''; if (!by[u]) { by[u] = []; order.push(u); } by[u].push(i); });
    order.forEach(function (u) { addSeries(by[u], true); });
  }

  /* the counter tree: object -> counter -> instance, filtered by the search box's regex */
  function renderTree() {
    var q = $('q').value, re = null;
    try { re = q ? new RegExp(q, 'i') : null; $('q').setCustomValidity(''); }
    catch (e) { $('q').setCustomValidity('not a regex'); $('qcount').textContent = 'not a regular expression'; return; }
    var tree = {}, objs = [], n = 0;
    S.forEach(function (s, i) {
      if (re && !re.test(label(s))) return;
      n++;
      if (!tree[s.o]) { tree[s.o] = { n: 0, k: {}, ks: [] }; objs.push(s.o); }
      var o = tree[s.o];
      o.n++;
      if (!o.k[s.k]) { o.k[s.k] = []; o.ks.push(s.k); }
      o.k[s.k].push(i);
    });
    $('qcount').textContent = n + ' of ' + S.length + ' series';
    document.body.dataset.matched = n;
    var root = $('tree');
    root.textContent = '';
    objs.sort().forEach(function (on) {
      var o = tree[on], d = el('details'), sm = el('summary');
      sm.appendChild(document.createTextNode(on + ' '));
      sm.appendChild(el('span', 'n', '(' + o.n + ')'));
      d.appendChild(sm);
      if (re || objs.length === 1) d.open = true;
      var filled = false;
      var fill = function () {
        if (filled) return;
        filled = true;
        o.ks.forEach(function (kn) {
          var list = o.k[kn], kd = el('details'), ks = el('summary');
          ks.appendChild(document.createTextNode(kn + ' '));
          ks.appendChild(el('span', 'n', '(' + list.length + ')'));
          var all = el('button', '', '+ all');
          all.type = 'button';
          all.addEventListener('click', function (ev) { ev.preventDefault(); addSeries(list.slice(0, 40)); });
          ks.appendChild(all);
          kd.appendChild(ks);
          var kfilled = false;
          var kfill = function () {
            if (kfilled) return;
            kfilled = true;
            list.forEach(function (i) {
              var lf = el('div', 'leaf'), b = el('button', '', '+');
              b.type = 'button';
              b.title = 'add to the active chart';
              b.dataset.series = i;
              b.addEventListener('click', function () { addSeries([i]); });
              lf.appendChild(b);
              lf.appendChild(el('span', '', (S[i].i || '(no instance)') + (D.caps.length > 1 ? ' [' + (S[i].c + 1) + ']' : '')));
              kd.appendChild(lf);
            });
          };
          kd.addEventListener('toggle', kfill);
          if (re && list.length <= 50) { kd.open = true; kfill(); }
          d.appendChild(kd);
        });
      };
      d.addEventListener('toggle', fill);
      if (d.open) fill();
      root.appendChild(d);
    });
  }


  /* presets from esxtop's names: a LUN's IO stack (its latencies, then its queue), a LUN's load by
   * VM (the per-world commands, each world named by its VM through the Vcpu worlds), a VM's CPU
   * (%RDY and %CSTP per vCPU) */
  var LUN_LAT = ['Average Guest MilliSec/Command', 'Average Driver MilliSec/Command', 'Average Kernel MilliSec/Command',
    'Average Queue MilliSec/Command'];
  var LUN_Q = ['Active Commands', 'Queued Commands', 'Queue Depth'];
  var wvm = {}, luns = {}, vms = {};
  S.forEach(function (s) {
    var p = s.i.split(':');
    if (s.o === 'Vcpu' && p.length >= 4) { wvm[p[2]] = p[1]; if (/^vmx-vcpu-/.test(p[3])) vms[p[1]] = 1; }
  });
  S.forEach(function (s) {
    if (s.o === 'Physical Disk SCSI Device') luns[s.i] = 1;
    if (s.o === 'Physical Disk Per-Device-Per-World') {
      var m = /^(.*)-(\d+)$/.exec(s.i);
      if (m) { s.dev = m[1]; s.vm = wvm[m[2]] || ''; }
    }
  });
  function pick(test) {
    var l = [];
    S.forEach(function (s, i) { if (test(s)) l.push(i); });
    return l;
  }
  var presets = [];
  Object.keys(luns).sort().forEach(function (l) {
    presets.push({ name: 'IO stack of ' + l, run: function () {
      addSeries(pick(function (s) { return s.o === 'Physical Disk SCSI Device' && s.i === l && LUN_LAT.indexOf(s.k) >= 0; }), true);
      addSeries(pick(function (s) { return s.o === 'Physical Disk SCSI Device' && s.i === l && LUN_Q.indexOf(s.k) >= 0; }), true);
    } });
    presets.push({ name: 'load by VM of ' + l, run: function () {
      addSeries(pick(function (s) { return s.dev === l && s.k === 'Commands/sec'; }), true);
      addSeries(pick(function (s) { return s.dev === l && s.k === 'Active Commands'; }), true);
    } });
  });
  /* an analysis report's series (their metric keys, s.m, and entity, s.e): a LUN's IO stack */
  if (!Object.keys(luns).length) {
    var devs = {};
    S.forEach(function (s) { if (s.m === 'davg_ms') devs[s.e] = 1; });
    Object.keys(devs).sort().forEach(function (l) {
      presets.push({ name: 'IO stack of ' + l, run: function () {
        var lat = ['davg_ms', 'kavg_ms', 'gavg_ms', 'qavg_ms'], q = ['actv', 'qued', 'dqlen'];
        addSeries(pick(function (s) { return s.e === l && lat.indexOf(s.m) >= 0; }), true);
        addSeries(pick(function (s) { return s.e === l && q.indexOf(s.m) >= 0; }), true);
      } });
    });
  }
  Object.keys(vms).sort().forEach(function (v) {
    presets.push({ name: 'CPU of VM ' + v, run: function () {
      var mine = function (s) { var p = s.i.split(':'); return s.o === 'Vcpu' && p[1] === v && /^vmx-vcpu-/.test(p[3] || ''); };
      addSeries(pick(function (s) { return mine(s) && s.k === '% Ready'; }), true);
      addSeries(pick(function (s) { return mine(s) && s.k === '% CoStop'; }), true);
    } });
  });
  function renderPresets() {
    var sel = $('preset');
    presets.forEach(function (p, n) { var o = el('option', '', p.name); o.value = n; sel.appendChild(o); });
    $('presets').hidden = !presets.length;
    $('gopreset').addEventListener('click', function () {
      var p = presets[+sel.value];
      if (!p) return;
      var before = charts.length;
      p.run();
      charts.slice(before).forEach(function (c) { if (!c.idx.length) { c.box.remove(); } });
      charts = charts.filter(function (c, n) { return n < before || c.idx.length; });
      document.body.dataset.charts = charts.length;
      document.body.dataset.preset = charts.length - before;
    });
  }


  /* the IO path as a second tree, from the analysis's graph: adapter -> path -> device -> the VMs
   * whose worlds issue IO to it and its virtual disks; a link by correlation says so; a click on a
   * name filters the counter tree to it */
  function renderIoTree() {
    var L = D.links || [], seen = {}, kids = {}, how = {}, hasParent = {}, adapters = {};
    L.forEach(function (l) {
      var key = l.a + '\u0000' + l.b;
      if (seen[key]) return;
      seen[key] = 1;
      (kids[l.a] = kids[l.a] || []).push(l.b);
      how[key] = l.how;
      hasParent[l.b] = 1;
      if (l.k === 'path') adapters[l.a] = 1;
    });
    if (!L.length) return;
    $('iop').hidden = false;
    var root = $('iotree');
    function node(name, parent, depth) {
      var ks = (kids[name] || []).slice().sort(), d = el(ks.length ? 'details' : 'div', ks.length ? '' : 'leaf');
      var head = ks.length ? el('summary') : d, b = el('button', '', name);
      b.type = 'button';
      b.title = 'show its counters';
      b.addEventListener('click', function (ev) { ev.preventDefault(); $('q').value = escapeRe(name); renderTree(); });
      head.appendChild(b);
      var h = parent !== null ? how[parent + '\u0000' + name] : '';
      if (h && h !== 'identifiers') head.appendChild(el('span', 'n', ' (a guess: ' + h + ')'));
      if (ks.length) {
        d.appendChild(head);
        if (depth < 6) ks.forEach(function (k) { d.appendChild(node(k, name, depth + 1)); });
      }
      return d;
    }
    var tops = Object.keys(adapters).sort();
    Object.keys(kids).forEach(function (a) { if (!hasParent[a] && !adapters[a]) tops.push(a); });
    tops.forEach(function (a) { root.appendChild(node(a, null, 0)); });
    document.body.dataset.iopaths = tops.length;
  }

  function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }
  function renderFindings() {
    var box = $('findings');
    if (!D.findings.length) { box.textContent = 'No finding.'; return; }
    D.findings.forEach(function (f, n) {
      var b = el('button', 'fd ' + f.sev);
      b.type = 'button';
      b.dataset.finding = n;
      b.appendChild(el('strong', '', f.sev + ': '));
      b.appendChild(document.createTextNode(f.title));
      b.title = f.kind + ' ' + fmtTime(f.s, D.tz.off) + ' - ' + fmtTime(f.e, D.tz.off) + ' (' + D.tz.name + ')';
      b.addEventListener('click', function () { openFinding(f); });
      box.appendChild(b);
    });
  }
  /* a finding's series: the counters of its entity (the instance that names it) */
  function entitySeries(ent) {
    var list = [];
    if (!ent) return list;
    var re = new RegExp('(^|[^A-Za-z0-9])' + escapeRe(ent) + '($|[^A-Za-z0-9])', 'i');
    S.forEach(function (s, i) { if (re.test(s.i) && list.length < 12) list.push(i); });
    return list;
  }
  /* a finding's evidence: the series the format reads for its entity and its evidence's metrics,
   * then the entity's other series (up to 12) */
  function findingSeries(f) {
    var list = [];
    S.forEach(function (s, i) { if (s.m && s.e === f.ent && f.ev.indexOf(s.m) >= 0) list.push(i); });
    document.body.dataset.evidence = list.length;
    if (!list.length) list = entitySeries(f.ent);
    return list;
  }
  function openFinding(f) {
    var list = findingSeries(f);
    if (f.ent) {
      $('q').value = escapeRe(f.ent);
      renderTree();
    }
    var span = Math.max(f.e - f.s, 60), pad0 = span * 0.5;
    zoom = [f.s - pad0, f.e + pad0];
    if (list.length) addByUnit(list);
    else $('readout').textContent = 'no series of ' + (f.ent || 'this finding') + ' in the selection (--match)';
    syncing = true;
    charts.forEach(function (c) { if (c.u) c.u.setScale('x', { min: zoom[0], max: zoom[1] }); });
    syncing = false;
    readRange();
  }

  var sum = D.caps.map(function (c) { return c.file + ' (' + c.format + ', ' + c.rows + ' rows)'; }).join(' + ');
  $('sum').textContent = sum + ' - ' + D.kept + ' series, times in ' + D.tz.name + ' and UTC';
  if (!D.embed) document.title = 'iopsy view - ' + D.caps.map(function (c) { return c.file; }).join(', ');
  if (D.dropped) {
    $('msg').hidden = false;
    $('msg').textContent = D.dropped + ' of ' + D.matched + (D.embed
      ? ' series were left out to fit the report (those of the entities its findings name come first); ' +
        '"iopsy view" on the captures shows them.'
      : ' matched series were dropped to fit the budget (' + D.budget + ' numbers); narrow --match or raise ' +
        '--budget to see them.');
  }
  $('q').addEventListener('input', renderTree);
  $('newc').addEventListener('click', function () { newChart(); });
  $('reset').addEventListener('click', function () {
    var r = fullRange();
    zoom = null;
    syncing = true;
    charts.forEach(function (c) { if (c.u && r) c.u.setScale('x', { min: r[0], max: r[1] }); });
    syncing = false;
    zoom = null;
    readRange();
  });
  $('log').addEventListener('change', function () {
    logScale = $('log').checked;
    charts.forEach(build);
  });
  window.addEventListener('resize', function () {
    charts.forEach(function (c) { if (c.u) c.u.setSize({ width: Math.max(400, c.box.clientWidth - 10), height: 240 }); });
  });
  renderTree();
  renderFindings();
  renderPresets();
  renderIoTree();
  readRange();
  /* one chart to start with: the series of the first finding's entity, else the first series */
  var start = D.findings.length ? findingSeries(D.findings[0]) : [];
  if (!start.length && S.length) start = [0];
  if (start.length) addByUnit(start);
  document.body.dataset.ready = '1';
})();
