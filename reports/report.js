// perfdiff HTML report: a sortable, filterable table rendered lazily, a
// differential flame graph in inline SVG (inverted on request), callers
// and callees of the top regressions and of any function clicked. Everything comes from the JSON in #data; no network access.
"use strict";
(function () {
  var D = JSON.parse(document.getElementById("data").textContent);
  var F = D.functions; // [name, module, sv, sb, sc, sd, sp, sr, slo, shi, sq, sm, tv, tb, tc, tp, un]
  var unitScale = D.unit === "ns" ? 1e-6 : 1, unitName = D.unit === "ns" ? "ms" : D.unit;

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function num(v, d) { return v === null || v === undefined ? "n/a" : (v * unitScale).toFixed(d === undefined ? 3 : d); }
  function pct(v) { return v === null || v === undefined ? "n/a" : (v >= 0 ? "+" : "") + v.toFixed(1) + " %"; }
  function ratio(r, lo, hi) { return r === null ? "n/a" : r.toFixed(2) + " (" + lo.toFixed(2) + "…" + hi.toFixed(2) + ")"; }
  function qfmt(q) { return q === null ? "–" : (q < 1e-4 ? q.toExponential(0) : q.toFixed(4)); }

  // ---- table ----
  var cols = { name: 0, module: 1, sv: 2, sb: 3, sc: 4, sd: 5, sp: 6, sr: 7, sq: 10, sm: 11, tv: 12, tb: 13, tc: 14, tp: 15, un: 16 };
  var rank = { regressed: 0, added: 1, improved: 2, removed: 3, inconclusive: 4, same: 5 };
  var order = F.map(function (f, i) { return i; });
  var sortKey = "sd", sortAsc = false, shown = 200;
  var tbody = document.querySelector("#functions tbody");

  function cmp(a, b) {
    var c = cols[sortKey], x = F[a][c], y = F[b][c];
    if (sortKey === "sv" || sortKey === "tv") { x = rank[x]; y = rank[y]; }
    if (x === null) x = -Infinity;
    if (y === null) y = -Infinity;
    var r = x < y ? -1 : x > y ? 1 : 0;
    return sortAsc ? r : -r;
  }
  function visible() {
    var q = document.getElementById("filter").value.toLowerCase();
    var v = document.getElementById("verdict-filter").value;
    return order.filter(function (i) {
      var f = F[i];
      return (!q || f[0].toLowerCase().indexOf(q) >= 0 || f[1].toLowerCase().indexOf(q) >= 0) &&
        (!v || f[2] === v || f[12] === v);
    });
  }
  function render() {
    var rows = visible(), html = [];
    for (var k = 0; k < rows.length && k < shown; k++) {
      var f = F[rows[k]];
      html.push("<tr data-f=\"" + rows[k] + "\"><td class=fn>" + esc(f[0]) + "</td><td>" + esc(f[1]) + "</td>" +
        "<td class=" + f[2] + ">" + f[2] + "</td><td class=n>" + num(f[3]) + "</td><td class=n>" + num(f[4]) +
        "</td><td class=n>" + num(f[5]) + "</td><td class=n>" + pct(f[6]) + "</td><td class=n>" + ratio(f[7], f[8], f[9]) +
        "</td><td class=n>" + qfmt(f[10]) + "</td><td class=n>" + (f[11] === null ? "n/a" : f[11].toFixed(0) + " %") +
        "</td><td class=" + f[12] + ">" + f[12] + "</td><td class=n>" + num(f[13]) + "</td><td class=n>" + num(f[14]) +
        "</td><td class=n>" + pct(f[15]) + "</td><td>" + (f[16] ? "yes" : "") + "</td></tr>");
    }
    tbody.innerHTML = html.join("");
    // "20 of 122 functions", and how many match when a filter is set
    document.getElementById("count").textContent = Math.min(shown, rows.length) + " of " + order.length +
      " functions" + (rows.length < order.length ? " (" + rows.length + " match)" : "");
    document.getElementById("more").hidden = rows.length <= shown;
  }
  function sortBy(key) {
    if (sortKey === key) sortAsc = !sortAsc; else { sortKey = key; sortAsc = key === "name" || key === "module"; }
    order.sort(cmp);
    document.querySelectorAll("#functions th").forEach(function (th) {
      th.classList.toggle("sorted", th.dataset.k === sortKey);
      th.classList.toggle("asc", th.dataset.k === sortKey && sortAsc);
    });
    render();
  }
  document.querySelectorAll("#functions th").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th.dataset.k); });
  });
  document.getElementById("filter").addEventListener("input", render);
  document.getElementById("verdict-filter").addEventListener("change", render);
  document.getElementById("more").addEventListener("click", function () { shown += 1000; render(); });
  // regressions first: by self delta, largest first
  order.sort(function (a, b) { return (F[b][5] || 0) - (F[a][5] || 0); });
  render();

  // ---- flame graphs ----
  // A tree is {names, nodes: [[parent, nameIdx, base, cand, fnIdx], ...]};
  // node i is id i + 1, 0 is the root, parents come before children, and
  // base/cand are a node's own weight.
  var T0 = D.flame, size = "cand", search = "", H = 17;
  function colour(nd) {
    var f = nd[4] >= 0 ? F[nd[4]] : null;
    if (!f) return "#c8c8c8";
    var p = Math.min(1, Math.abs(f[6] || 0) / 50), s = Math.round(35 + 55 * p);
    if (f[2] === "regressed" || f[2] === "added") return "hsl(0," + s + "%,60%)";
    if (f[2] === "improved" || f[2] === "removed") return "hsl(222," + s + "%,62%)";
    return "#c8c8c8";
  }
  // A tree's children and inclusive weights (a node's own plus all below).
  function shape(T) {
    var N = T.nodes.length, kids = [], i;
    var incl = { base: new Float64Array(N + 1), cand: new Float64Array(N + 1) };
    for (i = 0; i <= N; i++) kids.push([]);
    for (i = 0; i < N; i++) kids[T.nodes[i][0]].push(i + 1);
    for (i = N; i >= 1; i--) {
      var nd = T.nodes[i - 1];
      incl.base[i] += nd[2]; incl.cand[i] += nd[3];
      incl.base[nd[0]] += incl.base[i]; incl.cand[nd[0]] += incl.cand[i];
    }
    return { kids: kids, incl: incl };
  }
  var shape0 = null; // the report's own tree's, made once when first needed
  function mainShape() { return shape0 || (shape0 = shape(T0)); }
  // One drawn graph: its tree, children, inclusive weights and zoom.
  function Flame(el) {
    var g = { el: el, T: null, N: 0, kids: null, incl: null, zoom: 0 };
    g.set = function (tree) {
      var sh = tree === T0 ? mainShape() : shape(tree);
      g.T = tree; g.N = tree.nodes.length; g.kids = sh.kids; g.incl = sh.incl; g.zoom = 0;
    };
    g.draw = function () {
      var T = g.T, incl = g.incl, w = incl[size], total = w[g.zoom] || 1, rects = [], maxd = 0;
      var W = Math.max(600, el.clientWidth || 1000);
      function walk(id, x, depth) {
        var width = w[id] / total * W;
        if (width < 1 && id !== g.zoom) return; // below a pixel: merged into the parent
        if (id !== 0) {
          var nd = T.nodes[id - 1], name = T.names[nd[1]];
          var hit = search && name.toLowerCase().indexOf(search) >= 0;
          // new: nothing under this frame in the baseline
          var cls = (incl.base[id] === 0 && size === "cand" ? "new" : "") + (hit ? " hit" : "");
          var tip = name + "\nbaseline " + num(incl.base[id]) + " " + unitName + ", candidate " + num(incl.cand[id]) +
            " " + unitName + ", Δ " + num(incl.cand[id] - incl.base[id]) + " " + unitName;
          rects.push('<g data-id="' + id + '" tabindex="0"><rect x="' + x.toFixed(1) + '" y="' + (depth * H) + '" width="' +
            Math.max(width - 0.5, 0.5).toFixed(1) + '" height="' + (H - 1) + '" fill="' + colour(nd) + '" class="' + cls +
            '"><title>' + esc(tip) + "</title></rect>" + (width > 40 ? '<text x="' + (x + 3).toFixed(1) + '" y="' +
            (depth * H + 12) + '">' + esc(name.length * 7 > width ? name.slice(0, Math.floor(width / 7) - 1) + "…" : name) +
            "</text>" : "") + "</g>");
          if (depth > maxd) maxd = depth;
        }
        var cx = x;
        g.kids[id].forEach(function (k) {
          walk(k, cx, id === g.zoom && id !== 0 ? depth + 1 : depth + (id === 0 ? 0 : 1));
          cx += w[k] / total * W;
        });
      }
      // the ancestors of a zoomed frame are not drawn: it spans the width
      walk(g.zoom, 0, 0);
      el.innerHTML = '<svg xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + ((maxd + 2) * H) + '">' +
        rects.join("") + "</svg>";
    };
    el.addEventListener("click", function (e) {
      var t = e.target.closest("g[data-id]");
      if (t) { g.zoom = +t.dataset.id; g.draw(); }
    });
    // keyboard: Tab moves between frames, Enter zooms into one
    el.addEventListener("keydown", function (e) {
      var t = e.target.closest("g[data-id]");
      if (t && e.key === "Enter") { g.zoom = +t.dataset.id; g.draw(); }
    });
    return g;
  }
  // Merges into dst (a node list) under parent at the path of names and
  // functions given by step, adding weights at its end; returns its id.
  function place(dst, child, at, nd) {
    var key = nd[1] + ":" + nd[4], next = child[at].get(key);
    if (next === undefined) {
      dst.push([at, nd[1], 0, 0, nd[4]]);
      next = dst.length;
      child.push(new Map());
      child[at].set(key, next);
    }
    return next;
  }
  // The inverted (bottom-up) tree: each frame's own time at the top,
  // under it the callers that led there, merged by name; a frame's width
  // is then the time spent in it through that chain of callers.
  function invert(src) {
    var nodes = [], child = [new Map()], n = src.nodes.length;
    for (var i = 1; i <= n; i++) {
      var own = src.nodes[i - 1], at = 0;
      if (!own[2] && !own[3]) continue;
      for (var j = i; j !== 0; j = src.nodes[j - 1][0]) at = place(nodes, child, at, src.nodes[j - 1]);
      nodes[at - 1][2] += own[2]; nodes[at - 1][3] += own[3];
    }
    return { names: src.names, nodes: nodes };
  }
  var main = null, inverted = null, flame = document.getElementById("flame");
  if (!T0 || !T0.nodes.length) {
    document.getElementById("flame-none").hidden = false;
    document.querySelector("#flame-section .controls").hidden = true;
  } else {
    main = Flame(flame);
    main.set(T0);
    var redraw = function () { main.draw(); if (sandwich) { sandwich[0].draw(); sandwich[1].draw(); } };
    document.getElementById("flame-reset").addEventListener("click", function () { main.zoom = 0; main.draw(); });
    document.getElementById("flame-search").addEventListener("input", function (e) { search = e.target.value.toLowerCase(); redraw(); });
    document.querySelectorAll("input[name=size]").forEach(function (r) {
      r.addEventListener("change", function () {
        size = r.value;
        main.zoom = 0;
        if (sandwich) sandwich[0].zoom = sandwich[1].zoom = 0;
        redraw();
      });
    });
    document.getElementById("flame-invert").addEventListener("change", function (e) {
      if (e.target.checked && !inverted) inverted = invert(T0);
      main.set(e.target.checked ? inverted : T0);
      main.draw();
    });
    main.draw();
  }
  var sandwich = null;

  // ---- callers and callees of any function (click a row) ----
  // As perfdiff peek counts them: a call from the function to itself is
  // not an edge; (start) is the top of a stack, (self) its own time.
  function edges(fi) {
    var tree = T0, n = tree.nodes.length, sub = mainShape().incl;
    var callers = new Map(), callees = new Map(), i;
    function add(m, key, b, c) {
      var e = m.get(key) || [0, 0];
      e[0] += b; e[1] += c;
      m.set(key, e);
    }
    function fname(node) {
      var f = tree.nodes[node - 1][4];
      return f >= 0 ? F[f][0] : tree.names[tree.nodes[node - 1][1]];
    }
    for (i = 1; i <= n; i++) {
      var x = tree.nodes[i - 1], f = x[4], pf = x[0] ? tree.nodes[x[0] - 1][4] : -2;
      if (f === fi && pf !== fi) add(callers, x[0] ? fname(x[0]) : "(start)", sub.base[i], sub.cand[i]);
      else if (pf === fi && f !== fi) add(callees, fname(i), sub.base[i], sub.cand[i]);
      if (f === fi) add(callees, "(self)", x[2], x[3]);
    }
    function rows(m) {
      var r = [];
      m.forEach(function (v, k) { r.push([k, v[0], v[1]]); });
      return r.sort(function (a, b) { return Math.abs(b[2] - b[1]) - Math.abs(a[2] - a[1]) || (a[0] < b[0] ? -1 : 1); });
    }
    return { callers: rows(callers), callees: rows(callees) };
  }
  // The sandwich of a function: its callers as an inverted tree and its
  // callees as one tree, each rooted at the function, from its outermost
  // calls (as edges counts them), merged by name.
  function sandwichTrees(fi) {
    var src = T0, n = src.nodes.length, sh = mainShape(), kids0 = sh.kids, i;
    var sub = [sh.incl.base, sh.incl.cand], up = [], upc = [new Map()], down = [], downc = [new Map()];
    for (i = 1; i <= n; i++) {
      var x = src.nodes[i - 1], pf = x[0] ? src.nodes[x[0] - 1][4] : -2, at = 0;
      if (x[4] !== fi || pf === fi) continue;
      for (var j = i; j !== 0; j = src.nodes[j - 1][0]) at = place(up, upc, at, src.nodes[j - 1]);
      up[at - 1][2] += sub[0][i]; up[at - 1][3] += sub[1][i];
      var todo = [[i, place(down, downc, 0, x)]];
      while (todo.length) {
        var t = todo.pop(), o = src.nodes[t[0] - 1];
        down[t[1] - 1][2] += o[2]; down[t[1] - 1][3] += o[3];
        kids0[t[0]].forEach(function (k) { todo.push([k, place(down, downc, t[1], src.nodes[k - 1])]); });
      }
    }
    return [{ names: src.names, nodes: up }, { names: src.names, nodes: down }];
  }
  var bf = document.getElementById("butterfly-body");
  function butterfly(fi) {
    if (!T0 || !T0.nodes.length) { bf.innerHTML = "<p>No stacks for this comparison.</p>"; return null; }
    var e = edges(fi), html = ["<h3>" + esc(F[fi][0]) + " <span class=" + F[fi][2] + ">" + F[fi][2] + " " +
      pct(F[fi][6]) + "</span></h3>"];
    [["callers", e.callers], ["callees", e.callees]].forEach(function (kr) {
      html.push("<table><tr><th>" + kr[0] + "</th><th class=n>baseline " + unitName + "</th><th class=n>candidate " +
        unitName + "</th><th class=n>Δ</th><th class=n>Δ %</th></tr>");
      kr[1].forEach(function (r) {
        html.push("<tr><td>" + esc(r[0]) + "</td><td class=n>" + num(r[1]) + "</td><td class=n>" + num(r[2]) +
          "</td><td class=n>" + num(r[2] - r[1]) + "</td><td class=n>" + (r[1] > 0 ? pct(100 * (r[2] - r[1]) / r[1]) : "new") +
          "</td></tr>");
      });
      if (!kr[1].length) html.push("<tr><td colspan=5>none</td></tr>");
      html.push("</table>");
    });
    html.push('<h4>Sandwich</h4><p class="legend">The function at the top; below it, who called it (each' +
      " chain of callers up to the start):</p><div id=\"sw-up\" class=\"flame\"></div>" +
      '<p class="legend">The function at the top; below it, what it called:</p>' +
      '<div id="sw-down" class="flame"></div>');
    bf.innerHTML = html.join("");
    var trees = sandwichTrees(fi);
    sandwich = [Flame(document.getElementById("sw-up")), Flame(document.getElementById("sw-down"))];
    sandwich[0].set(trees[0]);
    sandwich[1].set(trees[1]);
    sandwich[0].draw();
    sandwich[1].draw();
    return e;
  }
  tbody.addEventListener("click", function (ev) {
    var tr = ev.target.closest("tr[data-f]");
    if (tr) { butterfly(+tr.dataset.f); document.getElementById("butterfly").scrollIntoView(); }
  });
  if (order.length) butterfly(order[0]);

  // ---- keyboard ----
  // "/" searches the frames, Escape resets the zoom and the search, "i"
  // inverts the graph; j/k (or the arrows) move through the table's rows
  // and Enter shows the callers and callees of the row marked.
  var cursor = -1;
  function mark(r) {
    var rows = tbody.rows;
    if (!rows.length) return;
    if (cursor >= 0 && rows[cursor]) rows[cursor].classList.remove("cursor");
    cursor = Math.max(0, Math.min(rows.length - 1, r));
    rows[cursor].classList.add("cursor");
    rows[cursor].scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("keydown", function (e) {
    var tag = (e.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "select" || tag === "textarea") {
      if (e.key === "Escape") e.target.blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var search = document.getElementById("flame-search"), inv = document.getElementById("flame-invert");
    if (e.key === "/" && main) { e.preventDefault(); search.focus(); }
    else if (e.key === "Escape" && main) {
      search.value = "";
      search.dispatchEvent(new Event("input"));
      main.zoom = 0;
      main.draw();
    } else if (e.key === "i" && main) { inv.checked = !inv.checked; inv.dispatchEvent(new Event("change")); }
    else if (e.key === "j" || e.key === "ArrowDown") { if (tbody.rows.length) { e.preventDefault(); mark(cursor + 1); } }
    else if (e.key === "k" || e.key === "ArrowUp") { if (tbody.rows.length) { e.preventDefault(); mark(cursor - 1); } }
    else if (e.key === "Enter" && cursor >= 0 && tbody.rows[cursor] &&
             !(e.target.closest && e.target.closest("g[data-id]")))
      tbody.rows[cursor].click();
  });

  // ---- callers and callees of the top regressions ----
  var wb = document.getElementById("where-body"), out = [];
  (D.where || []).forEach(function (w) {
    out.push("<h3>" + esc(F[w.f][0]) + ' <span class="regressed">' + pct(F[w.f][6]) + "</span></h3>");
    ["callers", "callees"].forEach(function (kind) {
      if (!w[kind].length) return;
      // a caller's time holds the callee's: its total says what moved;
      // a callee's own (self) time is its own
      var vi = kind === "callers" ? 12 : 2;
      out.push("<table><tr><th>" + kind + "</th><th class=n>baseline " + unitName + "</th><th class=n>candidate " +
        unitName + "</th><th class=n>Δ</th><th>" + (vi === 12 ? "total" : "self") + " verdict</th></tr>");
      w[kind].forEach(function (e) {
        var g = F[e[0]];
        out.push("<tr><td>" + esc(g[0]) + "</td><td class=n>" + num(e[1]) + "</td><td class=n>" + num(e[2]) +
          "</td><td class=n>" + num(e[2] - e[1]) + "</td><td class=" + g[vi] + ">" + g[vi] + "</td></tr>");
      });
      out.push("</table>");
    });
  });
  wb.innerHTML = out.length ? out.join("") : "<p>No function regressed.</p>";

  // A check for the test suite, run only when the URL ends in #selftest:
  // sort by a column through a real click, count the flame graph's frames.
  if (location.hash === "#selftest") {
    var res = { rows: tbody.rows.length }, before = [], after = [];
    for (var r = 0; r < Math.min(5, tbody.rows.length); r++) before.push(tbody.rows[r].cells[0].textContent);
    document.querySelector('#functions th[data-k="name"]').click();
    for (r = 0; r < Math.min(5, tbody.rows.length); r++) after.push(tbody.rows[r].cells[0].textContent);
    res.sorted = before.join("|") !== after.join("|");
    res.ascending = after.slice().sort().join("|") === after.join("|");
    res.rects = document.querySelectorAll("#flame rect").length;
    res.where = document.querySelectorAll("#where table").length;
    // the verdict column of each table: callers' totals, callees' selves
    res.where_verdicts = Array.prototype.map.call(document.querySelectorAll("#where table"), function (t) {
      return t.rows[0].cells[0].textContent + ":" + t.rows[0].cells[4].textContent;
    });
    // the inverted view: its top frames are the frames with own time
    var inv = document.getElementById("flame-invert");
    if (inv && T0 && T0.nodes.length && T0.nodes.length <= 1000) {
      inv.checked = true;
      inv.dispatchEvent(new Event("change"));
      res.inv_rects = document.querySelectorAll("#flame rect").length;
      var top = new Set();
      main.kids[0].forEach(function (k) { top.add(main.T.names[main.T.nodes[k - 1][1]]); });
      res.inv_top = Array.from(top).sort();
      res.inv_total = [main.incl.base[0], main.incl.cand[0]];
      inv.checked = false;
      inv.dispatchEvent(new Event("change"));
      res.flat_total = [main.incl.base[0], main.incl.cand[0]];
      res.own = [];
      T0.nodes.forEach(function (nd) { if (nd[2] || nd[3]) res.own.push(T0.names[nd[1]]); });
      res.own = Array.from(new Set(res.own)).sort();
    }
    // the keyboard: i inverts, Escape resets; j j Enter shows the callers
    // and callees of the second row; a click on a frame zooms into it
    var key = function (k) { document.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true })); };
    if (main) {
      key("i");
      res.key_inverted = document.getElementById("flame-invert").checked;
      key("i");
      var fr = document.querySelector("#flame g[data-id]");
      if (fr) {
        fr.dispatchEvent(new MouseEvent("click", { bubbles: true }));
        res.zoomed = main.zoom === +fr.dataset.id;
        key("Escape");
        res.unzoomed = main.zoom === 0;
      }
    }
    key("j"); key("j"); key("Enter");
    res.key_row = tbody.rows.length > 1 && document.querySelector("#butterfly h3") ?
      document.querySelector("#butterfly h3").textContent.indexOf(F[+tbody.rows[1].dataset.f][0]) === 0 : null;
    // callers and callees of the top regression (else the first row),
    // chosen by a click on its row
    var pick = tbody.rows[0];
    for (r = 0; r < tbody.rows.length; r++)
      if (D.where && D.where.length && +tbody.rows[r].dataset.f === D.where[0].f) pick = tbody.rows[r];
    pick.click();
    res.butterfly_of = document.querySelector("#butterfly h3") ? F[+pick.dataset.f][0] : null;
    res.butterfly = res.butterfly_of ? edges(+pick.dataset.f) : null;
    // the sandwich: both halves rooted at the function, as wide as its
    // outermost calls' time; the callers' second row and the callees'
    // second row as names with their candidate weights
    if (sandwich) {
      res.sandwich = sandwich.map(function (g) {
        var rows = [];
        g.kids[0].forEach(function (r) {
          var row = [g.T.names[g.T.nodes[r - 1][1]], g.incl.base[r], g.incl.cand[r], []];
          g.kids[r].forEach(function (k) { row[3].push([g.T.names[g.T.nodes[k - 1][1]], g.incl.base[k], g.incl.cand[k]]); });
          row[3].sort();
          rows.push(row);
        });
        return rows;
      });
      res.sandwich_rects = document.querySelectorAll("#sw-up rect, #sw-down rect").length;
    }
    var filter = document.getElementById("filter");
    filter.value = F[order[0]][0];
    filter.dispatchEvent(new Event("input"));
    res.count = document.getElementById("count").textContent;
    res.total = order.length;
    filter.value = "";
    filter.dispatchEvent(new Event("input"));
    var pre = document.createElement("pre");
    pre.id = "selftest";
    pre.textContent = "SELFTEST " + JSON.stringify(res);
    document.body.appendChild(pre);
  }
})();
