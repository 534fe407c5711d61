// The quorumkv dashboard: polls this node's /v0/cluster, /metrics and /admin/jfr, and draws them.
// Everything shown comes from the node that served the page; nothing is loaded from elsewhere.
(function () {
  'use strict';

  const POLL_MS = 2000;
  const FETCH_TIMEOUT_MS = 5000;
  /** The charts' span. */
  const WINDOW_MS = 5 * 60 * 1000;
  /** Each chart point (and each "now" figure) is measured over this much time before it. */
  const SMOOTH_MS = 10 * 1000;
  /** The table's p50 and p99 are over this much time. */
  const PERCENTILE_WINDOW_MS = 60 * 1000;
  const TOKEN_KEY = 'quorumkv.adminToken';
  const OPERATIONS = [
    { key: 'GET /v0/entity', label: 'GET entity', color: '#1f6fb4' },
    { key: 'PUT /v0/entity', label: 'PUT entity', color: '#d62728' },
    { key: 'DELETE /v0/entity', label: 'DELETE entity', color: '#2a9d3a' },
    { key: 'GET /v0/entities', label: 'GET range', color: '#8e44ad' },
  ];
  const FLAME_TYPES = ['cpu', 'alloc', 'lock', 'wall'];
  const RECORDING_STATES_WITH_DATA = ['running', 'closed'];

  const $ = (id) => document.getElementById(id);

  /** An element with attributes (event handlers as on* functions) and children (strings become text). */
  function el(tag, attributes, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (typeof value === 'function') element.addEventListener(name.slice(2), value);
      else element.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children) {
      if (child === undefined || child === null) continue;
      element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return element;
  }

  function setRows(tbody, rows, emptyText, columns) {
    tbody.replaceChildren(...(rows.length ? rows
      : [el('tr', { class: 'empty' }, el('td', { colspan: columns, class: 'note' }, emptyText))]));
  }

  async function fetchWithTimeout(path, options) {
    return fetch(path, Object.assign({ cache: 'no-store', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }, options));
  }

  // ---- formatting -------------------------------------------------------------------------

  function fmtCount(n) {
    return n === null || n === undefined || Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US');
  }
  function fmtRate(r) {
    return r === null || r === undefined ? '–' : (r >= 100 ? Math.round(r).toLocaleString('en-US') : r.toFixed(1));
  }
  function fmtMs(seconds) {
    if (seconds === null || seconds === undefined) return '–';
    const ms = seconds * 1000;
    return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
  }
  function fmtBytes(bytes) {
    if (bytes === null || bytes === undefined) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let value = bytes;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return (unit === 0 ? value.toFixed(0) : value.toFixed(1)) + ' ' + units[unit];
  }
  function fmtPercent(fraction) {
    return fraction === null || fraction === undefined ? '–' : (fraction * 100).toFixed(1) + ' %';
  }
  function fmtAgo(epochMs) {
    if (!epochMs) return 'never';
    const seconds = Math.max(0, Math.round((Date.now() - epochMs) / 1000));
    return seconds < 120 ? seconds + ' s ago' : Math.round(seconds / 60) + ' min ago';
  }

  // ---- /metrics ---------------------------------------------------------------------------

  const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
  const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

  /** Prometheus text format to a list of {name, labels, value}. */
  function parseMetrics(text) {
    const samples = [];
    for (const line of text.split('\n')) {
      if (line === '' || line[0] === '#') continue;
      const match = SAMPLE.exec(line);
      if (!match) continue;
      const labels = {};
      for (const label of (match[2] || '').matchAll(LABEL)) labels[label[1]] = label[2];
      samples.push({ name: match[1], labels, value: parseFloat(match[3]) });
    }
    return samples;
  }

  /**
   * What one scrape says: per operation (method and route, all status codes together) the request
   * count and the cumulative latency buckets; and every other series summed over its labels.
   */
  function snapshotOf(samples, time) {
    const operations = {};
    const totals = {};
    const shed = {};
    const operation = (labels) => {
      const key = labels.method + ' ' + labels.route;
      return operations[key] || (operations[key] = { count: 0, buckets: new Map() });
    };
    for (const { name, labels, value } of samples) {
      totals[name] = (totals[name] || 0) + value;
      if (name === 'quorumkv_requests_shed_total') {
        shed[labels.reason] = (shed[labels.reason] || 0) + value;
      } else if (name === 'vertx_http_server_requests_total') {
        operation(labels).count += value;
      } else if (name === 'vertx_http_server_response_time_seconds_bucket') {
        const buckets = operation(labels).buckets;
        const le = parseFloat(labels.le);
        buckets.set(le, (buckets.get(le) || 0) + value);
      }
    }
    return { time, operations, totals, shed };
  }

  /** The q-quantile of the requests between two scrapes, from their bucket counts; null without requests. */
  function quantile(q, before, after) {
    if (!after) return null;
    const bounds = [...after.buckets.keys()].sort((a, b) => a - b);
    const delta = (le) => after.buckets.get(le) - ((before && before.buckets.get(le)) || 0);
    const total = bounds.length ? delta(bounds[bounds.length - 1]) : 0;
    if (!(total > 0)) return null;
    const rank = q * total;
    let lower = 0;
    let below = 0;
    for (const le of bounds) {
      const cumulative = delta(le);
      if (cumulative >= rank) {
        if (le === Infinity) return lower; // beyond the largest bucket: its bound is all we know
        const inBucket = cumulative - below;
        return inBucket > 0 ? lower + (le - lower) * (rank - below) / inBucket : le;
      }
      lower = le;
      below = cumulative;
    }
    return lower;
  }

  /** Requests per second of an operation between two scrapes; null across a restart (counters reset). */
  function rate(before, after, read) {
    if (!before || !after) return null;
    const seconds = (after.time - before.time) / 1000;
    const delta = read(after) - read(before);
    return seconds > 0 && delta >= 0 ? delta / seconds : null;
  }

  // ---- charts -----------------------------------------------------------------------------

  const history = [];
  let rateChart = null;
  let latencyChart = null;

  function chartSize(container) {
    return { width: Math.max(300, container.clientWidth), height: 240 };
  }

  function makeCharts() {
    if (typeof uPlot !== 'function') throw new Error('uPlot did not load');
    const axes = (label) => [{}, { label, size: 60 }];
    const points = { show: false };
    const rateSeries = [{}].concat(OPERATIONS.map((op) => ({ label: op.label, stroke: op.color, width: 2, points })));
    const latencySeries = [{}];
    for (const op of OPERATIONS) {
      latencySeries.push({ label: op.label + ' p50', stroke: op.color, width: 2, points });
      latencySeries.push({ label: op.label + ' p99', stroke: op.color, width: 1.5, dash: [6, 4], points });
    }
    rateChart = new uPlot(Object.assign(chartSize($('rate-chart')), {
      series: rateSeries, axes: axes('req/s'), legend: { live: false }, scales: { y: { range: (u, min, max) => [0, Math.max(1, max)] } },
    }), [[]].concat(OPERATIONS.map(() => [])), $('rate-chart'));
    latencyChart = new uPlot(Object.assign(chartSize($('latency-chart')), {
      series: latencySeries, axes: axes('ms'), legend: { live: false }, scales: { y: { range: (u, min, max) => [0, Math.max(1, max)] } },
    }), [[]].concat(OPERATIONS.flatMap(() => [[], []])), $('latency-chart'));
    window.addEventListener('resize', () => {
      rateChart.setSize(chartSize($('rate-chart')));
      latencyChart.setSize(chartSize($('latency-chart')));
    });
  }

  /** The latest scrape at least ms before history[i] (or the oldest one), null for the first. */
  function scrapeBefore(i, ms) {
    if (i <= 0) return null;
    let j = i - 1;
    while (j > 0 && history[i].time - history[j].time < ms) j--;
    return history[j];
  }

  function baseOf(i) {
    return scrapeBefore(i, SMOOTH_MS);
  }

  function drawCharts() {
    const xs = [];
    const rates = OPERATIONS.map(() => []);
    const latencies = OPERATIONS.flatMap(() => [[], []]);
    history.forEach((after, i) => {
      const before = baseOf(i);
      xs.push(after.time / 1000);
      OPERATIONS.forEach((op, k) => {
        const now = after.operations[op.key];
        const then = before && before.operations[op.key];
        rates[k].push(before ? (rate(before, after, (s) => (s.operations[op.key] || { count: 0 }).count) || 0) : null);
        const p50 = before ? quantile(0.5, then, now) : null;
        const p99 = before ? quantile(0.99, then, now) : null;
        latencies[2 * k].push(p50 === null ? null : p50 * 1000);
        latencies[2 * k + 1].push(p99 === null ? null : p99 * 1000);
      });
    });
    rateChart.setData([xs].concat(rates));
    latencyChart.setData([xs].concat(latencies));
  }

  function renderOperations(latest, base, oldest) {
    const rows = [];
    let total = 0;
    for (const op of OPERATIONS) {
      const now = latest.operations[op.key];
      const count = now ? now.count : 0;
      total += count;
      const then = base && base.operations[op.key];
      const minute = oldest && oldest.operations[op.key];
      rows.push(el('tr', { 'data-operation': op.key },
        el('td', null, op.label),
        el('td', { class: 'num' }, fmtCount(count)),
        el('td', { class: 'num' }, fmtRate(rate(base, latest, (s) => (s.operations[op.key] || { count: 0 }).count))),
        el('td', { class: 'num', title: 'since ' + (oldest ? new Date(oldest.time).toLocaleTimeString() : '–') },
          fmtMs(quantile(0.5, minute, now))),
        el('td', { class: 'num' }, fmtMs(quantile(0.99, minute, now)))));
    }
    $('operations').replaceChildren(...rows);
    $('request-total').textContent = fmtCount(total);
    $('request-total').dataset.value = String(total);
    const allCount = (s) => OPERATIONS.reduce((sum, op) => sum + ((s.operations[op.key] || { count: 0 }).count), 0);
    $('request-rate').textContent = fmtRate(rate(base, latest, allCount));
  }

  function renderRocksDb(latest, base) {
    const t = latest.totals;
    const hits = t.quorumkv_rocksdb_block_cache_hits_total;
    const misses = t.quorumkv_rocksdb_block_cache_misses_total;
    const hitRate = (h, m) => (h + m > 0 ? h / (h + m) : null);
    const recent = base ? hitRate(hits - base.totals.quorumkv_rocksdb_block_cache_hits_total,
      misses - base.totals.quorumkv_rocksdb_block_cache_misses_total) : null;
    $('block-cache-hit-rate').textContent = hits + misses > 0 ? fmtPercent(recent) + ' / ' + fmtPercent(hitRate(hits, misses))
      : 'no block reads yet (reads served from memtables)';
    $('block-cache-usage').textContent = fmtBytes(t.quorumkv_rocksdb_block_cache_usage_bytes) + ' / '
      + fmtBytes(t.quorumkv_rocksdb_block_cache_capacity_bytes);
    $('memtable-size').textContent = fmtBytes(t.quorumkv_rocksdb_cur_size_all_mem_tables);
    $('sst-size').textContent = fmtBytes(t.quorumkv_rocksdb_total_sst_files_size);
    $('pending-compaction').textContent = fmtBytes(t.quorumkv_rocksdb_estimate_pending_compaction_bytes);
    $('running-compactions').textContent = fmtCount(t.quorumkv_rocksdb_num_running_compactions) + ' / '
      + fmtCount(t.quorumkv_rocksdb_num_running_flushes);
    $('estimated-keys').textContent = fmtCount(t.quorumkv_rocksdb_estimate_num_keys);
    const stall = t.quorumkv_rocksdb_stall_micros_total;
    $('stall-time').textContent = stall === undefined ? '–' : (stall / 1000).toFixed(0) + ' ms since start';
  }

  function renderNotEnoughReplicas(latest, base) {
    const read = (s) => s.totals.quorumkv_not_enough_replicas_total || 0;
    $('not-enough-replicas').textContent = fmtCount(read(latest)) + ' since start, '
      + fmtRate(rate(base, latest, read)) + '/s now';
    const reasons = Object.keys(latest.shed).sort();
    $('requests-shed').textContent = reasons.length === 0 ? '0'
      : reasons.map((reason) => reason + ' ' + fmtCount(latest.shed[reason])).join(', ');
  }

  async function pollMetrics() {
    const response = await fetchWithTimeout('/metrics');
    if (!response.ok) throw new Error('/metrics answered ' + response.status);
    const snapshot = snapshotOf(parseMetrics(await response.text()), Date.now());
    history.push(snapshot);
    while (history.length > 1 && snapshot.time - history[0].time > WINDOW_MS) history.shift();
    const base = baseOf(history.length - 1);
    renderOperations(snapshot, base, scrapeBefore(history.length - 1, PERCENTILE_WINDOW_MS));
    renderRocksDb(snapshot, base);
    renderNotEnoughReplicas(snapshot, base);
    drawCharts();
  }

  // ---- /v0/cluster ------------------------------------------------------------------------

  function renderTopology(cluster) {
    $('self-url').textContent = cluster.self;
    let alive = 0;
    const rows = cluster.nodes.map((node) => {
      if (node.alive) alive++;
      return el('tr', { 'data-url': node.url, 'data-alive': String(node.alive), 'data-state': node.state },
        el('td', null, el('a', { href: node.url + '/ui/', rel: 'noopener noreferrer' }, node.url)),
        el('td', { class: 'state' }, node.state === undefined ? 'unknown' : node.state),
        el('td', { class: 'liveness' }, el('span', { class: 'badge ' + (node.alive ? 'alive' : 'down') },
          node.alive ? 'alive' : 'down')),
        el('td', null, node.self ? el('span', { class: 'badge self' }, 'this node') : ''));
    });
    setRows($('nodes'), rows, 'no nodes', 4);
    $('alive-summary').textContent = alive + ' of ' + cluster.nodes.length + ' nodes alive';
    // A node of an earlier release answers without the factor: the rest of the panel is shown all the same.
    const topology = cluster.topology || {};
    $('replication').textContent = topology.replicationFactor === undefined ? ''
      : 'replication factor ' + topology.replicationFactor + ', default from ' + topology.defaultFrom;
    const alarms = cluster.alarms || [];
    $('alarms').hidden = alarms.length === 0;
    $('alarms').textContent = alarms.map((alarm) => 'alarm ' + alarm.kind + ' on ' + alarm.node + ', raised '
      + fmtAgo(alarm.since) + ': ' + alarm.message).join('; ');
  }

  function renderConvergence(cluster) {
    const hints = cluster.hints;
    $('hints-totals').textContent = fmtCount(hints.stored) + ' / ' + fmtCount(hints.delivered) + ' / '
      + fmtCount(hints.dropped);
    setRows($('hints-pending'), Object.entries(hints.pending).map(([target, count]) =>
      el('tr', { 'data-target': target }, el('td', null, target), el('td', { class: 'num' }, fmtCount(count)))),
    'no hints held', 2);
    $('read-repairs').textContent = fmtCount(cluster.readRepairs.written) + ' / ' + fmtCount(cluster.readRepairs.failed);
    const antiEntropy = cluster.antiEntropy;
    $('anti-entropy-interval').textContent = 'every ' + (antiEntropy.intervalMs / 1000) + ' s per pair';
    setRows($('anti-entropy'), Object.entries(antiEntropy.peers).map(([peer, s]) =>
      el('tr', { 'data-peer': peer, title: s.lastError ? 'last error: ' + s.lastError : undefined },
        el('td', null, peer),
        el('td', null, s.initiator ? s.state : 'started by the peer'),
        el('td', { class: 'num' }, fmtCount(s.exchangesCompleted) + ' / ' + fmtCount(s.exchangesFailed)),
        el('td', { class: 'num' }, fmtCount(s.keysRepaired)),
        el('td', null, s.initiator ? fmtAgo(s.lastCompletedAt) : 'confirmed ' + fmtAgo(s.confirmedAt)))),
    'no peers', 5);
    renderTransfers(cluster.transfers);
  }

  /** A node's url without its scheme, to keep table columns narrow. */
  function hostPort(url) {
    return String(url).replace(/^https?:\/\//, '');
  }

  /** "sent of total"; while the source still counts what it holds (remaining -1), "sent, counting…". */
  function fmtProgress(sent, remaining, format) {
    return remaining < 0 ? format(sent) + ', counting…' : format(sent) + ' of ' + format(sent + remaining);
  }

  /** Transfers (data moving between nodes as they join or leave), when the node reports any. */
  function renderTransfers(transfers) {
    const box = $('transfers');
    if (!Array.isArray(transfers) || transfers.length === 0) {
      box.replaceChildren(el('p', { class: 'note' }, 'no transfers in progress'));
      return;
    }
    box.replaceChildren(el('table', { class: 'transfers' },
      el('thead', null, el('tr', null, el('th', null, 'from → to'), el('th', null, 'state'),
        el('th', { class: 'num' }, 'records'), el('th', { class: 'num' }, 'bytes'))),
      el('tbody', null, ...transfers.map((t) => el('tr',
        { 'data-from': t.from, 'data-to': t.to, title: 'topology epoch ' + t.epoch },
        el('td', null, hostPort(t.from) + ' → ' + hostPort(t.to)),
        el('td', { class: 'state' }, t.state, t.lastError ? el('div', { class: 'note error' }, t.lastError) : null),
        el('td', { class: 'num records' }, fmtProgress(t.recordsSent, t.recordsRemaining, fmtCount)),
        el('td', { class: 'num bytes' }, fmtProgress(t.bytesSent, t.bytesRemaining, fmtBytes)))))));
  }

  async function pollCluster() {
    const response = await fetchWithTimeout('/v0/cluster', { headers: adminHeaders() });
    if (response.status === 401) throw new Error('/v0/cluster answered 401: enter a token in the token field at the top of the page (this node\'s conf sets API tokens)');
    if (!response.ok) throw new Error('/v0/cluster answered ' + response.status);
    const cluster = await response.json();
    renderTopology(cluster);
    renderConvergence(cluster);
  }

  // ---- JFR recordings (/admin/jfr) --------------------------------------------------------

  // The token lives in this variable and in this tab's session storage only: never in a URL,
  // never in local storage or a cookie, never logged.
  let adminToken = sessionStorage.getItem(TOKEN_KEY);
  let adminTokenRequired = null;
  /** Why start and stop are disabled, or null when they are enabled. */
  let adminDisabledReason = 'loading';

  /** Lets a flame graph tab this page opened fetch its graph with the token (same origin only). */
  Object.defineProperty(window, 'quorumkvAdminToken', { value: () => adminToken });

  function adminHeaders() {
    return adminToken ? { Authorization: 'Bearer ' + adminToken } : {};
  }

  function setAdminDisabled(reason) {
    adminDisabledReason = reason;
    $('token-state').textContent = adminToken ? 'a token is in use' : '';
    $('jfr-start').disabled = reason !== null;
    $('jfr-start').title = reason || '';
    $('admin-reason').textContent = reason ? 'Start and stop are disabled: ' + reason : '';
    for (const button of document.querySelectorAll('#recordings button.stop')) {
      button.disabled = reason !== null;
      button.title = reason || '';
    }
  }

  function jfrMessage(text, isError) {
    $('jfr-message').textContent = text;
    $('jfr-message').classList.toggle('error', Boolean(isError));
  }

  function forgetToken(reason) {
    adminToken = null;
    sessionStorage.removeItem(TOKEN_KEY);
    setAdminDisabled(reason);
    setRows($('recordings'), [], 'enter the admin token to list this node\'s recordings', 7);
  }

  function flameLinks(recording) {
    if (!RECORDING_STATES_WITH_DATA.includes(recording.state)) return el('span', { class: 'note' }, 'when written');
    return el('span', { class: 'flame-links' }, ...FLAME_TYPES.map((type) => {
      const href = 'flame.html?name=' + encodeURIComponent(recording.name) + '&type=' + type;
      // Opened with window.open, so the new tab can ask this one for the token (window.opener).
      return el('a', { href, target: '_blank', 'data-flame': type,
        onclick: (event) => { event.preventDefault(); window.open(href, '_blank'); } }, type);
    }));
  }

  function renderRecordings(recordings) {
    setRows($('recordings'), recordings.map((r) => el('tr', { 'data-recording': r.name, 'data-state': r.state },
      el('td', null, r.name),
      el('td', { class: 'state' }, r.state),
      el('td', null, r.settings),
      el('td', null, r.started ? new Date(r.started).toLocaleTimeString() : '–'),
      el('td', { class: 'num' }, (r.durationMs / 1000) + ' s'),
      el('td', null, flameLinks(r)),
      el('td', null, r.state === 'running' ? el('button', {
        type: 'button', class: 'stop', disabled: adminDisabledReason !== null, title: adminDisabledReason,
        onclick: () => stopRecording(r.name),
      }, 'stop') : ''))), 'no recordings on this node', 7);
  }

  async function pollRecordings() {
    if (adminTokenRequired === null) {
      const settings = await (await fetchWithTimeout('settings.json')).json();
      adminTokenRequired = settings.adminTokenRequired;
      $('token-form').classList.toggle('hidden', !adminTokenRequired);
    }
    if (adminTokenRequired && !adminToken) {
      forgetToken('enter this node\'s admin token in the token field at the top of the page (its conf sets adminToken or auth tokens).');
      return;
    }
    const response = await fetchWithTimeout('/admin/jfr', { headers: adminHeaders() });
    if (response.status === 401) {
      forgetToken('the token was refused (401): enter it again.');
      return;
    }
    if (response.status === 403) {
      // A token that may read but not run admin commands: kept for the reads.
      setAdminDisabled('the token given is not of role admin (403).');
      setRows($('recordings'), [], 'an admin token is needed to list this node\'s recordings', 7);
      return;
    }
    if (!response.ok) throw new Error('/admin/jfr answered ' + response.status);
    setAdminDisabled(adminTokenRequired ? null
      : 'this node has no admin token (neither adminToken nor auth tokens in its conf), so its admin API is open '
        + 'to anyone who can reach it; give it one (docs/security.md) to start and stop recordings from this page.');
    renderRecordings(await response.json());
  }

  async function adminCommand(path, params, describe) {
    const query = new URLSearchParams(params).toString();
    try {
      const response = await fetchWithTimeout(path + '?' + query, { method: 'POST', headers: adminHeaders() });
      const body = await response.text();
      if (response.ok) {
        jfrMessage(describe(response.status));
      } else {
        jfrMessage(response.status + ': ' + body.trim(), true);
      }
    } catch (e) {
      jfrMessage('request failed: ' + e.message, true);
    }
    await pollRecordings().catch((e) => jfrMessage(e.message, true));
  }

  function startRecording(event) {
    event.preventDefault();
    if (adminDisabledReason !== null) return;
    const name = $('jfr-name').value.trim();
    const scope = $('jfr-scope').value;
    adminCommand('/admin/jfr', {
      name, duration: String(Math.round(Number($('jfr-duration').value) * 1000)),
      settings: $('jfr-settings').value, scope,
    }, (status) => (status === 202 ? 'start of \'' + name + '\' sent to every node'
      : 'started \'' + name + '\' on this node'));
  }

  function stopRecording(name) {
    if (adminDisabledReason !== null) return;
    const scope = $('jfr-scope').value;
    adminCommand('/admin/jfr/stop', { name, scope }, (status) => (status === 202
      ? 'stop of \'' + name + '\' sent to every node' : 'stopped \'' + name + '\' on this node'));
  }

  function useToken(event) {
    event.preventDefault();
    const given = $('token').value;
    $('token').value = '';
    if (!given) return;
    adminToken = given;
    sessionStorage.setItem(TOKEN_KEY, given);
    jfrMessage('');
    pollRecordings().catch((e) => jfrMessage(e.message, true));
  }

  // ---- polling ----------------------------------------------------------------------------

  async function tick() {
    const results = await Promise.allSettled([pollCluster(), pollMetrics(), pollRecordings()]);
    const failures = results.filter((r) => r.status === 'rejected').map((r) => r.reason.message || String(r.reason));
    const status = $('status');
    status.classList.toggle('error', failures.length > 0);
    status.textContent = failures.length
      ? 'cannot read this node: ' + failures.join('; ')
      : 'updated ' + new Date().toLocaleTimeString() + ', every ' + POLL_MS / 1000 + ' s';
    setTimeout(tick, POLL_MS);
  }

  $('jfr-form').addEventListener('submit', startRecording);
  $('token-form').addEventListener('submit', useToken);
  $('token-forget').addEventListener('click', () => forgetToken('no admin token given.'));
  makeCharts();
  tick();
})();
