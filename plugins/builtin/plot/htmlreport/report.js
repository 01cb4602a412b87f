// The report's charts and per-request drill-down, drawn from the JSON block
// #aiperf-data. Data reaches the page only through textContent, DOM nodes
// and escaped tooltip strings, never as markup.
(function () {
  'use strict';
  var report = { ready: false, charts: {}, version: 1 };
  window.aiperfReport = report;

  function showError(msg) {
    var el = document.getElementById('report-error');
    el.hidden = false;
    el.textContent = (el.textContent ? el.textContent + ' ' : '') + msg;
  }

  var data = JSON.parse(document.getElementById('aiperf-data').textContent);
  report.data = data;
  var theme = data.theme === 'dark' ? 'dark' : 'light';
  var GREEN = '#76b900';
  var PALETTE = [GREEN, '#1f77b4', '#ff7f0e', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function finite(v) { return typeof v === 'number' && isFinite(v); }
  function fmt(v) {
    if (!finite(v)) return 'N/A';
    if (Number.isInteger(v)) return v.toLocaleString('en-US');
    return Number(v.toPrecision(6)).toLocaleString('en-US', { maximumFractionDigits: 6 });
  }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // ---- records (one run) ----
  var run = data.runs[0];
  var rec = data.mode === 'single' ? run.records : null;
  var cols = {};
  var errMsg = new Map();
  if (rec) {
    rec.metrics.forEach(function (m) { cols[m.tag] = m; });
    rec.errors.forEach(function (e) { errMsg.set(e.i, e.m); });
  }
  function isErr(i) { return errMsg.has(i); }
  function val(tag, i) {
    var c = cols[tag];
    if (!c) return null;
    var v = c.values[i];
    return finite(v) ? v : null;
  }
  function unitOf(tag) { return cols[tag] ? cols[tag].unit : ''; }

  // ---- charts ----
  function base(spec) {
    return {
      backgroundColor: 'transparent',
      animation: false,
      color: PALETTE,
      title: { text: spec.title, subtext: spec.subtitle || '', left: 'center', textStyle: { fontSize: 14 } },
      grid: { left: 72, right: 32, top: 64, bottom: 64 },
      toolbox: { right: 8, top: 24, itemSize: 13, feature: { dataZoom: {}, restore: {}, saveAsImage: { name: spec.id } } },
      tooltip: { trigger: 'item', confine: true },
      xAxis: { type: 'value', name: spec.x_label, nameLocation: 'middle', nameGap: 30, scale: true },
      yAxis: { type: 'value', name: spec.y_label, nameLocation: 'middle', nameGap: 52, scale: true },
      dataZoom: [{ type: 'inside', xAxisIndex: 0 }, { type: 'inside', yAxisIndex: 0 }],
      series: []
    };
  }
  function scatterSeries(name, points) {
    var large = points.length > 4000;
    return { name: name, type: 'scatter', data: points, symbolSize: large ? 3 : 7, large: large, largeThreshold: 4000,
      itemStyle: { color: GREEN, opacity: 0.75 }, emphasis: { scale: 1.6 } };
  }
  function tipRequest(i, lines) {
    var h = '<b>Request #' + i + '</b>';
    if (rec.ids && rec.ids[i]) h += '<br>' + esc(rec.ids[i]);
    lines.forEach(function (l) { h += '<br>' + esc(l[0]) + ': <b>' + esc(fmt(l[1])) + '</b> ' + esc(l[2] || ''); });
    return h;
  }
  function percentileLines(tag) {
    var s = run.stats[tag];
    if (!s) return undefined;
    var d = [];
    ['p50', 'p90', 'p99'].forEach(function (p) { if (finite(s.stats[p])) d.push({ yAxis: s.stats[p], name: p }); });
    // precision: ECharts rounds a mark line's value to 2 decimals by default.
    return { silent: true, symbol: 'none', precision: 20, lineStyle: { type: 'dashed', opacity: 0.6 }, label: { formatter: '{b}', position: 'insideEndTop' }, data: d };
  }
  function quantile(sorted, q) {
    var pos = q * (sorted.length - 1), lo = Math.floor(pos), hi = Math.min(lo + 1, sorted.length - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  }

  // AIPerf's dispersed throughput events: each request's output tokens
  // spread evenly from its first token to its end, [ms, rate change].
  function throughputEvents() {
    var ev = [];
    for (var i = 0; i < rec.count; i++) {
      var st = rec.start[i], end = rec.end[i];
      if (isErr(i) || !finite(st) || !finite(end)) continue;
      var ttft = val('time_to_first_token', i), osl = val('output_sequence_length', i);
      var gen = st + (ttft !== null && ttft > 0 ? ttft : 0);
      if (osl !== null && osl > 0 && end > gen) {
        var rate = osl / ((end - gen) / 1000);
        ev.push([gen, rate], [end, -rate]);
      }
    }
    ev.sort(function (a, b) { return a[0] - b[0]; });
    return ev;
  }
  // throughputSteps sums the events into a step line, x in s from origin (ms).
  function throughputSteps(ev, origin) {
    var pts = [], sum = 0;
    ev.forEach(function (e, k) {
      var x = (e[0] - origin) / 1000;
      if (k > 0) pts.push([x, sum]);
      sum += e[1];
      pts.push([x, Math.max(sum, 0)]);
    });
    return pts;
  }
  function zip(xs, ys) {
    var pts = [];
    for (var k = 0; k < Math.min(xs.length, ys.length); k++) if (finite(xs[k]) && finite(ys[k])) pts.push([xs[k], ys[k]]);
    return pts;
  }
  // sliceLabel and withUnit format as the PNGs: a window bound as a whole
  // number where it is one, a legend value to 2 decimals (3 significant
  // digits where that would print 0.00).
  function sliceLabel(v) { return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4))); }
  function withUnit(v, unit) {
    var s = v !== 0 && Math.abs(v) < 0.005 ? String(Number(v.toPrecision(3))) : v.toFixed(2);
    return unit ? s + ' ' + unit : s;
  }
  var RED = '#E74C3C';
  // legendTop puts a chart's legend under its title, clear of the toolbox.
  function legendTop(o, names) {
    o.legend = { top: 46, type: 'scroll' };
    if (names) o.legend.data = names;
    o.grid.top = 86;
  }
  // offZero keeps the axes at the plot's edges where the other axis spans 0
  // (GPU samples before the first request, a std band below 0).
  function offZero(o) {
    [].concat(o.xAxis, o.yAxis).forEach(function (a) { a.axisLine = { onZero: false }; });
  }

  var builders = {
    // AIPerf's "scatter": a metric per request, x = request number.
    request_scatter: function (spec) {
      var o = base(spec), pts = [], idx = [];
      for (var i = 0; i < rec.count; i++) {
        var v = val(spec.metric, i);
        if (v === null || isErr(i)) continue;
        pts.push([i, v]); idx.push(i);
      }
      var s = scatterSeries(spec.metric, pts);
      s.markLine = percentileLines(spec.metric);
      o.series.push(s);
      o.tooltip.formatter = function (p) {
        if (p.seriesIndex !== 0) return '';
        var i = idx[p.dataIndex];
        return tipRequest(i, [[spec.y_label, p.value[1], '']]);
      };
      return { option: o, index: [idx] };
    },
    // Request latency by end time (s from the first end) with rolling percentiles.
    latency_over_time: function (spec) {
      var o = base(spec), rows = [], first = Infinity;
      for (var i = 0; i < rec.count; i++) {
        var v = val(spec.metric, i), end = rec.end[i];
        if (v === null || isErr(i) || !finite(end)) continue;
        rows.push([end, v, i]);
        if (end < first) first = end;
      }
      rows.sort(function (a, b) { return a[0] - b[0]; });
      var pts = rows.map(function (r) { return [(r[0] - first) / 1000, r[1]]; });
      var idx = rows.map(function (r) { return r[2]; });
      o.series.push(scatterSeries(spec.metric, pts));
      var span = spec.span || 10;
      [[0.5, '#1f77b4'], [0.95, '#ff7f0e'], [0.99, '#e74c3c']].forEach(function (q) {
        var line = pts.map(function (p, j) {
          var w = pts.slice(Math.max(0, j - span + 1), j + 1).map(function (x) { return x[1]; }).sort(function (a, b) { return a - b; });
          return [p[0], quantile(w, q[0])];
        });
        o.series.push({ name: 'p' + Math.round(q[0] * 100) + ' (rolling ' + span + ')', type: 'line', data: line, showSymbol: false,
          lineStyle: { width: 2, color: q[1] }, itemStyle: { color: q[1] }, sampling: 'lttb' });
      });
      o.legend = { top: 28 };
      o.grid.top = 76;
      o.tooltip.formatter = function (p) {
        if (p.seriesIndex !== 0) return esc(p.seriesName) + ': <b>' + esc(fmt(p.value[1])) + '</b>';
        var i = idx[p.dataIndex];
        return tipRequest(i, [['Time', p.value[0], 's'], [spec.y_label, p.value[1], '']]);
      };
      return { option: o, index: [idx] };
    },
    // AIPerf's dispersed throughput: each request's output tokens spread
    // evenly from its first token to its end, summed over requests.
    dispersed_throughput: function (spec) {
      var o = base(spec), ev = throughputEvents();
      var pts = throughputSteps(ev, ev.length ? ev[0][0] : 0);
      o.series.push({ name: 'throughput', type: 'line', data: pts, showSymbol: false, sampling: 'lttb',
        lineStyle: { color: GREEN, width: 2 }, itemStyle: { color: GREEN }, areaStyle: { color: GREEN, opacity: 0.3 } });
      o.tooltip = { trigger: 'axis', confine: true, valueFormatter: function (v) { return fmt(v) + ' tokens/s'; } };
      o.yAxis.scale = false;
      return { option: o, index: [] };
    },
    histogram: function (spec) {
      var o = base(spec), v = [];
      for (var i = 0; i < rec.count; i++) {
        var x = val(spec.metric, i);
        if (x !== null && !isErr(i)) v.push(x);
      }
      var lo = Infinity, hi = -Infinity;
      v.forEach(function (x) { if (x < lo) lo = x; if (x > hi) hi = x; });
      var bins = Math.min(spec.bins || 40, Math.max(1, v.length));
      if (lo === hi) bins = 1;
      var width = (hi - lo) / bins, counts = new Array(bins).fill(0);
      v.forEach(function (x) { counts[bins === 1 ? 0 : Math.min(bins - 1, Math.floor((x - lo) / width))]++; });
      var labels = counts.map(function (_, k) { return Number((lo + (k + 0.5) * width).toPrecision(4)); });
      o.xAxis = { type: 'category', data: labels, name: spec.x_label, nameLocation: 'middle', nameGap: 30 };
      o.yAxis.scale = false;
      o.yAxis.minInterval = 1;
      o.dataZoom = [{ type: 'inside', xAxisIndex: 0 }];
      o.series.push({ name: spec.metric, type: 'bar', data: counts, barCategoryGap: '4%', itemStyle: { color: GREEN } });
      o.tooltip.formatter = function (p) {
        var a = lo + p.dataIndex * width, b = bins === 1 ? hi : a + width;
        return esc(fmt(a)) + ' – ' + esc(fmt(b)) + ' ' + esc(unitOf(spec.metric)) + '<br><b>' + p.value + '</b> requests';
      };
      return { option: o, index: [] };
    },
    isl_osl: function (spec) {
      var o = base(spec), pts = [], idx = [];
      for (var i = 0; i < rec.count; i++) {
        var a = val('input_sequence_length', i), b = val('output_sequence_length', i);
        if (a === null || b === null || isErr(i)) continue;
        pts.push([a, b]); idx.push(i);
      }
      o.series.push(scatterSeries('isl_osl', pts));
      o.tooltip.formatter = function (p) {
        return tipRequest(idx[p.dataIndex], [['ISL', p.value[0], 'tokens'], ['OSL', p.value[1], 'tokens']]);
      };
      return { option: o, index: [idx] };
    },
    // AIPerf's timeslice scatter: a point per window (or per server-metric
    // slice) with its ±std bar, points beyond the run's average ± (run std
    // + the window's std) red diamonds (below it for a throughput), the
    // run's average as a line in a ±std band.
    timeslice_scatter: function (spec) {
      var o = base(spec), unit = spec.unit || '', win = spec.windows > 0, labels = null, d = spec.slice_duration || 0;
      if (win) {
        labels = [];
        for (var w = 0; w < spec.windows; w++) labels.push(d > 0 ? sliceLabel(w * d) + '-' + sliceLabel((w + 1) * d) : String(w));
        o.xAxis = { type: 'category', data: labels, name: spec.x_label, nameLocation: 'middle', nameGap: 50,
          axisLabel: { rotate: 45, hideOverlap: true } };
        o.grid.bottom = 84;
        o.dataZoom = [{ type: 'inside', xAxisIndex: 0 }];
      } else {
        if (finite(spec.x_min)) o.xAxis.min = spec.x_min;
        if (finite(spec.x_max)) o.xAxis.max = spec.x_max;
        o.xAxis.axisLabel = { showMinLabel: false, showMaxLabel: false }; // the bounds are not round numbers
      }
      o.yAxis.scale = false; // the axis holds 0, as the PNG's rangemode tozero
      offZero(o);
      var avg = spec.run_avg, std = spec.run_std, hasAvg = finite(avg), hasStd = hasAvg && finite(std);
      var err = spec.err || null, normal = [], outl = [], bars = [], isOut = {};
      // The outliers are picked in Go by the PNGs' rule (plotdata.Outliers).
      (spec.outliers || []).forEach(function (k) { isOut[k] = true; });
      spec.y.forEach(function (y, k) {
        var x = spec.x[k];
        if (!finite(y) || !finite(x)) return;
        var e = err && finite(err[k]) ? err[k] : 0;
        var out = isOut[k] === true;
        (out ? outl : normal).push({ value: [x, y], e: err ? e : null });
        if (err) bars.push([x, y - e, y + e, out ? 1 : 0]);
      });
      var all = normal.concat(outl), x0 = all.length ? all[0].value[0] : 0, names = ['Timeslice Average'];
      if (hasStd) {
        var band = theme === 'dark' ? 'rgba(255,184,28,0.15)' : 'rgba(232,232,232,0.5)', sName = 'Run Std: ' + withUnit(std, unit);
        // Two unseen points keep the band inside the y axis.
        o.series.push({ name: sName, type: 'line', data: [[x0, avg - std], [x0, avg + std]], showSymbol: false, silent: true,
          tooltip: { show: false }, lineStyle: { opacity: 0 }, itemStyle: { color: theme === 'dark' ? '#FFB81C' : '#C8C8C8' },
          markArea: { silent: true, itemStyle: { color: band }, data: [[{ yAxis: avg - std }, { yAxis: avg + std }]] } });
      }
      if (hasAvg) {
        var avgColor = theme === 'dark' ? '#F4E5C3' : '#555555', aName = 'Run Average: ' + withUnit(avg, unit);
        o.series.push({ name: aName, type: 'line', data: [[x0, avg]], symbol: 'none', silent: true, tooltip: { show: false },
          lineStyle: { color: avgColor, width: 2 }, itemStyle: { color: avgColor },
          markLine: { silent: true, symbol: 'none', precision: 20, label: { show: false }, lineStyle: { color: avgColor, width: 2, type: 'solid' }, data: [{ yAxis: avg }] } });
      }
      if (err) {
        names.push('±1 Timeslice Std');
        o.series.push({ name: '±1 Timeslice Std', type: 'custom', data: bars, encode: { x: 0, y: [1, 2] }, silent: true,
          tooltip: { show: false }, itemStyle: { color: GREEN },
          renderItem: function (params, api) {
            var x = api.value(0), lo = api.coord([x, api.value(1)]), hi = api.coord([x, api.value(2)]);
            var st = { stroke: api.value(3) ? RED : GREEN, lineWidth: 1.5 }, cap = 5;
            return { type: 'group', children: [
              { type: 'line', shape: { x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1] }, style: st },
              { type: 'line', shape: { x1: lo[0] - cap, y1: lo[1], x2: lo[0] + cap, y2: lo[1] }, style: st },
              { type: 'line', shape: { x1: hi[0] - cap, y1: hi[1], x2: hi[0] + cap, y2: hi[1] }, style: st }] };
          } });
      }
      if (hasStd) names.push({ name: sName, icon: 'rect' });
      if (hasAvg) names.push(aName);
      if (normal.length) o.series.push({ name: 'Timeslice Average', type: 'scatter', data: normal, symbolSize: 9, itemStyle: { color: GREEN }, z: 3 });
      if (outl.length) {
        names.push('Outliers');
        o.series.push({ name: 'Outliers', type: 'scatter', symbol: 'diamond', data: outl, symbolSize: 12, itemStyle: { color: RED }, z: 3 });
      }
      legendTop(o, names);
      o.tooltip.formatter = function (p) {
        if (!p.data || !p.data.value) return '';
        var x = p.data.value[0];
        var h = '<b>' + esc(win ? (d > 0 ? 'Timeslice ' + labels[x] + ' s' : 'Timeslice ' + labels[x]) : 'Time ' + fmt(x) + ' s') + '</b>';
        h += '<br>' + esc(spec.y_label) + ': <b>' + esc(fmt(p.data.value[1])) + '</b>';
        if (p.data.e !== null) h += ' ± ' + esc(fmt(p.data.e));
        if (p.seriesName === 'Outliers') h += '<br>Outlier';
        return h;
      };
      return { option: o, index: [] };
    },
    // A line per GPU or server series over the run.
    lines: function (spec) {
      var o = base(spec), unit = spec.unit ? ' ' + spec.unit : '';
      legendTop(o);
      o.yAxis.scale = false;
      offZero(o);
      if (spec.y_max > 0) o.yAxis.max = function (v) { return Math.max(v.max, spec.y_max); };
      spec.lines.forEach(function (l, k) {
        var color = PALETTE[k % PALETTE.length], pts = zip(l.x, l.y);
        o.series.push({ name: l.name, type: 'line', data: pts, showSymbol: pts.length <= 300, symbolSize: 5,
          sampling: pts.length > 2000 ? 'lttb' : undefined, lineStyle: { width: 2, color: color }, itemStyle: { color: color } });
      });
      o.tooltip = { trigger: 'axis', confine: true, valueFormatter: function (v) { return fmt(v) + unit; } };
      return { option: o, index: [] };
    },
    // AIPerf's gpu_utilization_and_throughput_over_time: the dispersed
    // output token throughput (left axis) with the GPUs' mean activity
    // (filled, right axis), both in s from the run's origin.
    throughput_gpu: function (spec) {
      var o = base(spec), pts = throughputSteps(throughputEvents(), spec.origin_ms || 0);
      var util = zip(spec.lines[0].x, spec.lines[0].y), top = 0;
      util.forEach(function (p) { if (p[1] > top) top = p[1]; });
      top = top === 0 ? 100 : top * 1.05;
      o.grid = { left: 72, right: 72, top: 72, bottom: 84 };
      o.legend = { bottom: 0 };
      var xs = pts.concat(util).map(function (p) { return p[0]; });
      o.xAxis.min = Math.min.apply(null, xs);
      o.xAxis.max = Math.max.apply(null, xs);
      o.yAxis = [{ type: 'value', name: spec.y_label, nameLocation: 'middle', nameGap: 52, min: 0 },
        { type: 'value', name: spec.y2_label, nameLocation: 'middle', nameGap: 44, min: 0, max: Number(top.toPrecision(4)),
          position: 'right', splitLine: { show: false }, axisLabel: { showMaxLabel: false } }];
      offZero(o);
      o.dataZoom = [{ type: 'inside', xAxisIndex: 0 }];
      o.series.push({ name: spec.y_label, type: 'line', data: pts, showSymbol: false, sampling: pts.length > 2000 ? 'lttb' : undefined,
        lineStyle: { color: GREEN, width: 2 }, itemStyle: { color: GREEN }, z: 3 });
      o.series.push({ name: spec.y2_label, type: 'line', yAxisIndex: 1, data: util, showSymbol: false,
        lineStyle: { color: PALETTE[1], width: 2 }, itemStyle: { color: PALETTE[1] }, areaStyle: { color: 'rgba(31,119,180,0.25)' } });
      var units = [' tokens/s', spec.unit ? ' ' + spec.unit : ''];
      o.tooltip = { trigger: 'axis', confine: true, formatter: function (ps) {
        var h = '<b>' + esc(fmt(ps[0].value[0])) + ' s</b>';
        ps.forEach(function (p) { h += '<br>' + esc(p.seriesName) + ': <b>' + esc(fmt(p.value[1])) + '</b>' + esc(units[p.seriesIndex] || ''); });
        return h;
      } };
      return { option: o, index: [] };
    },
    // Comparison charts: series computed by aiperf, a point per run.
    points: function (spec) {
      var o = base(spec), index = [];
      o.legend = { top: 28, type: 'scroll' };
      o.grid.top = 80;
      if (spec.y_from_zero) { o.yAxis.scale = false; o.yAxis.min = 0; }
      spec.series.forEach(function (s, k) {
        var color = PALETTE[k % PALETTE.length];
        var pts = s.points.map(function (p) { return { value: [p.x, p.y], name: p.label, run: p.run }; });
        var label = { show: !!spec.point_labels, position: 'right', formatter: '{b}', fontSize: 11 };
        if (s.line === 'all') {
          o.series.push({ name: s.name, type: 'line', data: pts, symbolSize: 9, label: label, lineStyle: { width: 2, color: color }, itemStyle: { color: color } });
          index.push(s.points.map(function (p) { return p.run; }));
          return;
        }
        o.series.push({ name: s.name, type: 'scatter', data: pts, symbolSize: 11, label: label, itemStyle: { color: color } });
        index.push(s.points.map(function (p) { return p.run; }));
        if (s.line === 'frontier') {
          var f = s.points.filter(function (p) { return p.frontier; }).map(function (p) { return [p.x, p.y]; });
          o.series.push({ name: s.name, type: 'line', data: f, showSymbol: false, silent: true, tooltip: { show: false },
            lineStyle: { type: 'dashed', width: 2, color: color }, itemStyle: { color: color } });
          index.push(null);
        }
      });
      o.tooltip.formatter = function (p) {
        var r = data.runs[p.data && p.data.run !== undefined ? p.data.run : -1];
        var h = '<b>' + esc(r ? r.name : p.seriesName) + '</b> (' + esc(p.name) + ')';
        h += '<br>' + esc(spec.x_label) + ': <b>' + esc(fmt(p.value[0])) + '</b>';
        h += '<br>' + esc(spec.y_label) + ': <b>' + esc(fmt(p.value[1])) + '</b>';
        return h;
      };
      return { option: o, index: index, runs: true };
    }
  };

  function renderCharts() {
    data.charts.forEach(function (spec) {
      var box = document.getElementById('chart-' + spec.id);
      if (!box) return;
      try {
        var b = builders[spec.kind];
        if (!b) throw new Error('unknown chart kind ' + spec.kind);
        var built = b(spec);
        var chart = echarts.init(box, theme === 'dark' ? 'dark' : null, { renderer: 'canvas' });
        chart.setOption(built.option);
        chart.on('click', function (p) {
          var m = built.index[p.seriesIndex];
          if (!m || m[p.dataIndex] === undefined) return;
          if (built.runs) openRun(m[p.dataIndex]); else selectRequest(m[p.dataIndex], true);
        });
        report.charts[spec.id] = chart;
      } catch (e) {
        showError('Chart ' + spec.id + ' failed: ' + e.message);
        console.error(e);
      }
    });
  }
  function disposeCharts() {
    Object.keys(report.charts).forEach(function (k) { report.charts[k].dispose(); });
    report.charts = {};
  }
  function openRun(i) {
    var d = document.querySelectorAll('details.run')[i];
    if (!d) return;
    d.open = true;
    d.scrollIntoView({ block: 'start' });
  }
  report.openRun = openRun;

  // ---- drill-down table ----
  var ALIASES = { ttft: 'time_to_first_token', itl: 'inter_token_latency', latency: 'request_latency',
    isl: 'input_sequence_length', osl: 'output_sequence_length', ttst: 'time_to_second_token' };
  var KEY_METRICS = ['time_to_first_token', 'inter_token_latency', 'request_latency', 'input_sequence_length',
    'output_sequence_length', 'output_token_throughput_per_user'];
  var state = { sort: 'index', dir: 1, status: 'all', terms: [], size: 50, page: 0, selected: -1, view: [] };
  var columns = [];

  function setupTable() {
    columns.push({ key: 'index', title: '#', get: function (i) { return i; } });
    if (rec.ids) columns.push({ key: 'id', title: 'Request ID', text: true, get: function (i) { return rec.ids[i] || ''; },
      show: function (i) { var s = rec.ids[i] || ''; return s.length > 13 ? s.slice(0, 12) + '…' : s; } });
    columns.push({ key: 'start', title: 'Start (s)', get: function (i) { return finite(rec.start[i]) ? rec.start[i] / 1000 : null; },
      show: function (i) { return finite(rec.start[i]) ? (rec.start[i] / 1000).toFixed(3) : ''; } });
    columns.push({ key: 'status', title: 'Status', get: function (i) { return isErr(i) ? 1 : 0; },
      show: function (i) { return isErr(i) ? 'error' : 'ok'; } });
    KEY_METRICS.forEach(function (tag) {
      var c = cols[tag];
      if (!c) return;
      columns.push({ key: tag, title: c.header + (c.unit ? ' (' + c.unit + ')' : ''), get: function (i) { return val(tag, i); } });
    });
    var head = document.getElementById('req-head');
    columns.forEach(function (c) {
      var th = el('th', { 'data-key': c.key, scope: 'col' }, c.title);
      th.addEventListener('click', function () { sortBy(c.key); });
      head.appendChild(th);
    });
    document.getElementById('req-filter').addEventListener('input', function (e) { setFilter(e.target.value); });
    document.getElementById('req-status').addEventListener('change', function (e) { state.status = e.target.value; refresh(); });
    document.getElementById('req-page-size').addEventListener('change', function (e) { state.size = Number(e.target.value); state.page = 0; renderTable(); });
    document.getElementById('req-first').addEventListener('click', function () { goPage(0); });
    document.getElementById('req-prev').addEventListener('click', function () { goPage(state.page - 1); });
    document.getElementById('req-next').addEventListener('click', function () { goPage(state.page + 1); });
    document.getElementById('req-last').addEventListener('click', function () { goPage(Infinity); });
    document.getElementById('req-body').addEventListener('click', function (e) {
      var tr = e.target.closest('tr');
      if (tr && tr.dataset.index !== undefined) selectRequest(Number(tr.dataset.index), false);
    });
    refresh();
  }

  // parseFilter turns "ttft > 20, osl <= 100, error, abc" into terms; a
  // term it cannot read is reported, not applied.
  function parseFilter(text) {
    var terms = [], problems = [];
    text.split(/,|\s+and\s+/i).forEach(function (raw) {
      var t = raw.trim();
      if (!t) return;
      var m = /^([A-Za-z_][\w.]*)\s*(<=|>=|!=|==|=|<|>)\s*(-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)$/i.exec(t);
      if (m) {
        var name = m[1].toLowerCase(), tag = ALIASES[name] || name, num = Number(m[3]), get;
        if (tag === 'start') get = function (i) { return finite(rec.start[i]) ? rec.start[i] / 1000 : null; };
        else if (tag === 'index') get = function (i) { return i; };
        else if (cols[tag]) get = function (i) { return val(tag, i); };
        else { problems.push('unknown metric "' + m[1] + '"'); return; }
        var op = m[2] === '==' ? '=' : m[2];
        terms.push(function (i) {
          var v = get(i);
          if (v === null) return false;
          switch (op) {
            case '<': return v < num;
            case '<=': return v <= num;
            case '>': return v > num;
            case '>=': return v >= num;
            case '=': return v === num;
            default: return v !== num;
          }
        });
        return;
      }
      if (/^[<>=!]/.test(t) || /(<=|>=|!=|<|>|=)/.test(t)) { problems.push('cannot read "' + t + '"'); return; }
      var low = t.toLowerCase();
      if (low === 'error' || low === 'errors') { terms.push(function (i) { return isErr(i); }); return; }
      if (low === 'ok') { terms.push(function (i) { return !isErr(i); }); return; }
      terms.push(function (i) {
        return (rec.ids && (rec.ids[i] || '').toLowerCase().indexOf(low) >= 0) ||
          (isErr(i) && errMsg.get(i).toLowerCase().indexOf(low) >= 0);
      });
    });
    return { terms: terms, problems: problems };
  }
  function setFilter(text) {
    var f = parseFilter(text);
    document.getElementById('req-filter-msg').textContent = f.problems.length ? f.problems.join('; ') + ' (ignored)' : '';
    state.terms = f.terms;
    refresh();
  }
  function computeView() {
    var v = [];
    for (var i = 0; i < rec.count; i++) {
      if (state.status === 'ok' && isErr(i)) continue;
      if (state.status === 'error' && !isErr(i)) continue;
      var keep = true;
      for (var k = 0; k < state.terms.length && keep; k++) keep = state.terms[k](i);
      if (keep) v.push(i);
    }
    var col = columns.find(function (c) { return c.key === state.sort; }) || columns[0];
    var dir = state.dir;
    if (col.key !== 'index' || dir !== 1) {
      var key = v.map(function (i) { return col.get(i); });
      var pos = new Map(v.map(function (i, k) { return [i, k]; }));
      v.sort(function (a, b) {
        var x = key[pos.get(a)], y = key[pos.get(b)];
        if (x === null || x === '') return y === null || y === '' ? a - b : 1; // missing last
        if (y === null || y === '') return -1;
        var c = col.text ? String(x).localeCompare(String(y)) : x - y;
        return c !== 0 ? c * dir : a - b;
      });
    }
    state.view = v;
  }
  function refresh() { computeView(); state.page = 0; renderTable(); }
  function pages() { return Math.max(1, Math.ceil(state.view.length / state.size)); }
  function goPage(p) { state.page = Math.max(0, Math.min(pages() - 1, p)); renderTable(); }
  function sortBy(key) {
    if (state.sort === key) state.dir = -state.dir; else { state.sort = key; state.dir = 1; }
    refresh();
  }
  function renderTable() {
    var body = document.getElementById('req-body');
    var rows = document.createDocumentFragment();
    var from = state.page * state.size, to = Math.min(state.view.length, from + state.size);
    for (var k = from; k < to; k++) {
      var i = state.view[k];
      var tr = el('tr', { 'data-index': String(i) });
      if (i === state.selected) tr.className = 'selected';
      columns.forEach(function (c) {
        var td = el('td', null, c.show ? c.show(i) : fmt(c.get(i)));
        if (c.key === 'status' && isErr(i)) td.className = 'err';
        if (c.key === 'id' && rec.ids[i]) td.title = rec.ids[i];
        tr.appendChild(td);
      });
      rows.appendChild(tr);
    }
    body.replaceChildren(rows);
    document.querySelectorAll('#req-head th').forEach(function (th) {
      th.classList.toggle('sorted-asc', th.dataset.key === state.sort && state.dir === 1);
      th.classList.toggle('sorted-desc', th.dataset.key === state.sort && state.dir === -1);
    });
    document.getElementById('req-page').textContent = 'Page ' + (state.page + 1) + ' of ' + pages();
    document.getElementById('req-count').textContent = state.view.length + ' of ' + rec.count + ' requests';
    document.getElementById('req-table').dataset.matching = String(state.view.length);
    document.getElementById('req-first').disabled = document.getElementById('req-prev').disabled = state.page === 0;
    document.getElementById('req-last').disabled = document.getElementById('req-next').disabled = state.page >= pages() - 1;
  }
  // selectRequest shows request i: its page (clearing a filter that hides
  // it), its row highlighted and every metric in the detail panel.
  function selectRequest(i, scroll) {
    if (!rec || !(i >= 0 && i < rec.count)) return;
    state.selected = i;
    var pos = state.view.indexOf(i);
    if (pos < 0) {
      state.terms = []; state.status = 'all';
      document.getElementById('req-filter').value = '';
      document.getElementById('req-status').value = 'all';
      document.getElementById('req-filter-msg').textContent = '';
      computeView();
      pos = state.view.indexOf(i);
    }
    state.page = Math.floor(pos / state.size);
    renderTable();
    renderDetail(i);
    if (scroll) {
      var tr = document.querySelector('#req-body tr.selected');
      if (tr) tr.scrollIntoView({ block: 'nearest' });
    }
  }
  report.selectRequest = selectRequest;
  report.view = function () { return state.view.slice(); };
  function renderDetail(i) {
    var box = document.getElementById('req-detail');
    var frag = document.createDocumentFragment();
    frag.appendChild(el('h3', null, 'Request #' + i));
    var t = el('table');
    function row(k, v) { var tr = el('tr'); tr.appendChild(el('th', null, k)); tr.appendChild(el('td', null, v)); t.appendChild(tr); }
    if (rec.ids && rec.ids[i]) row('Request ID', rec.ids[i]);
    row('Status', isErr(i) ? 'error' : 'ok');
    if (finite(rec.start[i])) row('Start (ms from first request)', fmt(rec.start[i]));
    if (finite(rec.end[i])) row('End (ms from first request)', fmt(rec.end[i]));
    rec.metrics.forEach(function (m) {
      var v = val(m.tag, i);
      if (v !== null) row(m.header + (m.unit ? ' (' + m.unit + ')' : ''), fmt(v));
    });
    frag.appendChild(t);
    if (isErr(i)) frag.appendChild(el('p', { class: 'errtext' }, errMsg.get(i)));
    box.replaceChildren(frag);
    box.dataset.index = String(i);
  }

  // ---- theme ----
  function applyTheme(t) {
    theme = t;
    document.body.classList.remove('theme-light', 'theme-dark');
    document.body.classList.add('theme-' + t);
    disposeCharts();
    renderCharts();
  }
  report.setTheme = applyTheme;
  document.getElementById('theme-toggle').addEventListener('click', function () { applyTheme(theme === 'dark' ? 'light' : 'dark'); });
  window.addEventListener('resize', function () {
    Object.keys(report.charts).forEach(function (k) { report.charts[k].resize(); });
  });

  renderCharts();
  if (rec && document.getElementById('req-table')) setupTable();
  report.ready = true;
  document.body.dataset.ready = '1';
})();
