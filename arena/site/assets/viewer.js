/* The replay viewer of the Cabo arena (hand-written, no library).
 *
 * It draws the frames arena/site/frames.py wrote and derives nothing about cards: a seat's
 * view is the one the arena computed with the functions that build what a bot is sent (the frames
 * write it against the true hands, and decode() writes it out again; arena/game/cabo_frames.py).
 * URL: viewer.html#match=<idx>&seat=<all|n>&step=<k>, or &decision=<d> instead of the step: the step
 * showing the fault of that decision (the report numbers faults so). Replays load on demand, a block of
 * matches at a time, from replays/b<k>.js (a script setting window.ARENA_BLOCK: file:// pages may not
 * fetch()); its frames are compressed (raw DEFLATE, base85, continuing the dictionary of replays/packing.js)
 * and inflated here by the browser's own
 * DecompressionStream, then parsed: nothing in them is computed here but bookkeeping (fields carried
 * forward, a hand's value as the sum of its cards' values, names put in for seat marks).
 * A game it has no drawing for (frames of arena/game/plain.py) is shown as text: each seat's view is
 * the JSON its bot was sent, the omniscient view the step's events.
 */
(function () {
  "use strict";

  var TABLE_KEYS = ["r", "ph", "tm", "w", "st", "dl", "cabo", "h", "d", "dn", "dk", "held", "hs", "hf", "lk",
    "tot", "ro", "ff", "hv"];
  var SEAT_MARKS = /[\ue000-\uf8ff]/g;  // a text's seat marks: U+E000 + s is seat s's name
  var FRENCH = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var FRENCH_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  var FRENCH_RANKS = { A: "ace", T: "ten", J: "jack", Q: "queen", K: "king" };
  var SPANISH_NAMES = { O: "oros", C: "copas", E: "espadas", B: "bastos" };
  var SPANISH_RANKS = { "1": "as", S: "sota", C: "caballo", R: "rey" };
  var SPANISH_SVG = {
    O: '<svg viewBox="0 0 20 20" aria-hidden="true"><circle cx="10" cy="10" r="8.5" fill="currentColor"/>' +
       '<circle cx="10" cy="10" r="4.5" fill="none" stroke="#fff" stroke-width="1.6"/></svg>',
    C: '<svg viewBox="0 0 20 20" aria-hidden="true"><path d="M3 3h14c0 5-3 8-5.5 8.5V15H15v2H5v-2h3.5v-3.5C6 11 3 8 3 3z" ' +
       'fill="currentColor"/></svg>',
    E: '<svg viewBox="0 0 20 20" aria-hidden="true"><path d="M10 1l2 3v9h-4V4z" fill="currentColor"/>' +
       '<rect x="5" y="13" width="10" height="2" fill="currentColor"/><rect x="9" y="15" width="2" height="4" ' +
       'fill="currentColor"/></svg>',
    B: '<svg viewBox="0 0 20 20" aria-hidden="true"><path d="M8 19l1-12c-2-1-2.5-3.5-1-5s4-1.5 5 .5-1 4-2 4.5L10 19z" ' +
       'fill="currentColor"/></svg>'
  };
  var POSITIONS = { 2: ["b", "t"], 3: ["b", "tl", "tr"], 4: ["b", "l", "t", "r"], 5: ["b", "l", "tl", "tr", "r"] };
  var PHASES = { look_initial: "initial look", turn: "turn", drawn: "holding a card", rey: "Rey: place or discard",
    claim: "claim window", over: "match over" };
  var KINDS = { deal: "deal", play: "", end: "end of the round", reveal: "round scored: every card shown" };
  var PLAIN = "arena-viewer-plain/1";  // frames of a game without a drawing here
  var BLOCK = 128;  // matches a block file holds: BLOCK of arena/site/blocks.py (a test holds them equal)
  var SLOWEST = 5;  // slow decisions marked in a match: SLOWEST of arena/game/cabo_frames.py (a test holds them equal)

  var el = function (id) { return document.getElementById(id); };
  var cache = {};           // decoded frames by match
  var blocks = {};          // block number -> promise of its matches' lines
  var stamp = "";
  var listLoaded = false;   // replays/index.js read (the menu and the finder wait for it)
  var settled = null;       // what waits for the first match to be shown (see start)           // served live: the report's version, so that a block is not taken from the cache
  var matches = [];
  var replay = null;        // the decoded frames of the match shown
  var view = { match: null, seat: "all", step: 0 };
  var logFor = null;        // "<match>/<seat>": the log pane's content
  var logEntries = [];      // [step, element]
  var timer = null;
  var loading = null;

  // ------------------------------------------------------------------ data

  function unpack(packed) {
    return packed.split("|").map(function (seat) {
      var out = [];
      for (var i = 0; i < seat.length; i += 2) {
        var code = seat.substr(i, 2);
        out.push(code === "--" ? null : code === "??" ? "?" : code);
      }
      return out;
    });
  }

  /* A seat view's cells (arena/game/cabo_frames.py, ``v``): whole, or "~" and the slots changed since
   * ``before``. A cell: "+" (the true card), "?", "-" or a card code. */
  function cellsOf(text, before) {
    var out, src = text, i = 0;
    function cell() {
      var c = src.charAt(i);
      if (c === "+" || c === "?" || c === "-") { i += 1; return c; }
      i += 2;
      return src.substr(i - 2, 2);
    }
    if (text.charAt(0) === "~") {
      out = before.map(function (hand) { return hand.slice(); });
      i = 1;
      while (i < text.length) {
        var hand = Number(text.charAt(i)), slot = Number(text.charAt(i + 1));
        i += 2;
        out[hand][slot] = cell();
      }
      return out;
    }
    return text.split("|").map(function (part) {
      var row = [];
      src = part;
      i = 0;
      while (i < part.length) { row.push(cell()); }
      return row;
    });
  }

  /* A seat's hands from its cells and the true hands of the step. */
  function seatHands(cells, truth) {
    return cells.map(function (hand, s) {
      return hand.map(function (c, slot) {
        return c === "+" ? truth[s][slot] : c === "?" ? "?" : c === "-" ? null : c;
      });
    });
  }

  /* A text with each seat mark written as that seat's name. */
  function named(text, names) {
    return typeof text !== "string" ? text : text.replace(SEAT_MARKS, function (mark) {
      var seat = mark.charCodeAt(0) - 0xe000;
      return names[seat] + "@" + seat;
    });
  }

  function mark(seat) { return String.fromCharCode(0xe000 + seat); }

  /* Slow against the time limit (NEAR of arena/game/cabo_frames.py): half of it or more. */
  function nearLimit(ms, move) { return typeof move === "number" && move > 0 && Number(ms) >= 0.5 * move; }

  function signed(n) { return (n >= 0 ? "+" : "") + n; }

  /* An entry's text that the frames write as a number (arena/game/cabo_frames.py, ``log``): the start or the
   * end of the step's round, or a slow decision (its seat and ms: ``flagged``, this step's next slow time). */
  function writtenOut(entry, step, rounds, flagged, move) {
    var text = entry[1];
    if (typeof text !== "number") { return text; }
    if (entry[0] === "slow") {
      var timed = flagged.shift() || [0, 0];
      var took = mark(timed[0]) + " took " + Number(timed[1]).toFixed(1) + " ms for decision " + text;
      if (nearLimit(timed[1], move)) {
        return "SLOW " + took + ", over half its " + move + " ms, one of the match's " + SLOWEST + " slowest";
      }
      return took + ", one of the match's " + SLOWEST + " slowest" + (move ? ", well within its " + move + " ms" : "");
    }
    if (text === 1) {
      return "Round " + step.r + ": " + mark(step.dl) + " deals, " + mark(step.st) + " starts; discard [" + step.d +
        "], deck " + step.dk;
    }
    var r = rounds[step.ro - 1] || { scores: [], resets: [] };
    return "Round " + r.round + " over (" + r.ended + "): " +
      r.scores.map(function (score, seat) { return mark(seat) + " " + signed(score); }).join(", ") +
      (r.moon !== null && r.moon !== undefined ? "; " + mark(r.moon) + " shot the moon" : "") +
      (r.resets && r.resets.length ? "; reset to 50: " + r.resets.map(mark).join(", ") : "");
  }

  /* A log entry with its texts written out: numbers as their lines, names for marks, a seat's reference (-1-s)
   * as seat s's text. */
  function entryOf(entry, names, step, rounds, flagged, move) {
    var text = writtenOut(entry, step, rounds, flagged, move);
    var out = [entry[0], named(text, names)];
    out.near = entry[0] === "slow" && typeof text === "string" && text.indexOf("SLOW ") === 0;
    if (entry.length > 2) {
      var seen = [];
      entry[2].forEach(function (text, seat) {
        seen[seat] = typeof text === "number" && text < 0 ? seen[-1 - text] : named(text, names);
      });
      out.push(seen);
    }
    return out;
  }

  /* The luck of a step's cards (``lu``, tenths of a point a seat; arena/game/cabo_frames.py): the referee's
   * meter read every hand and the deck to measure it, so the line is omniscient, in no seat's view. */
  function luckEntry(text, names) {
    return ["luck", named(text, names), names.map(function () { return null; })];
  }

  function tenths(n) { return (n >= 0 ? "+" : "") + (n / 10).toFixed(1); }

  /* Each seat's luck, "<seat> +1.2", leaving out ``skip`` and, when ``skip`` is a seat, those at zero. */
  function seatPoints(lu, skip) {
    var out = [];
    lu.forEach(function (n, seat) {
      if (seat !== skip && (skip === null || n !== 0)) { out.push(mark(seat) + " " + tenths(n)); }
    });
    return out.join(", ");
  }

  function luckText(step) {
    if (step.k === "deal") {
      return "luck of the deal, per seat (+: more points than the expected cards, worse): " + seatPoints(step.lu, null);
    }
    if (step.hf === "deck" && step.held && typeof step.hs === "number") {
      var n = step.lu[step.hs], others = seatPoints(step.lu, step.hs);
      return "luck: " + mark(step.hs) + " drew [" + step.held + "]: " + (n === 0 ? "as expected" :
        (Math.abs(n) / 10).toFixed(1) + " points " + (n > 0 ? "worse" : "better") + " than the expected card") +
        (others ? " (and so: " + others + ")" : "");
    }
    return "luck of the cards the deck gave, per seat (+: more points than the expected cards, worse): " +
      seatPoints(step.lu, null);
  }

  /* Expand the frames: carry each table field and the decision number forward, unpack the hands, write each
   * seat's view out from its cells, a hand's value as its cards' values added, names for seat marks. */
  function decode(data) {
    var previous = {};
    var views = [];
    var cells = [];
    var names = data.bots || [];
    data.steps.forEach(function (step, index) {
      if (!("n" in step)) { step.n = index === 0 ? 0 : previous.n + 1; }
      TABLE_KEYS.forEach(function (key) {
        if (!(key in step)) { step[key] = previous[key]; }
      });
      if (typeof step.h === "string") { step.h = unpack(step.h); }
      if (step.h !== previous.h) {
        step.hv = step.h.map(function (hand) {
          return hand.reduce(function (sum, c) { return sum + (c === null ? 0 : data.values[c]); }, 0);
        });
      }
      step.v = step.v.map(function (seatView, seat) {
        if (seatView === 0) { return views[seat]; }
        cells[seat] = cellsOf(seatView[0], cells[seat]);
        views[seat] = { hands: seatHands(cells[seat], step.h), held: seatView[1] === 1 ? step.held : seatView[1] };
        return views[seat];
      });
      var flagged = (step.t || []).filter(function (timed) { return timed[2]; });
      step.log = step.log.map(function (entry) {
        return entryOf(entry, names, step, data.rounds || [], flagged, data.move_ms);
      });
      if (step.lu) { step.log.push(luckEntry(luckText(step), names)); }
      if (index === data.steps.length - 1 && data.result && data.result.luck) {
        step.log.push(luckEntry("luck over the match, per seat (points over the expected cards, +: worse): " +
          seatPoints(data.result.luck, null), names));
      }
      step.hl = step.hl || [];
      step.fb = step.fb || [];
      step.fl = step.fl || [];
      step.index = index;
      previous = step;
    });
    return data;
  }

  // ------------------------------------------------------------------ a game without a drawing

  function decodePlain(data) {
    data.plain = true;
    data.steps.forEach(function (step, index) { step.index = index; });
    return data;
  }

  function plainText(value) { return JSON.stringify(value, null, 2); }

  function plainLine(step) {
    if (!step.action) { return "start: seats asked " + step.asked.join(", "); }
    var text = who(step.action[0]) + ": " + JSON.stringify(step.action[1]);
    if (step.action[2]) { text += " (chosen by the " + step.action[2] + " policy)"; }
    if (step.ms !== null && step.ms !== undefined) { text += " \u00b7 " + step.ms + " ms"; }
    return text;
  }

  /* The step as text: the view of the chosen seat (what its bot was sent) or, omniscient, every event. */
  function drawPlain(step, last) {
    var me = seatOf();
    var table = el("table");
    table.className = "plain";
    table.textContent = "";
    var pre = document.createElement("pre");
    pre.className = "plain-view";
    pre.textContent = plainText(me === null ? { asked: step.asked, events: step.events } : step.views[me]);
    table.appendChild(pre);
    el("status").textContent = replay.game + " \u00b7 step " + step.index + ": " + plainLine(step);
    var res = replay.result;
    el("scores").textContent = last && res ? "Final (" + res.reason + "): " + replay.bots.map(function (bot, s) {
      return who(s) + " " + res.totals[s] + " (place " + res.places[s] + (res.forfeited[s] ? ", forfeited" : "") + ")";
    }).join(" \u00b7 ") : "";
    var key = view.match + "/" + view.seat;
    if (logFor === key) { return; }
    logFor = key;
    var pane = el("log");
    pane.textContent = "";
    logEntries = [];
    replay.steps.forEach(function (st, index) {
      var line = document.createElement("div");
      line.className = "entry" + (st.action && st.action[2] ? " fb" : "");
      line.dataset.step = index;
      line.textContent = plainLine(st);
      line.addEventListener("click", function () { go(index); });
      pane.appendChild(line);
      logEntries.push([index, line]);
    });
  }

  // ------------------------------------------------------------------ cards

  function cardTitle(code, deck) {
    var rank = code.charAt(0), suit = code.charAt(1);
    if (deck === "spanish") {
      return (SPANISH_RANKS[rank] || rank) + " de " + SPANISH_NAMES[suit];
    }
    return (FRENCH_RANKS[rank] || rank) + " of " + FRENCH_NAMES[suit];
  }

  function suitClass(code, deck) {
    var suit = code.charAt(1);
    if (deck === "spanish") { return "suit-" + suit; }
    return suit === "H" || suit === "D" ? "red" : "black";
  }

  function rankLabel(code, deck) {
    var rank = code.charAt(0);
    return deck === "french" && rank === "T" ? "10" : rank;
  }

  function makeCard(code, deck, zone) {
    var card = document.createElement("div");
    card.className = "card";
    card.dataset.zone = zone;
    if (code === null) {
      card.className += " empty";
      card.dataset.face = "empty";
      card.title = "empty slot";
    } else if (code === "?") {
      card.className += " back";
      card.dataset.face = "down";
      card.title = "face down";
    } else {
      card.className += " face " + suitClass(code, deck);
      card.dataset.face = "up";
      card.dataset.card = code;
      card.title = cardTitle(code, deck) + " (" + code + ")";
      var rank = document.createElement("span");
      rank.className = "rank";
      rank.textContent = rankLabel(code, deck);
      var pip = document.createElement("span");
      pip.className = "pip";
      if (deck === "spanish") { pip.innerHTML = SPANISH_SVG[code.charAt(1)] || code.charAt(1); }
      else { pip.textContent = FRENCH[code.charAt(1)] || code.charAt(1); }
      card.appendChild(rank);
      card.appendChild(pip);
      if (replay && replay.values && replay.values[code] !== undefined) {  // the rules' value, as in hello
        var value = document.createElement("span");
        value.className = "value";
        value.textContent = replay.values[code];
        value.title = "value " + replay.values[code];
        card.appendChild(value);
      }
    }
    return card;
  }

  function escapeHtml(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  /* A log line: its [XY] card codes drawn as small cards. */
  function logHtml(text, deck) {
    var pattern = deck === "spanish" ? /\[([1-7SCR][OCEB])\]/g : /\[([2-9ATJQK][SHDC])\]/g;
    return escapeHtml(text).replace(pattern, function (all, code) {
      var label = rankLabel(code, deck) + (deck === "spanish" ? code.charAt(1).toLowerCase() : FRENCH[code.charAt(1)] || "");
      return '<span class="mini ' + suitClass(code, deck) + '" data-card="' + code + '" title="' +
        cardTitle(code, deck) + '">' + label + "</span>";
    });
  }

  // ------------------------------------------------------------------ drawing

  function seatOf() { return view.seat === "all" ? null : Number(view.seat); }

  function who(seat) { return replay.bots[seat] + "@" + seat; }

  function badge(text, cls, title) {
    var b = document.createElement("span");
    b.className = "badge " + cls;
    b.textContent = text;
    if (title) { b.title = title; }
    return b;
  }

  /* Which seats know the card in seat ``s``'s slot: those whose own view (the frames' per-seat views,
   * from observe()) shows it face up. Nothing is worked out here: it is read off those views. */
  function knownBy(step, s, slot) {
    var seats = [];
    for (var t = 0; t < replay.players; t++) {
      var seen = step.v[t].hands[s];
      if (seen && seen[slot] !== null && seen[slot] !== undefined && seen[slot] !== "?") { seats.push(t); }
    }
    var known = document.createElement("span");
    known.className = "known";
    known.dataset.known = seats.join(",");
    known.textContent = seats.length ? seats.join(" ") : "\u2013";
    known.title = seats.length ? "known to " + seats.map(who).join(", ") : "known to no seat";
    return known;
  }

  function drawTable(step) {
    var me = seatOf();
    var table = el("table");
    var n = replay.players;
    table.className = "players-" + n;
    table.textContent = "";
    var touched = {};
    step.hl.forEach(function (pair) { touched[pair[0] + "/" + pair[1]] = true; });
    var base = me === null ? 0 : me;
    for (var s = 0; s < n; s++) {
      var panel = document.createElement("div");
      panel.className = "seat pos-" + POSITIONS[n][(s - base + n) % n];
      panel.dataset.seat = s;
      if (step.tm === s) { panel.className += " moving"; }
      if (step.w.indexOf(s) >= 0) { panel.className += " asked"; }
      if (me === s) { panel.className += " viewer"; }
      var name = document.createElement("div");
      name.className = "name";
      var label = document.createElement("span");
      label.textContent = who(s);
      name.appendChild(label);
      if (step.tm === s) { name.appendChild(badge("to move", "turn")); }
      if (step.w.indexOf(s) >= 0) { name.appendChild(badge("asked", "turn", "asked in a simultaneous phase")); }
      if (step.dl === s) { name.appendChild(badge("D", "dealer", "dealer")); }
      if (step.cabo === s) { name.appendChild(badge("CABO", "cabo", "called Cabo this round")); }
      if (step.fl.indexOf(s) >= 0) { name.appendChild(badge("FAULT", "fault", "this bot faulted here")); }
      if (step.fb.indexOf(s) >= 0) { name.appendChild(badge("fallback", "fallback", "moved by the fallback policy")); }
      if (step.ff.indexOf(s) >= 0) { name.appendChild(badge("FORFEITED", "forfeit", "the fallback policy plays this seat")); }
      if (me === null && step.hv) {  // the frames' hand value: every card, so only in the omniscient view
        var worth = badge("hand " + step.hv[s], "hand-value", "the value of this hand now: the sum of its cards");
        worth.dataset.handValue = s;
        name.appendChild(worth);
      }
      var total = document.createElement("span");
      total.className = "total";
      total.dataset.seatTotal = s;
      total.textContent = step.tot[s];
      total.title = step.k === "reveal" ? "total after this round" : "total before this round";
      name.appendChild(total);
      panel.appendChild(name);

      var hand = document.createElement("div");
      var cards = me === null ? step.h[s] : step.v[me].hands[s];
      hand.className = (cards.length > 6 ? "hand many" : "hand") + (me === null ? " omniscient" : "");
      cards.forEach(function (code, slot) {
        var card = makeCard(code, replay.deck, "hand");
        card.dataset.seat = s;
        card.dataset.slot = slot;
        if (touched[s + "/" + slot]) { card.className += " touched"; }
        if (step.lk && step.lk[0] === s && step.lk[1] === slot) { card.className += " looked"; }
        var mark = document.createElement("span");
        mark.className = "slot";
        mark.textContent = slot;
        card.appendChild(mark);
        if (me === null && code !== null) { card.appendChild(knownBy(step, s, slot)); }
        hand.appendChild(card);
      });
      panel.appendChild(hand);

      if (step.hs === s) {
        var held = document.createElement("div");
        held.className = "heldslot";
        var code = me === null ? step.held : me === s ? step.v[me].held : "?";
        held.appendChild(makeCard(code, replay.deck, "held"));
        var text = document.createElement("span");
        text.textContent = "holds (from the " + step.hf + ")";
        held.appendChild(text);
        panel.appendChild(held);
      }
      table.appendChild(panel);
    }
    var center = document.createElement("div");
    center.className = "center";
    var deck = document.createElement("div");
    deck.className = "pile";
    deck.appendChild(makeCard(step.dk > 0 ? "?" : null, replay.deck, "deck"));
    var count = document.createElement("span");
    count.className = "deck-count";
    count.id = "deck-count";
    count.textContent = "deck " + step.dk;
    deck.appendChild(count);
    var discard = document.createElement("div");
    discard.className = "pile";
    discard.appendChild(makeCard(step.d, replay.deck, "discard"));
    var size = document.createElement("span");
    size.textContent = "discard (" + step.dn + ")";
    discard.appendChild(size);
    center.appendChild(deck);
    center.appendChild(discard);
    table.appendChild(center);
  }

  function drawStatus(step) {
    var parts = ["Round " + step.r];
    var kind = KINDS[step.k];
    if (step.k !== "end" && step.k !== "reveal") { parts.push(PHASES[step.ph] || step.ph); }
    if (step.tm !== null && step.tm !== undefined) { parts.push("to move: " + who(step.tm)); }
    if (step.w.length) { parts.push("asked: " + step.w.map(who).join(", ")); }
    if (step.cabo !== null && step.cabo !== undefined) { parts.push("Cabo called by " + who(step.cabo)); }
    var status = el("status");
    status.textContent = "";
    if (kind) {
      var k = document.createElement("span");
      k.className = "kind";
      k.textContent = kind + " \u00b7 ";
      status.appendChild(k);
    }
    status.appendChild(document.createTextNode(parts.join(" \u00b7 ")));
    var me = seatOf();  // a seat's view shows its own times only: its bot was never told the others'
    var timed = (step.t || []).filter(function (entry) { return me === null || entry[0] === me; });
    if (timed.length) {  // each decision's time, as the results store kept it (not in the replay)
      var times = document.createElement("span");
      times.className = "times";
      times.id = "times";
      times.title = "from the arena sending the request to reading the reply";
      times.appendChild(document.createTextNode(" \u00b7 "));
      timed.forEach(function (entry, i) {
        var one = document.createElement("span");
        one.className = "time" + (entry[2] ? " slow" : "") + (nearLimit(entry[1], replay.move_ms) ? " near" : "");
        one.dataset.seat = entry[0];
        one.dataset.ms = entry[1];
        one.textContent = (i ? ", " : "") + who(entry[0]) + " thought " + Number(entry[1]).toFixed(1) + " ms" +
          (entry[2] ? " (one of the match's slowest)" : "");
        times.appendChild(one);
      });
      status.appendChild(times);
    }
  }

  function drawScores(step, last) {
    var n = replay.players;
    var html = ["<table><thead><tr><th>round</th>"];
    for (var s = 0; s < n; s++) { html.push("<th>" + escapeHtml(who(s)) + "</th>"); }
    html.push("</tr></thead><tbody>");
    for (var r = 0; r < step.ro; r++) {
      var round = replay.rounds[r];
      html.push("<tr><td>" + round.round + (round.caller !== null ? " \u00b7 Cabo: " + escapeHtml(who(round.caller)) : "") +
        (round.ended === "turn_limit" ? " \u00b7 turn limit" : "") + "</td>");
      for (s = 0; s < n; s++) {
        html.push("<td>" + (round.scores[s] > 0 ? "+" : "") + round.scores[s] + "</td>");
      }
      html.push("</tr>");
    }
    if (seatOf() === null && step.hv && step.k !== "reveal" && !last) {  // the round being played, if it ended now
      html.push('<tr class="now" title="the sum of each hand now (omniscient view only)"><td>' + step.r +
        " \u00b7 hands now</td>");
      for (s = 0; s < n; s++) { html.push('<td data-now-seat="' + s + '">' + step.hv[s] + "</td>"); }
      html.push("</tr>");
    }
    var listed = matches.filter(function (m) { return String(m.idx) === String(view.match); })[0];
    if (listed && Array.isArray(listed.ms)) {  // this match's timings as stored with its results
      html.push('<tr class="timing" title="mean and slowest time from asking the bot to reading its reply, ' +
        'in this match"><td>ms/decision (slowest)</td>');
      for (s = 0; s < n; s++) {
        var t = listed.ms[s];
        html.push('<td data-ms-seat="' + s + '">' + (Array.isArray(t) ? t[0] + " (" + t[1] + ")" : "-") + "</td>");
      }
      html.push("</tr>");
    }
    html.push('<tr class="totals"><td>total</td>');
    for (s = 0; s < n; s++) { html.push('<td data-total-seat="' + s + '">' + step.tot[s] + "</td>"); }
    html.push("</tr>");
    if (last) {
      var res = replay.result;
      html.push('<tr class="places"><td>place</td>');
      for (s = 0; s < n; s++) {
        html.push('<td data-place-seat="' + s + '"' + (res.forfeited[s] ? ' class="forfeited" title="forfeited"' : "") +
          ">" + res.places[s] + "</td>");
      }
      html.push("</tr>");
    }
    html.push("</tbody></table>");
    if (last) { html.push('<p id="result">Final (' + escapeHtml(res.reason) + "): totals " + res.totals.join(", ") + "</p>"); }
    el("scores").innerHTML = html.join("");
  }

  function buildLog() {
    var me = seatOf();
    var key = view.match + "/" + view.seat;
    if (logFor === key) { return; }
    logFor = key;
    var pane = el("log");
    pane.textContent = "";
    logEntries = [];
    replay.steps.forEach(function (step, index) {
      step.log.forEach(function (entry) {
        var text = entry[1];
        if (entry.length > 2 && me !== null) {
          text = entry[2][me] === 1 ? entry[1] : entry[2][me];
        }
        if (text === null || text === undefined) { return; }
        var line = document.createElement("div");
        line.className = "entry " + entry[0] + (entry.near ? " near" : "");
        line.dataset.step = index;
        line.innerHTML = logHtml(text, replay.deck);
        line.addEventListener("click", function () { go(index); });
        pane.appendChild(line);
        logEntries.push([index, line]);
      });
    });
  }

  function drawLog(step) {
    var lastCurrent = null;
    logEntries.forEach(function (pair) {
      var future = pair[0] > step.index, current = pair[0] === step.index;
      pair[1].classList.toggle("future", future);
      pair[1].classList.toggle("current", current);
      if (!future) { lastCurrent = pair[1]; }
    });
    if (lastCurrent) {
      var pane = el("log");
      var bottom = lastCurrent.offsetTop + lastCurrent.offsetHeight - pane.offsetTop;
      pane.scrollTop = Math.max(0, bottom - pane.clientHeight + 8);
    }
  }

  function render() {
    if (!replay) { return; }
    var steps = replay.steps;
    view.step = Math.max(0, Math.min(steps.length - 1, view.step));
    var step = steps[view.step];
    var last = view.step === steps.length - 1;
    if (replay.plain) {
      drawPlain(step, last);
    } else {
      drawTable(step);
      drawStatus(step);
      drawScores(step, last);
      buildLog();
    }
    drawLog(step);
    el("slider").max = steps.length - 1;
    el("slider").value = view.step;
    el("pos").textContent = "step " + view.step + " / " + (steps.length - 1);
    el("round").value = String(step.r);
    el("seat").value = view.seat;
    el("match").value = String(view.match);
    writeHash();
  }

  // ------------------------------------------------------------------ navigation

  function hashText() {
    return "#match=" + view.match + "&seat=" + view.seat + "&step=" + view.step;
  }

  function writeHash() {
    var text = hashText();
    if (location.hash !== text) { history.replaceState(null, "", text); }
    el("link").href = text;
  }

  /* The address's values: a part that is not "key=value" or does not decode is left out. */
  function parseHash() {
    var out = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      try {
        if (kv[0]) { out[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1] || ""); }
      } catch (error) { /* a broken %-escape: as if the part were not there */ }
    });
    return out;
  }

  var WHOLE = /^[0-9]{1,9}$/;  // a match index, seat or step as the address may give it

  function whole(text) { return typeof text === "string" && WHOLE.test(text) ? Number(text) : null; }

  function go(step) {
    if (!el("message").hidden && replay) { message(""); }  // a note about the last jump, now stale
    view.step = step;
    render();
  }

  function step(delta) {
    if (!replay) { return; }
    go(Math.max(0, Math.min(replay.steps.length - 1, view.step + delta)));
  }

  /* The nearest step after (``direction`` 1) or before (-1) the current one whose log, as the current view
   * shows it, has an entry of one of the classes ``kinds`` (space-separated); null if none. */
  function nearest(kinds, direction) {
    var wanted = kinds.split(" ");
    var found = null;
    logEntries.forEach(function (pair) {
      var index = pair[0];
      if (!wanted.some(function (k) { return pair[1].classList.contains(k); })) { return; }
      if (direction > 0 && index > view.step && (found === null || index < found)) { found = index; }
      if (direction < 0 && index < view.step && (found === null || index > found)) { found = index; }
    });
    return found;
  }

  function jump(direction) {
    if (!replay) { return; }
    stop();
    var target = nearest(el("kind").value, direction);
    if (target === null) {
      var option = el("kind").selectedOptions[0];
      message("no " + (option ? option.textContent : "such event") + (direction > 0 ? " after" : " before") +
        " this step" + (view.seat === "all" ? "" : " in this view"));
      return;
    }
    message("");
    go(target);
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    el("play").innerHTML = "&#x25B6;&#xFE0E; play";
    el("play").setAttribute("aria-label", "play");
  }

  function play() {
    if (!replay) { return; }
    if (timer !== null) { stop(); return; }
    if (view.step >= replay.steps.length - 1) { go(0); }
    el("play").innerHTML = "&#x2016; pause";
    el("play").setAttribute("aria-label", "pause");
    timer = setInterval(function () {
      if (!replay || view.step >= replay.steps.length - 1) { stop(); return; }
      step(1);
    }, Number(el("speed").value));
  }

  function message(text) {
    var box = el("message");
    box.textContent = text;
    box.hidden = !text;
  }

  function setupMatch() {
    var seat = el("seat");
    seat.textContent = "";
    var all = document.createElement("option");
    all.value = "all";
    all.textContent = "omniscient: every card";
    seat.appendChild(all);
    for (var s = 0; s < replay.players; s++) {
      var option = document.createElement("option");
      option.value = String(s);
      option.textContent = "seat " + s + ": what " + who(s) + " knew";
      seat.appendChild(option);
    }
    var rounds = el("round");
    rounds.textContent = "";
    var seen = {};
    replay.steps.forEach(function (st, index) {
      if (seen[st.r] !== undefined) { return; }
      seen[st.r] = index;
      var option = document.createElement("option");
      option.value = String(st.r);
      option.dataset.step = index;
      option.textContent = String(st.r);
      rounds.appendChild(option);
    });
    el("title").textContent = "Match " + view.match + ": " + (replay.match || "") + " (" + replay.preset + ", " +
      replay.players + " players)";
    document.title = "Replay " + view.match + ": " + replay.bots.join(" vs ");
  }

  function note() {
    var me = seatOf();
    el("perspective-note").textContent = me === null ? "every card face up" :
      "only what " + who(me) + " was sent: the cards it did not know are face down";
  }

  /* The step at which the fault of ``decision`` (by ``seat``, when a seat is given) is shown, as the frames
   * say; for frames without that list, the first step after that decision's action. */
  function faultStep(decision, seat) {
    var faults = replay.faults || [];
    var mine = faults.filter(function (f) { return f[1] === decision && (seat === null || f[0] === seat); });
    var any = faults.filter(function (f) { return f[1] === decision; });
    var found = mine.length ? mine[0] : any[0];
    if (found) { return found[2]; }
    for (var i = 0; i < replay.steps.length; i++) {
      if (replay.steps[i].n > decision) { return i; }
    }
    return replay.steps.length - 1;
  }

  function show(match, seat, stepIndex, decision) {
    var changed = view.match !== match || !replay;
    view.match = match;
    view.seat = seat;
    view.step = stepIndex;
    if (changed) {
      replay = cache[match];
      logFor = null;
      setupMatch();
    }
    var number = whole(view.seat);  // "1.5", "-1", "x", a seat the match has not: the omniscient view
    view.seat = number !== null && number < replay.players ? String(number) : "all";
    if (decision !== null && decision !== undefined) { view.step = faultStep(decision, number); }
    note();
    render();
  }

  /* The block file holding ``match`` (arena/site/blocks.py): BLOCK matches by index a file. */
  function blockOf(match) { return Math.floor(Number(match) / BLOCK); }

  var B85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
  var B85_VALUE = {};
  for (var b85 = 0; b85 < B85.length; b85++) { B85_VALUE[B85.charAt(b85)] = b85; }

  /* The bytes of a base85 text (Python's base64.b85encode: 5 characters a 4 bytes, big-endian; a last group
   * of n characters holds n - 1 bytes). */
  function bytesOf(text) {
    var whole = Math.floor(text.length / 5), rest = text.length % 5;
    var bytes = new Uint8Array(whole * 4 + (rest ? rest - 1 : 0));
    for (var g = 0; g * 5 < text.length; g++) {
      var n = Math.min(5, text.length - g * 5), value = 0;
      for (var i = 0; i < 5; i++) {
        var digit = i < n ? B85_VALUE[text.charAt(g * 5 + i)] : 84;  // a short group is padded with the last digit
        if (digit === undefined) { throw new Error("not base85"); }
        value = value * 85 + digit;
      }
      for (var k = 0; k < n - 1; k++) { bytes[g * 4 + k] = Math.floor(value / Math.pow(256, 3 - k)) % 256; }
    }
    return bytes;
  }

  /* A block's matches (arena/site/blocks.py), each a function that inflates its frames when asked: the
   * packing's prefix (its dictionary, compressed: replays/packing.js) then the match's own bytes, raw DEFLATE,
   * with the browser's own DecompressionStream, less the dictionary's ``skip`` bytes. The frames were made by
   * the arena, this only undoes the compression. Resolves to {idx: function () -> promise of the match's line
   * of JSON}. */
  function inflate(block, packing) {
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot inflate the replays (it has no DecompressionStream)"));
    }
    if (block.packing !== packing.packing) {
      return Promise.reject(new Error("packed by another version of the arena than replays/packing.js: build the report again"));
    }
    var prefix = packing.bytes;
    var out = {};
    var at = 0;
    block.matches.forEach(function (m) {
      var piece = block.data.substr(at, m[3]);
      at += m[3];
      out[m[0]] = function () {
        var stream = new Blob([prefix, bytesOf(piece)]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
        return new Response(stream).arrayBuffer().then(function (buffer) {
          return new TextDecoder().decode(new Uint8Array(buffer).subarray(packing.skip));
        });
      };
    });
    return Promise.resolve(out);
  }

  /* A script of replays/ that sets ``window[name]``: a promise of its value (file:// pages may not fetch()). */
  function scriptValue(file, name) {
    return new Promise(function (resolve, reject) {
      window[name] = undefined;
      var script = document.createElement("script");
      script.src = file + stamp;
      script.onload = function () {
        script.remove();
        var value = window[name];
        window[name] = undefined;
        resolve(value);
      };
      script.onerror = function () { script.remove(); reject(new Error("missing")); };
      document.head.appendChild(script);
    });
  }

  var packingLoaded = null;  // promise of replays/packing.js: what every block's bytes continue

  function loadPacking() {
    if (!packingLoaded) {
      packingLoaded = scriptValue("replays/packing.js", "ARENA_PACKING").then(function (packing) {
        if (!packing || typeof packing.prefix !== "string" || typeof packing.skip !== "number") {
          throw new Error("replays/packing.js holds no packing");
        }
        return { packing: packing.packing, bytes: bytesOf(packing.prefix), skip: packing.skip };
      }, function (error) {
        throw new Error(error.message === "missing" ? "replays/packing.js is missing: build the report again" :
          error.message);
      });
      packingLoaded.catch(function () { packingLoaded = null; });  // tried again when asked again
    }
    return packingLoaded;
  }

  /* Load replays/b<k>.js (once per block: a promise of its lines by match). */
  function loadBlock(number) {
    if (blocks[number]) { return blocks[number]; }
    var name = "replays/b" + number + ".js";
    var asked = blocks;
    asked[number] = loadPacking().then(function (packing) {
      return scriptValue(name, "ARENA_BLOCK").then(function (block) {
        if (!block || typeof block.data !== "string" || !block.matches || !block.formats) {
          throw new Error(name + " holds no replays");
        }
        return inflate(block, packing);
      });
    });
    asked[number].catch(function () { delete asked[number]; });  // tried again when asked again
    return asked[number];
  }

  /* Load the match's block (once), decode the match and show it. */
  function open(match, seat, stepIndex, decision) {
    stop();
    if (Object.prototype.hasOwnProperty.call(cache, match)) { message(""); show(match, seat, stepIndex, decision); return; }
    var listed = matches.filter(function (m) { return String(m.idx) === String(match); })[0];
    if (listed && listed.unreadable) { loading = null; message("replay unreadable: " + listed.unreadable); return; }
    var token = {};
    loading = token;
    var name = "replays/b" + blockOf(match) + ".js";
    loadBlock(blockOf(match)).then(function (lines) {
      if (loading !== token) { return; }
      if (!Object.prototype.hasOwnProperty.call(lines, match)) {
        if (!listLoaded) {  // the list may say why (its replay unreadable): read it, then look again
          settled = null;
          loadMatches(false, function () { open(match, seat, stepIndex, decision); });
          return;
        }
        message("no replay of match " + match + " here (" + name + ")");
        settle();
        return;
      }
      return lines[match]().then(function (line) {
        if (loading !== token) { return; }
        var data;
        try { data = JSON.parse(line); } catch (error) {
          message(name + ": match " + match + " does not decode");
          settle();
          return;
        }
        cache[match] = data.format === PLAIN ? decodePlain(data) : decode(data);
        message("");
        show(match, seat, stepIndex, decision);
        settle();
      }, function () {
        if (loading !== token) { return; }
        message(name + ": match " + match + " does not inflate");
        settle();
      });
    }, function (error) {
      if (loading !== token) { return; }
      message(error.message === "missing" ? "no replay of match " + match + " here (" + name + ")" :
        name + ": " + error.message);
      settle();
    });
  }

  /* Open what the address names. A value that is not what it should be (match and step whole numbers,
   * seat "all" or a seat of the match) is quietly replaced by its default: the first match, the
   * omniscient view, step 0. */
  function openFromHash(first) {
    var h = parseHash();
    var number = whole(h.match);
    var match = number !== null ? String(number) : typeof first === "string" ? first :
      (matches.length ? String(matches[0].idx) : null);
    if (match === null) { message("no match to show: open viewer.html#match=<index>"); return; }
    var stepIndex = whole(h.step);
    var decision = stepIndex === null ? whole(h.decision) : null;
    open(match, h.seat || "all", stepIndex === null ? 0 : stepIndex, decision);
  }

  function matchLine(m) {
    var names = m.bots.map(function (b, s) { return b + " " + m.totals[s] + (m.forfeited[s] ? "*" : ""); });
    return m.idx + ": " + names.join(" \u00b7 ") + (m.unreadable ? " (replay unreadable)" : "");
  }

  var LISTED = 500;  // the menu's options at most: a ladder's 100,000 as options would take seconds to draw

  /* The matches that fit every word typed into the finder: a whole number is a match's index, any other
   * word a part of its id or of a bot's name (whatever the case). */
  function shownMatches() {
    var words = el("find").value.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) { return matches; }
    return matches.filter(function (m) {
      var line = ((m.match || "") + " " + m.bots.join(" ")).toLowerCase();
      return words.every(function (w) { return WHOLE.test(w) ? String(m.idx) === w : line.indexOf(w) >= 0; });
    });
  }

  /* At most LISTED of ``shown``: those around the match on the screen (the first ones when it is not among them). */
  function around(shown, chosen) {
    if (shown.length <= LISTED) { return shown; }
    var at = 0;
    for (var i = 0; i < shown.length; i++) { if (String(shown[i].idx) === chosen) { at = i; break; } }
    var from = Math.max(0, Math.min(shown.length - LISTED, at - LISTED / 2));
    return shown.slice(from, from + LISTED);
  }

  function fillMatches() {
    var select = el("match");
    var chosen = view.match !== null ? String(view.match) : select.value;
    var shown = shownMatches();
    var listedNow = around(shown, chosen);
    select.textContent = "";
    var listed = false;
    listedNow.forEach(function (m) {
      var option = document.createElement("option");
      option.value = String(m.idx);
      option.textContent = matchLine(m);
      select.appendChild(option);
      listed = listed || option.value === chosen;
    });
    if (chosen && !listed) {  // the match on the screen stays in the list, first, whatever is typed
      var current = matches.filter(function (m) { return String(m.idx) === chosen; })[0];
      var option = document.createElement("option");
      option.value = chosen;
      option.textContent = current ? matchLine(current) : chosen;
      select.insertBefore(option, select.firstChild);
    }
    if (chosen) { select.value = chosen; }
    var typed = el("find").value.trim();
    el("found").textContent = (typed ? shown.length + " of " + matches.length + " matches" : "") +
      (listedNow.length < shown.length ? (typed ? "; " : "") + listedNow.length + " of " + shown.length +
        " in the menu, around this one: find narrows them" : "");
  }

  /* A match as replays/index.js lists it (LIST_FIELDS of arena/site/viewer.py: an array). */
  function listedMatch(m) {
    if (!Array.isArray(m)) { return m; }
    return { idx: m[0], match: m[1], bots: m[2], totals: m[3], places: m[4],
      forfeited: m[5] || m[2].map(function () { return false; }), ms: m[6], unreadable: m[7] };
  }

  /* Load replays/index.js (``again``: past any cached copy), then call ``done``. */
  function loadMatches(again, done) {
    var script = document.createElement("script");
    script.src = "replays/index.js" + (again ? "?" + Date.now() : "");
    script.onload = function () {
      script.remove();
      listLoaded = true;
      matches = (window.ARENA_MATCHES || []).map(listedMatch);
      el("home").hidden = window.ARENA_REPORT === false;  // one replay file's viewer: no report to go back to
      fillMatches();
      done();
    };
    script.onerror = function () { script.remove(); listLoaded = true; done(); };
    document.head.appendChild(script);
  }

  /* The first match asked for is on the screen, or said to be missing: what waited for it may go on. */
  function settle() {
    var then = settled;
    settled = null;
    if (then) { then(); }
  }

  /* Served by ``arena serve``: when a newer report exists, take its match list, and nothing else. The
   * page is not reloaded: the match shown never changes once stored, and a reload would stop the play
   * and lose the place in the log of whoever is studying it. */
  function live() {
    if (!/^https?:$/.test(location.protocol)) { return; }
    var seen = null;
    function poll() {
      fetch("version.json", { cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (v) {
          if (!v || !v.version) { return; }
          if (seen !== null && v.version !== seen) {
            blocks = {};  // a block may hold more matches now: load it anew, past the browser's cache
            stamp = "?" + encodeURIComponent(v.version);
            loadMatches(true, function () { if (replay) { render(); } });
          }
          seen = v.version;
        })
        .catch(function () {});
    }
    poll();
    setInterval(poll, 5000);
  }

  function wire() {
    el("first").addEventListener("click", function () { stop(); go(0); });
    el("back").addEventListener("click", function () { stop(); step(-1); });
    el("fwd").addEventListener("click", function () { stop(); step(1); });
    el("last").addEventListener("click", function () { stop(); if (replay) { go(replay.steps.length - 1); } });
    el("play").addEventListener("click", play);
    el("speed").addEventListener("change", function () { if (timer !== null) { stop(); play(); } });
    el("slider").addEventListener("input", function () { stop(); go(Number(el("slider").value)); });
    el("round").addEventListener("change", function () {
      var option = el("round").selectedOptions[0];
      if (option) { stop(); go(Number(option.dataset.step)); }
    });
    el("seat").addEventListener("change", function () {
      view.seat = el("seat").value;
      note();
      render();
    });
    el("match").addEventListener("change", function () { open(el("match").value, "all", 0); });
    el("prev-kind").addEventListener("click", function () { jump(-1); });
    el("next-kind").addEventListener("click", function () { jump(1); });
    el("find").addEventListener("input", fillMatches);
    el("find").addEventListener("keydown", function (event) {
      if (event.key !== "Enter") { return; }
      var first = shownMatches()[0];
      if (first) { open(String(first.idx), "all", 0); el("find").blur(); }
    });
    ["seat", "round", "speed", "match", "kind"].forEach(function (id) {  // give the arrow keys back to the steps
      el(id).addEventListener("change", function () { el(id).blur(); });
    });
    window.addEventListener("hashchange", openFromHash);
    document.addEventListener("keydown", function (event) {
      var tag = event.target && event.target.tagName;
      if (tag === "SELECT" || tag === "INPUT" || event.altKey || event.ctrlKey || event.metaKey) { return; }
      if (event.key === "ArrowRight") { stop(); step(1); event.preventDefault(); }
      else if (event.key === "ArrowLeft") { stop(); step(-1); event.preventDefault(); }
      else if (event.key === "Home") { stop(); go(0); event.preventDefault(); }
      else if (event.key === "End" && replay) { stop(); go(replay.steps.length - 1); event.preventDefault(); }
      else if (event.key === " " && tag !== "BUTTON") { play(); event.preventDefault(); }
    });
  }

  /* The match the address names is shown first, the match list loaded after it: a ladder's list of
   * 100,000 matches takes longer to read than the match. Without a match in the address, the first match
   * of the first block (the first one shown that has a replay); without that block, the list first. */
  function start() {
    wire();
    var later = function () { loadMatches(false, function () { if (replay) { render(); } }); };  // its times too
    var h = parseHash();
    if (whole(h.match) !== null) {
      settled = later;
      openFromHash();
    } else {
      loadBlock(0).then(function (lines) {
        var first = Object.keys(lines)[0];  // whole-number keys come in ascending order
        if (first === undefined) { loadMatches(false, openFromHash); return; }
        settled = later;
        openFromHash(first);
      }, function () { loadMatches(false, openFromHash); });
    }
    live();
  }

  window.ArenaViewer = { state: function () { return { match: view.match, seat: view.seat, step: view.step,
    steps: replay ? replay.steps.length : 0 }; } };
  start();
}());
