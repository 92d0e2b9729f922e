"use strict";
// Arbor's interactive tree page. The model below is data only: every name and value from it
// reaches the screen through textContent, new Option(...) or the canvas's fillText.
(function () {
  const M = JSON.parse(document.getElementById("model").textContent);
  const N = M.nodes, count = N.id.length;
  const FONT = '"DejaVu Sans", Verdana, Arial, Helvetica, sans-serif';
  const TITLE_FONT = "bold 13px " + FONT, BODY_FONT = "12px " + FONT, EDGE_FONT = "12px " + FONT;
  const PAD_X = 10, PAD_Y = 6, BAR_H = 7, TITLE_H = 17, BODY_H = 15, LEVEL_GAP = 46;
  const SIBLING_GAP = 16, SUBTREE_GAP = 24, LOD_BOX = 0.3, LOD_TEXT = 0.55, WEKA_EPS = 1e-6;
  const C = { fill: "#FFFFFF", border: "#5F6B7A", selected: "#D55E00", highlight: "#FFE08A",
    edge: "#8A94A3", text: "#1E2430", muted: "#6B7280", regression: "#5B8DB8", empty: "#E5E7EB" };
  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- structure
  const children = Array.from({ length: count }, () => []);
  for (let i = 1; i < count; i++) children[N.parent[i]][N.branch[i]] = i;
  const depth = new Int32Array(count);
  for (let i = 1; i < count; i++) depth[i] = depth[N.parent[i]] + 1;
  const below = new Int32Array(count); // nodes under each node (pre-order: children come after)
  for (let i = count - 1; i > 0; i--) below[N.parent[i]] += below[i] + 1;
  const maxDepth = depth.reduce((a, b) => Math.max(a, b), 0);
  const leaves = children.filter((c) => c.length === 0).length;
  const majority = N.dist.map((d) => {
    let best = -1, top = 0;
    d.forEach((v, k) => { if (v > top) { top = v; best = k; } });
    return best;
  });
  const collapsed = new Uint8Array(count);
  const lit = new Uint8Array(count), found = new Uint8Array(count);

  // ---------------------------------------------------------------- sizes (measured once)
  const measure = document.createElement("canvas").getContext("2d");
  function width(text, font) { measure.font = font; return measure.measureText(text).width; }
  const baseW = new Float64Array(count), boxW = new Float64Array(count), boxH = new Float64Array(count);
  const edgeW = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let w = Math.max(72, width(N.head[i], TITLE_FONT));
    for (const line of N.lines[i]) w = Math.max(w, width(line, BODY_FONT));
    baseW[i] = w + 2 * PAD_X;
    edgeW[i] = i ? width(N.edge[i], EDGE_FONT) + 8 : 0;
  }
  function lines(i) {
    const out = N.lines[i].slice();
    if (collapsed[i] && below[i]) {
      const note = "+" + below[i] + " hidden";
      if (out.length && M.labels.n) out[0] = out[0] + "   " + note; else out.push(note);
    }
    return out;
  }
  function sizeOf(i) {
    const ls = lines(i);
    let w = baseW[i];
    if (collapsed[i]) for (const l of ls) w = Math.max(w, width(l, BODY_FONT) + 2 * PAD_X);
    boxW[i] = w;
    boxH[i] = TITLE_H + ls.length * BODY_H + 2 * PAD_Y + (M.labels.bar ? BAR_H + 4 : 0);
  }

  // ---------------------------------------------------------------- tidy layout
  // Each subtree's contour is its left and right extent per level, relative to its root.
  const X = new Float64Array(count), Y = new Float64Array(count);
  let shown = [];
  function layout() {
    shown = [];
    const stack = [0];
    while (stack.length) {
      const i = stack.pop();
      shown.push(i);
      if (!collapsed[i]) for (let k = children[i].length - 1; k >= 0; k--) stack.push(children[i][k]);
    }
    const rel = new Float64Array(count), left = new Array(count), right = new Array(count);
    for (let s = shown.length - 1; s >= 0; s--) {
      const i = shown[s];
      sizeOf(i);
      const half = Math.max(boxW[i], edgeW[i]) / 2;
      const kids = collapsed[i] ? [] : children[i];
      if (!kids.length) { left[i] = [-half]; right[i] = [half]; continue; }
      let accL = left[kids[0]], accR = right[kids[0]];
      const offsets = [0];
      for (let k = 1; k < kids.length; k++) {
        const cl = left[kids[k]], cr = right[kids[k]];
        const n = Math.min(accR.length, cl.length);
        let offset = -Infinity;
        for (let d = 0; d < n; d++) offset = Math.max(offset, accR[d] - cl[d] + (d ? SUBTREE_GAP : SIBLING_GAP));
        offsets.push(offset);
        const mr = cr.map((v) => v + offset);
        for (let d = cr.length; d < accR.length; d++) mr.push(accR[d]);
        const ml = accL.slice();
        for (let d = accL.length; d < cl.length; d++) ml.push(cl[d] + offset);
        accL = ml; accR = mr;
        left[kids[k]] = right[kids[k]] = null;
      }
      left[kids[0]] = right[kids[0]] = null;
      const mid = (offsets[0] + offsets[offsets.length - 1]) / 2;
      kids.forEach((c, k) => { rel[c] = offsets[k] - mid; });
      left[i] = [-half].concat(accL.map((v) => v - mid));
      right[i] = [half].concat(accR.map((v) => v - mid));
    }
    const extent = new Float64Array(maxDepth + 1);
    for (const i of shown) extent[depth[i]] = Math.max(extent[depth[i]], boxH[i]);
    const top = new Float64Array(maxDepth + 2);
    for (let d = 0; d <= maxDepth; d++) top[d + 1] = top[d] + extent[d] + LEVEL_GAP;
    for (const i of shown) {
      X[i] = i ? X[N.parent[i]] + rel[i] : 0;
      Y[i] = top[depth[i]] + extent[depth[i]] / 2;
    }
  }

  // ---------------------------------------------------------------- drawing
  const canvas = $("tree"), ctx = canvas.getContext("2d");
  const view = { scale: 1, x: 0, y: 0 };
  let hover = -1, current = -1;
  function resize() {
    const r = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(canvas.clientWidth * r));
    canvas.height = Math.max(1, Math.round(canvas.clientHeight * r));
    draw();
  }
  function bounds() {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const i of shown) {
      x0 = Math.min(x0, X[i] - boxW[i] / 2); x1 = Math.max(x1, X[i] + boxW[i] / 2);
      y0 = Math.min(y0, Y[i] - boxH[i] / 2); y1 = Math.max(y1, Y[i] + boxH[i] / 2);
    }
    return [x0, y0 - 20, x1, y1];
  }
  function fit() {
    const [x0, y0, x1, y1] = bounds(), w = canvas.clientWidth, h = canvas.clientHeight;
    const legend = $("legend").offsetWidth + 20;
    view.scale = Math.min(2, (w - legend - 30) / (x1 - x0), (h - 30) / (y1 - y0));
    view.x = legend + (w - legend - (x1 - x0) * view.scale) / 2 - x0 * view.scale;
    view.y = 15 - y0 * view.scale;
    draw();
  }
  function roundRect(x, y, w, h, r) {
    ctx.beginPath();
    ctx.moveTo(x + r, y); ctx.arcTo(x + w, y, x + w, y + h, r); ctx.arcTo(x + w, y + h, x, y + h, r);
    ctx.arcTo(x, y + h, x, y, r); ctx.arcTo(x, y, x + w, y, r); ctx.closePath();
  }
  function colour(i) {
    if (majority[i] < 0) return M.regression ? C.regression : C.fill;
    return M.colours[majority[i]];
  }
  function draw() {
    const r = window.devicePixelRatio || 1, s = view.scale;
    ctx.setTransform(r, 0, 0, r, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(r * s, 0, 0, r * s, r * view.x, r * view.y);
    const vx0 = -view.x / s, vy0 = -view.y / s;
    const vx1 = vx0 + canvas.clientWidth / s, vy1 = vy0 + canvas.clientHeight / s;
    const visible = (i) => X[i] + boxW[i] / 2 >= vx0 && X[i] - boxW[i] / 2 <= vx1 &&
      Y[i] + boxH[i] / 2 >= vy0 && Y[i] - boxH[i] / 2 - LEVEL_GAP <= vy1;
    // edges, the lit path's over the rest
    for (const pass of [0, 1]) {
      ctx.beginPath();
      for (const i of shown) {
        if (!i || lit[i] !== pass || !(visible(i) || visible(N.parent[i]))) continue;
        const p = N.parent[i], sy = Y[p] + boxH[p] / 2 - 3, ey = Y[i] - boxH[i] / 2 + 3, mid = (sy + ey) / 2;
        ctx.moveTo(X[p], sy); ctx.bezierCurveTo(X[p], mid, X[i], mid, X[i], ey);
      }
      ctx.strokeStyle = pass ? C.selected : C.edge;
      ctx.lineWidth = pass ? 3 : 1.3;
      ctx.stroke();
    }
    if (s >= LOD_TEXT) {
      ctx.font = EDGE_FONT; ctx.textAlign = "center"; ctx.textBaseline = "middle";
      for (const i of shown) {
        if (!i || !visible(i)) continue;
        const p = N.parent[i], sy = Y[p] + boxH[p] / 2 - 3, ey = Y[i] - boxH[i] / 2 + 3, mid = (sy + ey) / 2;
        const ay = mid + (ey - mid) * 0.45, w = edgeW[i];
        ctx.fillStyle = "rgba(255,255,255,0.92)";
        ctx.fillRect(X[i] - w / 2, ay - 8, w, 16);
        ctx.fillStyle = C.muted;
        ctx.fillText(N.edge[i], X[i], ay);
      }
    }
    for (const i of shown) {
      if (!visible(i)) continue;
      const w = boxW[i], h = boxH[i], x = X[i] - w / 2, y = Y[i] - h / 2;
      const mark = found[i] || i === current || i === hover;
      ctx.lineWidth = (mark ? 2.5 : 1.2);
      ctx.strokeStyle = mark ? C.selected : C.border;
      ctx.setLineDash(N.dashed[i] ? [5, 3] : []);
      if (s < LOD_BOX) {
        ctx.globalAlpha = 0.6; ctx.fillStyle = lit[i] ? C.highlight : colour(i);
        ctx.fillRect(x, y, w, h); ctx.globalAlpha = 1; ctx.strokeRect(x, y, w, h);
        continue;
      }
      roundRect(x, y, w, h, 6);
      ctx.fillStyle = lit[i] ? C.highlight : C.fill;
      ctx.fill(); ctx.stroke(); ctx.setLineDash([]);
      ctx.textAlign = "center"; ctx.textBaseline = "middle";
      ctx.fillStyle = C.text; ctx.font = TITLE_FONT;
      ctx.fillText(N.head[i], X[i], y + PAD_Y + TITLE_H / 2, w - 4);
      if (s < LOD_TEXT) continue;
      ctx.fillStyle = C.muted; ctx.font = BODY_FONT;
      lines(i).forEach((line, k) => ctx.fillText(line, X[i], y + PAD_Y + TITLE_H + k * BODY_H + BODY_H / 2, w - 4));
      if (M.labels.bar) {
        const bx = x + PAD_X, by = y + h - PAD_Y - BAR_H, bw = w - 2 * PAD_X, d = N.dist[i];
        const total = d.reduce((a, b) => a + b, 0);
        if (!total || M.regression) { ctx.fillStyle = M.regression ? C.regression : C.empty; ctx.fillRect(bx, by, bw, BAR_H); }
        else {
          let at = bx;
          d.forEach((v, k) => { if (v > 0) { ctx.fillStyle = M.colours[k]; ctx.fillRect(at, by, bw * v / total, BAR_H); at += bw * v / total; } });
        }
      }
    }
    ctx.setLineDash([]);
  }

  // ---------------------------------------------------------------- words
  function num(v) {
    if (v === null || Number.isNaN(v)) return "?";
    let t = v.toFixed(6).replace(/0+$/, "").replace(/\.$/, "");
    return t === "-0" ? "0" : t;
  }
  function rule(i) {
    const parts = [];
    for (let j = i; j > 0; j = N.parent[j]) parts.push(N.cond[j]);
    return parts.length ? parts.reverse().join(" AND ") : "every row (the root)";
  }
  function element(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function tipFor(i, px, py) {
    const tip = $("tip");
    tip.replaceChildren();
    tip.append(element("div", (children[i].length ? "split on " : "leaf: ") + N.head[i], "head"));
    tip.append(element("div", "node " + N.id[i] + " · weight " + num(Math.round(N.weight[i] * 100) / 100)));
    if (M.regression) tip.append(element("div", "mean " + num(N.value[i])));
    else {
      const d = N.dist[i], total = d.reduce((a, b) => a + b, 0);
      d.forEach((v, k) => {
        if (v <= 0) return;
        const row = element("div", undefined, "entry");
        const sw = element("span", undefined, "swatch"); sw.style.background = M.colours[k];
        row.append(sw, document.createTextNode(" " + M.classes[k] + ": " + num(Math.round(v * 100) / 100) +
          " (" + (100 * v / total).toFixed(1) + "%)"));
        tip.append(row);
      });
    }
    if (collapsed[i] && below[i]) tip.append(element("div", below[i] + " nodes hidden: click to expand"));
    tip.append(element("div", "IF " + rule(i), "rule"));
    tip.hidden = false;
    const box = canvas.getBoundingClientRect(), main = tip.parentElement.getBoundingClientRect();
    let left = px - main.left + 14, top = py - main.top + 14;
    if (left + tip.offsetWidth > main.width) left = Math.max(0, px - main.left - tip.offsetWidth - 14);
    if (top + tip.offsetHeight > box.height) top = Math.max(0, py - main.top - tip.offsetHeight - 14);
    tip.style.left = left + "px"; tip.style.top = top + "px";
  }

  // ---------------------------------------------------------------- pointer and keys
  function nodeAt(px, py) {
    const b = canvas.getBoundingClientRect();
    const x = (px - b.left - view.x) / view.scale, y = (py - b.top - view.y) / view.scale;
    for (let k = shown.length - 1; k >= 0; k--) {
      const i = shown[k];
      if (Math.abs(x - X[i]) <= boxW[i] / 2 && Math.abs(y - Y[i]) <= boxH[i] / 2) return i;
    }
    return -1;
  }
  function relayout(anchor) {
    // keep ``anchor`` where it was on screen
    const sx = X[anchor] * view.scale + view.x, sy = Y[anchor] * view.scale + view.y;
    layout();
    view.x = sx - X[anchor] * view.scale; view.y = sy - Y[anchor] * view.scale;
    draw();
  }
  function toggle(i) {
    if (!children[i].length) return;
    collapsed[i] = collapsed[i] ? 0 : 1;
    relayout(i);
  }
  let drag = null;
  canvas.addEventListener("mousedown", (e) => { drag = { x: e.clientX, y: e.clientY, moved: false }; });
  window.addEventListener("mouseup", (e) => {
    if (drag && !drag.moved) { const i = nodeAt(e.clientX, e.clientY); if (i >= 0) toggle(i); }
    drag = null; canvas.classList.remove("dragging");
  });
  canvas.addEventListener("mousemove", (e) => {
    if (drag && (drag.moved || Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 3)) {
      drag.moved = true; canvas.classList.add("dragging");
      view.x += e.clientX - drag.x; view.y += e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY; $("tip").hidden = true; draw(); return;
    }
    const i = nodeAt(e.clientX, e.clientY);
    if (i !== hover) { hover = i; draw(); }
    if (i >= 0) tipFor(i, e.clientX, e.clientY); else $("tip").hidden = true;
  });
  canvas.addEventListener("mouseleave", () => { hover = -1; $("tip").hidden = true; draw(); });
  function zoom(factor, cx, cy) {
    const s = Math.min(8, Math.max(0.01, view.scale * factor));
    view.x = cx - (cx - view.x) * s / view.scale; view.y = cy - (cy - view.y) * s / view.scale;
    view.scale = s; draw();
  }
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const b = canvas.getBoundingClientRect();
    zoom(Math.exp(-e.deltaY * 0.0015), e.clientX - b.left, e.clientY - b.top);
  }, { passive: false });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea")) {
      if (e.key === "Escape") e.target.blur();
      return;
    }
    const keys = { "/": () => $("search").focus(), f: fit, e: expandAll, r: toggleForm,
      d: () => $("depth").focus(),
      "+": () => zoom(1.25, canvas.clientWidth / 2, canvas.clientHeight / 2),
      "=": () => zoom(1.25, canvas.clientWidth / 2, canvas.clientHeight / 2),
      "-": () => zoom(0.8, canvas.clientWidth / 2, canvas.clientHeight / 2) };
    const act = keys[e.key.toLowerCase()];
    if (act && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); act(); }
  });

  // ---------------------------------------------------------------- collapse controls
  function expandAll() { collapsed.fill(0); layout(); fit(); }
  function toLevels(levels) {
    for (let i = 0; i < count; i++) collapsed[i] = depth[i] >= levels - 1 && children[i].length ? 1 : 0;
    layout(); fit();
  }
  const depthBox = $("depth");
  for (let d = 1; d <= maxDepth + 1; d++) depthBox.append(new Option(d === maxDepth + 1 ? "all (" + d + ")" : String(d), String(d)));
  depthBox.value = String(maxDepth + 1);
  depthBox.addEventListener("change", () => toLevels(Number(depthBox.value)));
  $("fit").addEventListener("click", fit);
  $("expand").addEventListener("click", () => { depthBox.value = String(maxDepth + 1); expandAll(); });

  // ---------------------------------------------------------------- search
  const haystack = N.head.map((h, i) => (h + "\n" + N.edge[i] + "\n" + N.cond[i]).toLowerCase());
  let hits = [], hitAt = -1;
  function reveal(i) {
    let opened = false;
    for (let j = N.parent[i]; j >= 0; j = N.parent[j]) if (collapsed[j]) { collapsed[j] = 0; opened = true; }
    if (opened) layout();
    view.x = canvas.clientWidth / 2 - X[i] * view.scale; view.y = canvas.clientHeight / 3 - Y[i] * view.scale;
    if (view.scale < LOD_TEXT) { view.scale = 1; return reveal(i); }
    draw();
  }
  function search() {
    const q = $("search").value.trim().toLowerCase();
    found.fill(0); hits = []; hitAt = -1; current = -1;
    if (q) for (let i = 0; i < count; i++) if (haystack[i].includes(q)) { found[i] = 1; hits.push(i); }
    $("found").textContent = q ? (hits.length ? hits.length + " found" : "none found") : "";
    draw();
  }
  $("search").addEventListener("input", search);
  $("search").addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !hits.length) return;
    e.preventDefault();
    hitAt = (hitAt + (e.shiftKey ? hits.length - 1 : 1)) % hits.length;
    current = hits[hitAt];
    $("found").textContent = (hitAt + 1) + " of " + hits.length;
    reveal(current);
  });

  // ---------------------------------------------------------------- routing a row
  // As engine.predict does: a value no branch holds (missing, or a category unseen) goes down
  // every branch with a share of the training weight, and the leaves' outputs are summed.
  function branchOf(i, value) {
    if (value === null || Number.isNaN(value)) return -1;
    if (N.threshold[i] !== null) return value <= N.threshold[i] ? 0 : 1;
    const g = N.groups[i];
    for (let b = 0; b < g.length; b++) if (g[b].includes(value)) return b;
    return -1;
  }
  // Each node's output as engine.predict.node_output gives it (pseudocounts, an empty node's
  // parent's): worked out once in Python, so the page and predict cannot disagree.
  function output(i) { return N.output[i]; }
  function predict(row) {
    const K = M.classes.length;
    let out = M.regression ? 0 : new Array(K).fill(0);
    const reached = [];
    const stack = [[0, 1]];
    while (stack.length) {
      const [i, w] = stack.pop();
      reached.push([i, w]);
      if (!children[i].length) {
        const p = output(i);
        if (M.regression) out += w * p; else for (let k = 0; k < K; k++) out[k] += w * p[k];
        continue;
      }
      const b = branchOf(i, row[N.attribute[i]]);
      if (b >= 0) { stack.push([children[i][b], w]); continue; }
      N.fractions[i].forEach((f, k) => { if (f > 0) stack.push([children[i][k], w * f]); });
    }
    let label;
    if (M.regression) label = out;
    else if (M.costs) { // the class of least expected cost (rows actual, columns predicted)
      let best = 0, least = Infinity;
      for (let j = 0; j < K; j++) {
        let cost = 0;
        for (let k = 0; k < K; k++) cost += out[k] * M.costs[k][j];
        if (cost < least) { least = cost; best = j; }
      }
      label = M.classes[best];
    }
    else if (M.algorithm === "cart") { let best = 0; out.forEach((p, k) => { if (p > out[best]) best = k; }); label = M.classes[best]; }
    else { let best = 0, kept = -1; out.forEach((p, k) => { if (p - kept > WEKA_EPS) { best = k; kept = p; } }); label = M.classes[best]; }
    return { label: label, probabilities: out, reached: reached };
  }

  const fields = [];
  function buildForm() {
    const box = $("fields");
    M.attributes.forEach((a, k) => {
      const label = element("label");
      label.append(element("span", a.name, "name"));
      let input;
      if (a.nominal) {
        input = document.createElement("select");
        input.append(new Option("? (missing)", ""));
        a.categories.forEach((c, code) => input.append(new Option(c, String(code))));
      } else {
        input = document.createElement("input");
        input.type = "text"; input.inputMode = "decimal"; input.placeholder = "? (missing)";
      }
      input.dataset.attribute = String(k);
      input.title = a.nominal ? "Choose a value, or ? for a missing one" : "A number; leave empty for a missing value";
      label.append(input);
      box.append(label);
      fields.push(input);
    });
    $("missing-note").textContent = "A missing value (?) goes down every branch of the split that " +
      "needs it, weighted by the branch's share of the training rows, and the leaves' predictions " +
      "are added up: C4.5's fractional instances, as Arbor's predict does for every algorithm.";
  }
  function readRow() {
    const row = [], bad = [];
    fields.forEach((input, k) => {
      const a = M.attributes[k], text = input.value.trim();
      if (a.nominal) { row.push(text === "" ? NaN : Number(text)); return; }
      if (text === "" || text === "?") { row.push(NaN); return; }
      const v = Number(text);
      if (!Number.isFinite(v)) bad.push(a.name);
      row.push(v);
    });
    return { row: row, bad: bad };
  }
  function showPrediction() {
    const { row, bad } = readRow();
    const error = $("row-error"), result = $("result");
    lit.fill(0);
    result.replaceChildren();
    if (bad.length) {
      error.textContent = "Not a number: " + bad.join(", ") + ". Type a number, or leave the field empty for a missing value.";
      draw(); return;
    }
    error.textContent = "";
    const p = predict(row);
    for (const [i] of p.reached) lit[i] = 1;
    let opened = false;
    for (const [i] of p.reached) for (let j = N.parent[i]; j >= 0; j = N.parent[j]) if (collapsed[j]) { collapsed[j] = 0; opened = true; }
    if (opened) layout();
    const answer = element("div", M.target + " = " + (M.regression ? num(p.label) : p.label), "answer");
    answer.id = "prediction";
    answer.dataset.value = M.regression ? String(p.label) : p.label;
    result.append(answer);
    if (!M.regression) {
      const table = element("table");
      table.id = "probabilities";
      p.probabilities.forEach((v, k) => {
        const tr = element("tr");
        const name = element("td");
        const sw = element("span", undefined, "swatch"); sw.style.background = M.colours[k];
        name.append(sw, document.createTextNode(" " + M.classes[k]));
        const cell = element("td", (100 * v).toFixed(1) + "%", "p");
        cell.dataset.p = String(v);
        tr.append(name, cell);
        table.append(tr);
      });
      result.append(table);
    }
    const leavesReached = p.reached.filter(([i]) => !children[i].length).length;
    result.append(element("p", leavesReached === 1 ? "The row reaches one leaf." :
      "The row reaches " + leavesReached + " leaves (a value the path needs is missing).", "note"));
    draw();
  }
  function toggleForm() { $("form-panel").classList.toggle("hidden"); resize(); }
  $("toggle-form").addEventListener("click", toggleForm);
  $("row-form").addEventListener("submit", (e) => { e.preventDefault(); showPrediction(); });
  $("clear-row").addEventListener("click", () => {
    fields.forEach((f) => { f.value = ""; });
    lit.fill(0); $("result").replaceChildren(); $("row-error").textContent = ""; draw();
  });

  // ---------------------------------------------------------------- legend, title, start
  function legend() {
    const box = $("legend");
    if (!M.regression && M.labels.bar) {
      box.append(element("div", M.target, "title"));
      M.classes.forEach((c, k) => {
        const row = element("div", undefined, "entry");
        const sw = element("span", undefined, "swatch"); sw.style.background = M.colours[k];
        row.append(sw, element("span", c));
        box.append(row);
      });
    }
    if (N.dashed.some((d) => d)) {
      const row = element("div", undefined, "entry");
      row.append(element("span", undefined, "swatch dashed"), element("span", "pruned here"));
      box.append(row);
    }
  }
  $("title").textContent = (M.regression ? "Regression tree: " : "Decision tree: ") + M.target;
  const stats = $("stats");
  stats.textContent = count + (count === 1 ? " node · " : " nodes · ") + leaves +
    (leaves === 1 ? " leaf · depth " : " leaves · depth ") + maxDepth;
  stats.dataset.nodes = String(count);
  stats.dataset.leaves = String(leaves);
  legend();
  buildForm();
  // A big tree opens to the levels that fit about 255 boxes (Levels and Expand all show the rest).
  const perDepth = new Int32Array(maxDepth + 1);
  for (let i = 0; i < count; i++) perDepth[depth[i]]++;
  let levels = 0;
  for (let total = 0; levels <= maxDepth && total + perDepth[levels] <= 255; levels++) total += perDepth[levels];
  if (levels <= maxDepth) {
    levels = Math.max(levels, 1);
    for (let i = 0; i < count; i++) collapsed[i] = depth[i] >= levels - 1 && children[i].length ? 1 : 0;
    depthBox.value = String(levels);
  }
  layout();
  window.addEventListener("resize", resize);
  resize();
  fit();
  // For scripts driving the page (and its tests): the same routing the form uses.
  window.arbor = { predict: predict, nodes: count, shown: () => shown.length, collapse: toLevels,
    // where node ``row`` (pre-order) is drawn, in pixels from the canvas's top left
    place: (row) => [X[row] * view.scale + view.x, Y[row] * view.scale + view.y] };
})();
