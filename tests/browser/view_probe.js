(function () {
  var out = [], B = document.body, before = '', last = null, over = null, r = null, y = 0;
  function say(k, v) { out.push(k + '=' + String(v).replace(/\s+/g, '_')); }
  function ev(type, x, tgt) {
    (tgt || over).dispatchEvent(new MouseEvent(type, { clientX: x, clientY: y, bubbles: true, button: 0, buttons: 1,
      movementX: 5, movementY: 1, view: window }));
  }
  var steps = [function () {
    var q = document.getElementById('v-q');
    q.value = 'Average Driver MilliSec|DAVG';
    q.dispatchEvent(new Event('input'));
    say('matched', B.dataset.matched);
    var add = document.querySelector('#v-tree .leaf button');
    say('leaf', add ? 1 : 0);
    if (add) add.click();
  }, function () {
    var charts = document.querySelectorAll('#v-charts .chart');
    last = charts[charts.length - 1];
    over = last && last.querySelector('.u-over');
    say('charts', charts.length);
    say('series_in_chart', last ? last.querySelectorAll('.u-legend .u-series').length - 1 : 0);
    /* the first chart's lines drawn: its canvas's opaque coloured pixels (axes and grid are grey,
     * the findings' shading translucent) */
    var cv = charts.length && charts[0].querySelector('canvas'), px = 0;
    if (cv) {
      var dt = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      for (var p = 0; p < dt.length; p += 4) {
        var c = Math.max(dt[p], dt[p + 1], dt[p + 2]) - Math.min(dt[p], dt[p + 1], dt[p + 2]);
        if (dt[p + 3] > 200 && c > 60) px++;
      }
    }
    say('line_px', px);
    before = B.dataset.range;
    if (!over) return;
    r = over.getBoundingClientRect();
    y = r.top + r.height / 2;
    ev('mouseenter', r.left + r.width * 0.25);
    ev('mousedown', r.left + r.width * 0.25);
    ev('mousemove', r.left + r.width * 0.5);
    ev('mouseup', r.left + r.width * 0.5, document);
  }, function () {
    if (!over) return;
    var rg = (B.dataset.range || '').split(',').map(Number), fr = before.split(',').map(Number);
    say('range_share', ((rg[1] - rg[0]) / (fr[1] - fr[0])).toFixed(2));
    ev('mousemove', r.left + r.width * 0.6);
  }, function () {
    say('readout', document.getElementById('v-readout').textContent);
    var v = last && last.querySelector('.u-legend .u-series:nth-child(2) .u-value');
    say('value', v ? v.textContent : '');
    var f = document.querySelector('#v-findings button.fd');
    say('nbefore', document.querySelectorAll('#v-charts .chart').length);
    if (f) f.click();
  }, function () {
    var lc = document.querySelectorAll('#v-charts .chart');
    say('nafter', lc.length);
    say('evidence', B.dataset.evidence || 0);
    say('finding_series', lc.length ? lc[lc.length - 1].querySelectorAll('.u-legend .u-series').length - 1 : 0);
    var sel = document.getElementById('v-preset'), n = sel ? sel.options.length : 0;
    say('presets', n);
    for (var k = 0; k < n; k++) if (/^IO stack of naa\./.test(sel.options[k].textContent)) { sel.selectedIndex = k; break; }
    var go = document.getElementById('v-gopreset');
    if (n && go) go.click();
  }, function () {
    say('preset_charts', B.dataset.preset || 0);
    say('iopaths', B.dataset.iopaths || 0);
    var dev = null, bs = document.querySelectorAll('#v-iotree button');
    for (var k = 0; k < bs.length; k++) if (/^naa\./.test(bs[k].textContent)) { dev = bs[k]; break; }
    if (dev) dev.click();
    say('device_filter', dev ? B.dataset.matched : -1);
    var p = document.createElement('pre');
    p.id = 'probe';
    p.textContent = 'VIEWPROBE ' + out.join(' ') + ' END';
    B.appendChild(p);
  }];
  var i = 0;
  (function next() { steps[i++](); if (i < steps.length) setTimeout(next, 200); })();
})();
