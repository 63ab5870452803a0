// The arena report's script: sortable tables, the match list, live reload when served.
// Hand-written, no libraries; data comes from globals set by data/*.js (fetch() of file:// is refused).
// Every text from the results goes in with textContent, never as HTML.
"use strict";

(function () {
  // ---------------------------------------------------------------- the fragment: #bot=x&sort=k&desc=1&page=2
  function hashParams() { return new URLSearchParams(location.hash.replace(/^#/, "")); }
  function setHash(params) {
    var text = params.toString();
    history.replaceState(null, "", text ? "#" + text : location.pathname + location.search);
  }

  function compare(a, b, numeric) {
    if (a === b) return 0;
    if (a === "" || a === null || a === undefined) return 1;   // nothing sorts last
    if (b === "" || b === null || b === undefined) return -1;
    if (numeric) return Number(a) - Number(b);
    return String(a).localeCompare(String(b));
  }

  // ---------------------------------------------------------------- static tables: <table class="sortable">
  function sortable(table, tableIndex) {
    var heads = table.tHead.rows[0].cells;
    var body = table.tBodies[0];
    function sortBy(col, desc) {
      var numeric = heads[col].getAttribute("data-type") === "num";
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (r1, r2) {
        var a = r1.cells[col].getAttribute("data-v"), b = r2.cells[col].getAttribute("data-v");
        var c = compare(a, b, numeric);
        return desc && a !== "" && b !== "" ? -c : c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
      for (var i = 0; i < heads.length; i++) heads[i].className = i === col ? (desc ? "desc" : "asc") : "";
    }
    Array.prototype.forEach.call(heads, function (th, col) {
      th.addEventListener("click", function () {
        var desc = th.className === "asc";
        sortBy(col, desc);
        var p = hashParams();
        p.set("sort" + tableIndex, col); p.set("desc" + tableIndex, desc ? "1" : "0");
        setHash(p);
      });
    });
    var p = hashParams();
    if (p.has("sort" + tableIndex)) {
      var col = Number(p.get("sort" + tableIndex));
      if (col >= 0 && col < heads.length) sortBy(col, p.get("desc" + tableIndex) === "1");
    }
  }

  // ---------------------------------------------------------------- the match list (matches.html)
  var PAGE = 100;

  function link(text, href, bold) {
    var a = document.createElement("a");
    a.href = href; a.textContent = text;
    if (bold) a.className = "self";
    return a;
  }
  function cell(tr, content) {
    var td = document.createElement("td");
    if (typeof content === "string" || typeof content === "number") td.textContent = content;
    else content.forEach(function (node) { td.appendChild(typeof node === "string" ? document.createTextNode(node) : node); });
    tr.appendChild(td);
  }

  // A match's row as the match list and a bot page's latest matches show it: its number, its id opening the
  // viewer, each seat's bot opening that seat's view (``bold``: this bot's name in bold), place and total, the end.
  function matchRow(r, cols, root, bold) {
    var tr = document.createElement("tr");
    var index = r[cols.index];
    var viewer = root + "viewer.html#match=" + index;
    var forfeited = r[cols.forfeited] || [];
    cell(tr, index);
    cell(tr, [link(r[cols.id], viewer)]);
    var seats = [];
    r[cols.bots].forEach(function (bot, seat) {
      if (seat) seats.push(", ");
      seats.push(link(bot, viewer + "&seat=" + seat, bot === bold));
      seats.push(" (" + r[cols.places][seat] + ", " + r[cols.totals][seat] + (forfeited[seat] ? ", forfeited" : "") + ")");
    });
    cell(tr, seats);
    cell(tr, r[cols.reason]);
    return tr;
  }

  function columnsOf(data) {
    var cols = {};
    data.columns.forEach(function (name, i) { cols[name] = i; });
    return cols;
  }

  // ---------------------------------------------------------------- a bot page's latest matches
  // The rows are a JSON data block beside the table (a fifth of the bytes of the rows as HTML, on a page of
  // each bot of a report), drawn by the match list's own row.
  function latestMatches(table) {
    var block = document.getElementById("latest-rows");
    if (!block) return;
    var data = JSON.parse(block.textContent);
    var cols = columnsOf(data);
    var root = document.body.getAttribute("data-root") || "";
    var bot = table.getAttribute("data-bot");
    var body = table.tBodies[0];
    data.rows.forEach(function (r) {
      var tr = matchRow(r, cols, root, bot);
      cell(tr, r[cols.faults]);
      body.appendChild(tr);
    });
  }

  function matchList(table, data) {
    var cols = columnsOf(data);
    var all = data.rows;
    var select = document.getElementById("bot-filter");
    var count = document.getElementById("match-count");
    var pager = document.getElementById("pager");
    var heads = table.tHead.rows[0].cells;
    var root = document.body.getAttribute("data-root") || "";
    var state = { bot: "", sort: "index", desc: true, page: 0 };

    function readHash() {
      var p = hashParams();
      state.bot = p.get("bot") || "";
      state.sort = cols.hasOwnProperty(p.get("sort")) ? p.get("sort") : "index";
      state.desc = p.has("desc") ? p.get("desc") === "1" : true;
      state.page = Math.max(0, Number(p.get("page")) || 0);
      if (state.bot && !Array.prototype.some.call(select.options, function (o) { return o.value === state.bot; })) {
        var option = document.createElement("option");
        option.value = option.textContent = state.bot;
        select.appendChild(option);
      }
      select.value = state.bot;
    }
    function writeHash() {
      var p = new URLSearchParams();
      if (state.bot) p.set("bot", state.bot);
      p.set("sort", state.sort); p.set("desc", state.desc ? "1" : "0");
      if (state.page) p.set("page", state.page);
      setHash(p);
    }
    function ascending(rows) {
      for (var i = 1; i < rows.length; i++) if (!(rows[i - 1][cols.index] < rows[i][cols.index])) return false;
      return true;
    }
    function key(row) {
      var v = row[cols[state.sort]];
      return Array.isArray(v) ? v.join(" ") : v;
    }
    function render() {
      var rows = state.bot ? all.filter(function (r) { return r[cols.bots].indexOf(state.bot) >= 0; }) : all.slice();
      var numeric = ["index", "decisions", "seconds", "faults", "finished_at"].indexOf(state.sort) >= 0;
      if (state.sort === "index" && ascending(rows)) {  // as listed: a ladder's 100,000 need no sort
        if (state.desc) rows.reverse();
      } else {
        rows.sort(function (a, b) {
          var c = compare(key(a), key(b), numeric);
          if (c === 0) c = a[cols.index] - b[cols.index];
          return state.desc ? -c : c;
        });
      }
      var pages = Math.max(1, Math.ceil(rows.length / PAGE));
      if (state.page >= pages) state.page = pages - 1;
      var body = document.createElement("tbody");
      rows.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (r) {
        var tr = matchRow(r, cols, root, state.bot);
        cell(tr, r[cols.decisions]);
        cell(tr, r[cols.seconds] === null ? "-" : Number(r[cols.seconds]).toFixed(2));
        cell(tr, r[cols.faults]);
        body.appendChild(tr);
      });
      table.replaceChild(body, table.tBodies[0]);
      count.textContent = rows.length + (rows.length === 1 ? " match" : " matches") + (state.bot ? " of " + state.bot : "");
      while (pager.firstChild) pager.removeChild(pager.firstChild);
      if (pages > 1) {
        var prev = document.createElement("button"), next = document.createElement("button");
        prev.textContent = "‹ newer"; next.textContent = "older ›";
        if (!state.desc || state.sort !== "index") { prev.textContent = "‹ previous"; next.textContent = "next ›"; }
        prev.disabled = state.page === 0; next.disabled = state.page >= pages - 1;
        prev.onclick = function () { state.page--; writeHash(); render(); };
        next.onclick = function () { state.page++; writeHash(); render(); };
        pager.appendChild(prev);
        pager.appendChild(document.createTextNode(" page " + (state.page + 1) + " of " + pages + " "));
        pager.appendChild(next);
      }
      for (var i = 0; i < heads.length; i++) {
        heads[i].className = heads[i].getAttribute("data-key") === state.sort ? (state.desc ? "desc" : "asc") : "";
      }
    }
    Array.prototype.forEach.call(heads, function (th) {
      th.addEventListener("click", function () {
        var k = th.getAttribute("data-key");
        state.desc = state.sort === k ? !state.desc : k !== "id" && k !== "bots" && k !== "reason";
        state.sort = k; state.page = 0;
        writeHash(); render();
      });
    });
    select.addEventListener("change", function () { state.bot = select.value; state.page = 0; writeHash(); render(); });
    window.addEventListener("hashchange", function () { readHash(); render(); });
    readHash();
    render();
  }

  // The match list comes in chunks of match indices, each from a data/matches-<k>.js of its own (so that a rebuild
  // writes only the chunks that changed); the table names them in order (data-chunks="0 1 2").
  function joinChunks(table) {
    var list = { columns: [], rows: [] };
    (table.getAttribute("data-chunks") || "").split(" ").forEach(function (k) {
      var chunk = k === "" ? null : window["ARENA_MATCH_LIST_" + k];
      if (!chunk) return;
      list.columns = chunk.columns;
      for (var i = 0; i < chunk.rows.length; i++) list.rows.push(chunk.rows[i]);
    });
    return list;
  }

  // ---------------------------------------------------------------- live: served over http, reload on a new report
  // What a reload would lose is kept for the page that replaces this one (sessionStorage, this tab only):
  // the scroll position and the opened entries (<details> whose <summary data-key> names them); the sort and
  // filter are in the address.
  var KEPT = "arena-report-kept";

  function keep() {
    var open = Array.prototype.map.call(document.querySelectorAll("details[open] > summary[data-key]"),
      function (s) { return s.getAttribute("data-key"); });
    try {
      sessionStorage.setItem(KEPT, JSON.stringify({ path: location.pathname, x: window.scrollX, y: window.scrollY,
        open: open }));
    } catch (e) { /* storage refused (private mode, full): the reload starts at the top */ }
  }

  function restore() {
    var kept = null;
    try {
      kept = JSON.parse(sessionStorage.getItem(KEPT) || "null");
      sessionStorage.removeItem(KEPT);
    } catch (e) { return; }
    if ("scrollRestoration" in history) history.scrollRestoration = "auto";  // a reload of the reader's own: as usual
    if (!kept || kept.path !== location.pathname) return;
    var open = {};
    (Array.isArray(kept.open) ? kept.open : []).forEach(function (k) { open[k] = true; });
    Array.prototype.forEach.call(document.querySelectorAll("details > summary[data-key]"), function (s) {
      if (open[s.getAttribute("data-key")] === true) s.parentNode.open = true;
    });
    window.scrollTo(Number(kept.x) || 0, Number(kept.y) || 0);
  }

  // A bot page leaves out the header facts that change with every match (so that a rebuild need not write it
  // again when its bot did not play): they and the report's version are in data/summary.js.
  function summary() {
    var facts = window.ARENA_SUMMARY;
    if (!facts) return;
    Array.prototype.forEach.call(document.querySelectorAll("[data-summary]"), function (span) {
      var value = facts[span.getAttribute("data-summary")];
      if (value !== undefined) span.textContent = String(value);
    });
  }

  function live() {
    if (!/^https?:$/.test(location.protocol)) return;
    var meta = document.querySelector('meta[name="arena-version"]');
    var mine = meta ? meta.getAttribute("content") : (window.ARENA_SUMMARY || {}).version;
    if (!mine) return;
    var root = document.body.getAttribute("data-root") || "";
    setInterval(function () {
      fetch(root + "version.json", { cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (v) {
          if (!v || !v.version || v.version === mine) return;
          keep();
          if ("scrollRestoration" in history) history.scrollRestoration = "manual";  // restore() does it, once built
          location.reload();
        })
        .catch(function () {});
    }, 5000);
  }

  document.addEventListener("DOMContentLoaded", function () {
    summary();
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);
    var matches = document.getElementById("matches");
    if (matches) matchList(matches, joinChunks(matches));
    var latest = document.getElementById("latest");
    if (latest) latestMatches(latest);
    if (/^https?:$/.test(location.protocol)) restore();
    live();
  });
})();
