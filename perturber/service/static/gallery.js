// perturber playground, gallery view: one text, every matching entry at its defaults, one request
// (POST perturb/gallery). Uses the single view's helpers (playground.js: renderDiff, escapeHtml,
// restore, run, state). Stores nothing: no history, no storage, no secrets.
"use strict";

const gallery = { rows: [], input: "", seed: "0", sort: null, loaded: false };
const g$ = (id) => document.getElementById(id);

function showView(name) {
  const single = name !== "gallery";
  document.querySelector("main").hidden = !single;
  g$("gallery").hidden = single;
  g$("view-single").classList.toggle("active", single);
  g$("view-gallery").classList.toggle("active", !single);
  if (!single) loadFilters();
}

async function loadFilters() {
  if (gallery.loaded) return;
  gallery.loaded = true;
  const cat = await fetch("perturbations").then((r) => r.json());
  const sel = g$("g-family");
  for (const f of [...new Set(cat.perturbations.map((e) => e.family))]) {
    const o = document.createElement("option");
    o.value = f; o.textContent = f; sel.appendChild(o);
  }
}

function galleryError(msg) {
  const el = g$("g-error");
  el.hidden = !msg;
  el.textContent = msg || "";
}

async function runGallery() {
  galleryError("");
  const seedText = g$("g-seed").value.trim();
  if (!/^\d+$/.test(seedText)) { galleryError("seed must be a non-negative integer"); return; }
  const body = { text: g$("g-input").value };
  if (g$("g-family").value) body.family = g$("g-family").value;
  if (g$("g-expectation").value) body.expectation = g$("g-expectation").value;
  if (g$("g-in-scope").checked) body.in_scope = true;
  // The seed is sent as a JSON integer literal (it may exceed 2**53).
  const raw = JSON.stringify(body).replace(/}$/, `,"seed":${seedText}}`);
  const resp = await fetch("perturb/gallery", {
    method: "POST", headers: { "content-type": "application/json" }, body: raw,
  });
  const data = await resp.json();
  if (!resp.ok) { galleryError(`${resp.status} ${data.error.code}: ${data.error.message}`); return; }
  gallery.rows = data.results;
  gallery.input = body.text;
  gallery.seed = seedText;
  const applied = data.results.filter((r) => r.applied).length;
  const skipped = data.skipped_model_backed.length;
  g$("g-summary").textContent = `${data.count} entries, ${applied} applied, seed ${seedText}` +
    (skipped ? `; ${skipped} model-backed entries skipped` : "");
  renderGallery();
}

function sortedRows() {
  const rows = gallery.rows.map((r, i) => ({ r, i }));
  if (gallery.sort) {
    const dir = gallery.sort === "desc" ? -1 : 1;
    const mag = (x) => (typeof x.r.magnitude === "number" ? x.r.magnitude : null);
    rows.sort((a, b) => {
      const ma = mag(a), mb = mag(b);
      if (ma === null || mb === null) return (ma === null) - (mb === null) || a.i - b.i;
      return (ma - mb) * dir || a.i - b.i;
    });
  }
  return rows.map((x) => x.r);
}

function renderGallery() {
  const tbody = g$("g-table").querySelector("tbody");
  tbody.innerHTML = "";
  const arrow = { desc: " ▾", asc: " ▴" }[gallery.sort] || "";
  g$("g-sort-magnitude").textContent = "magnitude" + arrow;
  for (const r of sortedRows()) {
    const tr = document.createElement("tr");
    tr.dataset.key = `${r.category}/${r.name}`;
    tr.className = r.error ? "g-failed" : r.applied ? "g-applied" : "g-unchanged";
    const mag = typeof r.magnitude === "number" ? r.magnitude.toFixed(4) : "n/a";
    const diffHtml = r.error ? escapeHtml(`${r.error.code}: ${r.error.message}`)
      : r.applied ? renderDiff(gallery.input, r.text) : "";
    tr.innerHTML =
      `<td class="g-name">${escapeHtml(r.name)}${r.in_scope ? "" : " <small>(out of scope)</small>"}</td>` +
      `<td>${escapeHtml(r.family)}</td>` +
      `<td class="g-applied-cell">${r.error ? "error" : r.applied}</td>` +
      `<td>${escapeHtml(r.error ? r.error.code : r.reason || "")}</td>` +
      `<td>${r.edits ?? ""}</td>` +
      `<td class="g-magnitude">${mag}</td>` +
      `<td class="g-diff">${diffHtml}</td>`;
    tr.title = "open in the single-perturbation view";
    tr.onclick = () => openSingle(r);
    tbody.appendChild(tr);
  }
}

function openSingle(r) {
  showView("single");
  restore({ key: `${r.category}/${r.name}`, params: r.params, seed: gallery.seed, text: gallery.input });
  run();
}

function initGallery() {
  g$("view-single").onclick = () => showView("single");
  g$("view-gallery").onclick = () => showView("gallery");
  g$("g-run").onclick = () => runGallery().catch((err) => galleryError("request failed: " + err));
  g$("g-sort-magnitude").onclick = () => {
    gallery.sort = gallery.sort === "desc" ? "asc" : "desc";
    renderGallery();
  };
  if (new URLSearchParams(window.location.search).get("view") === "gallery") showView("gallery");
}

initGallery();
