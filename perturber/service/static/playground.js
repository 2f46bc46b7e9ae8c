// perturber playground: widgets generated from the catalog, results with a visible diff.
// No secrets are ever stored: the share URL and the history hold only name, params, seed and text.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { catalog: [], current: null, lastOutput: null };
const HISTORY_KEY = "perturber.history";

// INVISIBLE (the named markers) comes from markers.js, generated from perturber.visible.

const UNSEEN = /^[\p{Cf}\p{Cc}\p{Co}\p{Zl}\p{Zp}\p{Zs}]$/u;

function markerFor(ch) {
  // The rule of perturber.visible.marker: named markers, tag characters, then any other format,
  // control, separator or private-use character but the line feed and the space as U+XXXX.
  if (INVISIBLE[ch]) return INVISIBLE[ch];
  const cp = ch.codePointAt(0);
  if (cp >= 0xe0000 && cp <= 0xe007f) return "TAG " + (cp >= 0xe0020 && cp <= 0xe007e ? String.fromCodePoint(cp - 0xe0000) : "<" + cp.toString(16) + ">");
  if (ch === "\n" || ch === " " || !UNSEEN.test(ch)) return null;
  return "U+" + cp.toString(16).padStart(4, "0").toUpperCase();
}

function escapeHtml(s) {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// Render text as HTML with invisible characters as visible markers.
function visible(text) {
  let out = "";
  for (const ch of text) {
    const m = markerFor(ch);
    out += m ? `<span class="inv" title="${m}">${escapeHtml(m)}</span>` : escapeHtml(ch);
  }
  return out;
}

// Code-point diff: common prefix/suffix, then LCS on the middle when it is small enough.
function diff(a, b) {
  const x = Array.from(a), y = Array.from(b);
  let p = 0;
  while (p < x.length && p < y.length && x[p] === y[p]) p++;
  let s = 0;
  while (s < x.length - p && s < y.length - p && x[x.length - 1 - s] === y[y.length - 1 - s]) s++;
  const xm = x.slice(p, x.length - s), ym = y.slice(p, y.length - s);
  const ops = [];
  if (p) ops.push(["=", x.slice(0, p).join("")]);
  if (xm.length * ym.length > 4e6) {
    if (xm.length) ops.push(["-", xm.join("")]);
    if (ym.length) ops.push(["+", ym.join("")]);
  } else {
    const n = xm.length, m = ym.length;
    const L = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        L[i][j] = xm[i] === ym[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    let i = 0, j = 0;
    const push = (op, ch) => {
      const last = ops[ops.length - 1];
      if (last && last[0] === op) last[1] += ch; else ops.push([op, ch]);
    };
    while (i < n || j < m) {
      if (i < n && j < m && xm[i] === ym[j]) { push("=", xm[i]); i++; j++; }
      else if (j < m && (i === n || L[i][j + 1] >= L[i + 1][j])) { push("+", ym[j]); j++; }
      else { push("-", xm[i]); i++; }
    }
  }
  if (s) ops.push(["=", x.slice(x.length - s).join("")]);
  return ops;
}

function renderDiff(a, b) {
  return diff(a, b).map(([op, t]) =>
    op === "=" ? visible(t) : op === "+" ? `<ins>${visible(t)}</ins>` : `<del>${visible(t)}</del>`).join("");
}

function entryKey(e) { return `${e.category}/${e.name}`; }

function fillSelect(selected) {
  const showAll = $("show-out-of-scope").checked;
  const sel = $("perturbation");
  sel.innerHTML = "";
  const groups = {};
  for (const e of state.catalog) {
    if (!e.in_scope && !showAll && entryKey(e) !== selected) continue;
    const g = groups[e.family] || (groups[e.family] = document.createElement("optgroup"));
    g.label = e.family;
    const o = document.createElement("option");
    o.value = entryKey(e);
    o.textContent = e.name + (e.in_scope ? "" : " (out of scope)") + (e.model_backed ? " [LLM]" : "")
      + (e.category === "native" ? "" : ` [${e.category}]`) + (e.available === false ? " (unavailable)" : "");
    g.appendChild(o);
  }
  Object.values(groups).forEach((g) => sel.appendChild(g));
  if (selected && [...sel.options].some((o) => o.value === selected)) sel.value = selected;
  selectEntry(sel.value);
}

function selectEntry(key, params) {
  const e = state.catalog.find((x) => entryKey(x) === key);
  state.current = e;
  if (!e) return;
  $("model-access").hidden = !e.model_backed;
  $("description").textContent = `${e.description} (${e.kind}, ${e.expectation}, v${e.version}${e.seed_sensitive ? ", seeded" : ""})`;
  const box = $("params");
  box.innerHTML = "";
  for (const p of e.params) {
    const id = "param-" + p.name;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = p.name;
    let input;
    if (p.choices) {
      input = document.createElement("select");
      for (const c of p.choices) {
        const o = document.createElement("option");
        o.value = c; o.textContent = c; input.appendChild(o);
      }
    } else if (p.type === "bool") {
      input = document.createElement("input"); input.type = "checkbox";
    } else if (p.type === "str") {
      input = document.createElement("input"); input.type = "text"; input.placeholder = "configured default";
    } else {
      input = document.createElement("input"); input.type = "number";
      if (p.minimum !== undefined) input.min = p.minimum;
      if (p.maximum !== undefined) input.max = p.maximum;
      input.step = p.step || (p.type === "int" ? 1 : "any");
    }
    input.id = id;
    input.dataset.name = p.name;
    input.dataset.type = p.type;
    const value = params && p.name in params ? params[p.name] : p.default;
    if (p.type === "bool") input.checked = !!value; else input.value = value ?? "";
    const help = document.createElement("div");
    help.className = "param-help";
    help.textContent = p.description;
    box.append(label, input, help);
  }
}

function currentParams() {
  const out = {};
  for (const el of $("params").querySelectorAll("[data-name]")) {
    const t = el.dataset.type;
    if (t === "bool") out[el.dataset.name] = el.checked;
    else if (t === "int") out[el.dataset.name] = el.value === "" ? NaN : Number.parseInt(el.value, 10);
    else if (t === "float") out[el.dataset.name] = Number.parseFloat(el.value);
    else if (el.value !== "") out[el.dataset.name] = el.value;
  }
  return out;
}

function showError(msg) {
  const el = $("error");
  el.hidden = !msg;
  el.textContent = msg || "";
}

async function run() {
  const e = state.current;
  if (!e) return;
  showError("");
  const seedText = $("seed").value.trim();
  if (!/^\d+$/.test(seedText)) { showError("seed must be a non-negative integer"); return; }
  const params = currentParams();
  for (const [k, v] of Object.entries(params)) if (Number.isNaN(v)) { showError(`parameter ${k} is not a number`); return; }
  const input = $("input").value;
  // The seed is sent as a JSON integer literal (it may exceed 2**53).
  const body = JSON.stringify({ texts: [input], ...params }).replace(/}$/, `,"seed":${seedText}}`);
  const resp = await fetch(`perturb/${e.category}/${e.name}`, {
    method: "POST", headers: { "content-type": "application/json", ...modelHeaders() }, body,
  });
  const data = await resp.json();
  if (!resp.ok) { showError(`${resp.status} ${data.error.code}: ${data.error.message}`); return; }
  const r = data.results[0];
  state.lastOutput = r.text;
  $("chain").disabled = false;
  $("output").innerHTML = visible(r.text);
  $("diff").innerHTML = renderDiff(input, r.text);
  const mag = r.magnitude === null ? "n/a" : r.magnitude.toFixed(4);
  $("stats").innerHTML =
    `<span>applied: <b id="applied">${r.applied}</b></span>` +
    `<span>reason: <b>${escapeHtml(String(r.reason))}</b></span>` +
    `<span>edits: <b>${r.edits}</b></span>` +
    `<span>magnitude: <b id="magnitude">${mag}</b></span>` +
    `<span>time: <b>${r.elapsed_us} µs</b></span>` +
    `<span>${escapeHtml(data.name)} v${data.version}, seed ${escapeHtml(seedText)}</span>` + modelStats(r);
  addHistory({ key: entryKey(e), params, seed: seedText, text: input, applied: r.applied });
}

function shareState() {
  const e = state.current;
  return { key: e ? entryKey(e) : "", params: currentParams(), seed: $("seed").value, text: $("input").value };
}

function share() {
  const url = new URL(window.location.href);
  url.hash = encodeURIComponent(JSON.stringify(shareState()));
  history.replaceState(null, "", url);
  if (navigator.clipboard) navigator.clipboard.writeText(url.toString()).catch(() => {});
  showError("");
  $("stats").insertAdjacentHTML("beforeend", "<span>share URL copied to the address bar</span>");
}

function restore(s) {
  if (!s || !s.key) return;
  const e = state.catalog.find((x) => entryKey(x) === s.key);
  if (!e) return;
  if (!e.in_scope) $("show-out-of-scope").checked = true;
  fillSelect(s.key);
  selectEntry(s.key, s.params);
  if (s.seed !== undefined) $("seed").value = s.seed;
  if (s.text !== undefined) $("input").value = s.text;
}

function loadHistory() {
  try { return JSON.parse(localStorage.getItem(HISTORY_KEY)) || []; } catch { return []; }
}

function addHistory(item) {
  const items = [item, ...loadHistory()].slice(0, 20);
  try { localStorage.setItem(HISTORY_KEY, JSON.stringify(items)); } catch { /* storage full or disabled */ }
  renderHistory();
}

function renderHistory() {
  const ol = $("history");
  ol.innerHTML = "";
  for (const item of loadHistory()) {
    const li = document.createElement("li");
    li.textContent = `${item.key} seed ${item.seed} ${JSON.stringify(item.params)}: ${item.text.slice(0, 60)}`;
    li.onclick = () => restore(item);
    ol.appendChild(li);
  }
}

async function init() {
  const [cat, ver] = await Promise.all([fetch("perturbations").then((r) => r.json()),
                                        fetch("version").then((r) => r.json())]);
  state.catalog = cat.perturbations;
  $("version").textContent = `v${ver.version} · catalog ${ver.catalog_digest.slice(0, 12)} · ${ver.entries} entries`;
  $("show-out-of-scope").onchange = () => fillSelect($("perturbation").value);
  $("perturbation").onchange = (ev) => selectEntry(ev.target.value);
  $("run").onclick = run;
  $("randomize").onclick = () => { $("seed").value = Math.floor(Math.random() * 2 ** 31); };
  $("chain").onclick = () => { if (state.lastOutput !== null) { $("input").value = state.lastOutput; } };
  $("share").onclick = share;
  fillSelect("native/typos");
  renderHistory();
  if (window.location.hash.length > 1) {
    try { restore(JSON.parse(decodeURIComponent(window.location.hash.slice(1)))); } catch { showError("could not read the shared URL"); }
  }
  document.body.dataset.ready = "true";
}

init().catch((err) => showError("could not load the catalog: " + err));

// Model-backed entries: the key and token live in these inputs only (page memory; never stored,
// never put in the share URL or the history), sent as headers on each run.
function modelHeaders() {
  if (!state.current || !state.current.model_backed) return {};
  const h = {};
  const key = $("llm-key").value.trim();
  const token = $("llm-token").value.trim();
  if (key) h["X-LLM-API-Key"] = key;
  if (token) h["Authorization"] = `Bearer ${token}`;
  return h;
}

function modelStats(r) {
  if (!r.model) return "";
  const u = r.model.usage || {};
  return `<span>model: <b id="model-name">${escapeHtml(String(r.model.model))}</b></span>` +
    `<span>latency: <b id="model-latency">${r.model.latency_ms} ms</b></span>` +
    `<span>tokens: <b id="model-tokens">${u.prompt_tokens ?? "?"} in / ${u.completion_tokens ?? "?"} out</b></span>`;
}
