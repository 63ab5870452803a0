// The authors' page of `arena serve`: a token kept in this browser, an upload, its check, the author's bots and
// their logs. Hand-written, no libraries, nothing fetched but the server's own /api (docs/server.md).
// Every text from the server goes in with textContent, never as HTML: a log or a bot's name is anyone's text.
"use strict";

(function () {
  var TOKEN_KEY = "arena-token";
  var POLL_MS = 1000;

  function byId(id) { return document.getElementById(id); }

  /* An element with its attributes (set as properties: never markup) and its children (strings are text). */
  function el(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (key) { node[key] = props[key]; });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function oneLine(text) { return String(text).replace(/\s+/g, " ").trim(); }

  // ---------------------------------------------------------------- messages: one line each
  function showError(text) {
    var line = byId("error");
    line.textContent = oneLine(text);
    line.hidden = false;
    byId("notice").hidden = true;
  }
  function showNotice(text) {
    var line = byId("notice");
    line.textContent = oneLine(text);
    line.hidden = false;
    byId("error").hidden = true;
  }
  function clearMessages() { byId("error").hidden = true; byId("notice").hidden = true; }

  // ---------------------------------------------------------------- the token, kept in localStorage
  function token() {
    try { return window.localStorage.getItem(TOKEN_KEY) || ""; } catch (e) { return ""; }
  }
  function keepToken(value) {
    try { window.localStorage.setItem(TOKEN_KEY, value); } catch (e) { /* storage refused: kept for this page */ }
  }
  function forgetToken() {
    try { window.localStorage.removeItem(TOKEN_KEY); } catch (e) { /* nothing kept */ }
  }

  // ---------------------------------------------------------------- the API
  /* An error answer of the server, said in one line: its status, the server's own line, when to try again. */
  function ApiError(status, message, retry) {
    this.status = status;
    this.message = message;
    this.retry = retry;
  }
  ApiError.prototype.toString = function () {
    var text = (this.status ? this.status + ": " : "") + this.message;
    if (this.status === 429 && this.retry) text += " (try again in " + this.retry + " s)";
    return oneLine(text);
  };

  /* ``method`` ``path`` (relative: the page may be served under a prefix) with the token; the JSON answer, or
     an ApiError whose message is the server's one line (its JSON "error", else the status's name). */
  function api(method, path, body, type) {
    var headers = { "Authorization": "Bearer " + token() };
    if (type) headers["Content-Type"] = type;
    return fetch(path, { method: method, headers: headers, body: body, cache: "no-store", credentials: "omit" })
      .catch(function (e) { throw new ApiError(0, "the server cannot be reached (" + e.message + ")"); })
      .then(function (response) {
        return response.text().then(function (text) {
          var data = null;
          try { data = JSON.parse(text); } catch (e) { data = null; }
          if (!response.ok) {
            var said = data && typeof data.error === "string" ? data.error : (response.statusText || "refused");
            throw new ApiError(response.status, said, response.headers.get("Retry-After"));
          }
          if (data === null || typeof data !== "object") {
            throw new ApiError(response.status, "the server's answer is not JSON");
          }
          return data;
        });
      });
  }

  function report(error) { showError(error instanceof ApiError ? error.toString() : String(error)); }

  // ---------------------------------------------------------------- a bot's page in the report
  /* SHA-256 of a string's UTF-8 bytes, in hex: the report names a bot's page with it (crypto.subtle is missing
     where the page is not served over HTTPS or from localhost, hence this). */
  function sha256hex(text) {
    var bytes = new TextEncoder().encode(text);
    var K = [], H = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    var n = 2, found = 0;
    while (found < 64) {
      var prime = true;
      for (var d = 2; d * d <= n; d++) { if (n % d === 0) { prime = false; break; } }
      if (prime) { K.push((Math.pow(n, 1 / 3) % 1) * 4294967296 | 0); found++; }
      n++;
    }
    var length = bytes.length, total = ((length + 9 + 63) >> 6) << 6;
    var data = new Uint8Array(total);
    data.set(bytes);
    data[length] = 0x80;
    var view = new DataView(data.buffer);
    view.setUint32(total - 8, Math.floor(length / 0x20000000));
    view.setUint32(total - 4, (length * 8) >>> 0);
    var w = new Array(64);
    for (var at = 0; at < total; at += 64) {
      for (var i = 0; i < 16; i++) w[i] = view.getUint32(at + 4 * i);
      for (i = 16; i < 64; i++) {
        var a0 = w[i - 15], a1 = w[i - 2];
        var s0 = ((a0 >>> 7) | (a0 << 25)) ^ ((a0 >>> 18) | (a0 << 14)) ^ (a0 >>> 3);
        var s1 = ((a1 >>> 17) | (a1 << 15)) ^ ((a1 >>> 19) | (a1 << 13)) ^ (a1 >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      var h = H.slice();
      for (i = 0; i < 64; i++) {
        var e = h[4], x = h[0];
        var t1 = (h[7] + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
                  ((e & h[5]) ^ (~e & h[6])) + K[i] + w[i]) | 0;
        var t2 = ((((x >>> 2) | (x << 30)) ^ ((x >>> 13) | (x << 19)) ^ ((x >>> 22) | (x << 10))) +
                  ((x & h[1]) ^ (x & h[2]) ^ (h[1] & h[2]))) | 0;
        h = [(t1 + t2) | 0, x, h[1], h[2], (h[3] + t1) | 0, e, h[5], h[6]];
      }
      for (i = 0; i < 8; i++) H[i] = (H[i] + h[i]) | 0;
    }
    return H.map(function (v) { return ("00000000" + (v >>> 0).toString(16)).slice(-8); }).join("");
  }

  /* The report's file name of a bot's page, as arena/site/data.py safe_name makes it. */
  function safeName(bot) {
    var cleaned = Array.from(bot).map(function (c) { return /^[a-z0-9_.@-]$/.test(c) ? c : "_"; })
      .slice(0, 64).join("");
    if (cleaned === bot && bot.charAt(0) !== ".") return bot;
    return (cleaned.replace(/^\.+/, "") || "bot") + "-" + sha256hex(bot).slice(0, 10);
  }

  // ---------------------------------------------------------------- who you are
  function signedOut() {
    byId("signed-in").hidden = true;
    byId("sign-in").hidden = false;
    byId("token-input").value = "";
  }

  function signIn() {
    if (!token()) { signedOut(); return; }
    api("GET", "api/me").then(function (me) {
      byId("who").textContent = String(me.author);
      byId("role").textContent = me.organiser ? " (the organiser: every bot)" : "";
      byId("sign-in").hidden = true;
      byId("signed-in").hidden = false;
      loadBots();
    }, function (error) {
      report(error);
      if (error instanceof ApiError && error.status === 401) { forgetToken(); signedOut(); }
    });
  }

  // ---------------------------------------------------------------- upload and the check
  /* What the archive's first bytes say it is (the server trusts them, not the name). */
  function archiveType(head) {
    if (head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5)) return "application/zip";
    if (head[0] === 0x1f && head[1] === 0x8b) return "application/gzip";
    return null;
  }

  var polling = null;

  function upload(event) {
    event.preventDefault();
    clearMessages();
    var file = byId("file").files[0];
    if (!file) { showError("choose the bot's archive first: a .zip or .tar.gz of its directory"); return; }
    file.arrayBuffer().then(function (bytes) {
      var type = archiveType(new Uint8Array(bytes.slice(0, 4)));
      if (type === null) {
        showError(file.name + ": not a zip or a gzip-compressed tar; upload a .zip or .tar.gz of the bot's directory");
        return null;
      }
      var name = byId("name").value.trim();
      var path = "api/bots" + (name ? "?name=" + encodeURIComponent(name) : "");
      byId("upload").disabled = true;
      return api("POST", path, bytes, type).then(function (answer) {
        showSubmission({ status: answer.status, ahead: answer.ahead, output: [], message: null, exit: null });
        follow(answer.id);
      });
    }).catch(report).then(function () { byId("upload").disabled = false; });
  }

  function stateText(sub) {
    if (sub.status === "queued") return "queued, " + Number(sub.ahead || 0) + " ahead";
    if (sub.status === "checking") return "checking";
    return "done";
  }

  function showSubmission(sub) {
    byId("submission").hidden = false;
    byId("sub-state").textContent = stateText(sub);
    var output = byId("sub-output");
    var lines = Array.isArray(sub.output) ? sub.output.map(String) : [];
    output.textContent = lines.join("\n");
    output.hidden = lines.length === 0;
    var message = byId("sub-message");
    message.textContent = sub.message === null || sub.message === undefined ? "" : String(sub.message);
    message.className = "message" + (sub.exit === 0 ? " ok" : sub.exit === 1 ? " bad" : "");
  }

  /* Ask for the submission ``id`` every second until its check is done; a server out of reach or restarting
     (no answer, 502 to 504) is asked again a few times, anything else ends the asking. */
  var RETRIES = 10;
  function follow(id) {
    if (polling !== null) clearTimeout(polling);
    var failed = 0;
    function poll() {
      polling = null;
      api("GET", "api/submissions/" + encodeURIComponent(String(id))).then(function (sub) {
        if (failed) clearMessages();  // the server is back: its earlier error no longer holds
        failed = 0;
        showSubmission(sub);
        if (sub.status === "done") loadBots();
        else polling = setTimeout(poll, POLL_MS);
      }, function (error) {
        report(error);
        var passing = error instanceof ApiError && (error.status === 0 || (error.status >= 502 && error.status <= 504));
        if (passing && ++failed < RETRIES) polling = setTimeout(poll, POLL_MS * 2 * failed);
      });
    }
    polling = setTimeout(poll, POLL_MS);
  }

  // ---------------------------------------------------------------- the author's bots
  function loadBots() {
    api("GET", "api/bots").then(showBots, report);
  }

  /* A time as the server gives it: a string as it is, seconds since 1970 as UTC. */
  function when(value) {
    if (typeof value !== "number") return String(value);
    return new Date(value * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }

  function showBots(answer) {
    var body = byId("bots").tBodies[0];
    while (body.firstChild) body.removeChild(body.firstChild);
    var bots = Array.isArray(answer.bots) ? answer.bots : [];
    byId("no-bots").hidden = bots.length > 0;
    bots.forEach(function (bot) {
      var name = String(bot.name);
      var versions = Array.isArray(bot.versions) ? bot.versions : [];
      var latest = versions.length ? versions[versions.length - 1] : null;
      var cells = el("span", { className: "versions" }, versions.map(function (v) {
        var key = String(v.key);
        return el("span", {}, [
          el("a", { href: "bots/" + safeName(key) + ".html", title: "its page in the report" }, [key]),
          " · ", el("a", { href: "matches.html#bot=" + encodeURIComponent(key), title: "its matches" }, ["matches"]),
          " (" + String(v.status) + (v.submitted_at ? ", " + when(v.submitted_at) : "") + ")"]);
      }));
      var nameCell = latest ? el("a", { href: "bots/" + safeName(String(latest.key)) + ".html" }, [name])
        : document.createTextNode(name);
      var author = bot.author !== undefined && bot.author !== null ? String(bot.author) : "";
      var logs = el("button", { type: "button", className: "logs" }, ["logs"]);
      logs.addEventListener("click", function () { showLogs(name); });
      var retire = el("button", { type: "button", className: "retire" }, ["retire"]);
      retire.addEventListener("click", function () { retireBot(name); });
      var row = el("tr", {}, [
        el("td", {}, [nameCell].concat(author && author !== byId("who").textContent ? [" · " + author] : [])),
        el("td", {}, [cells]),
        el("td", {}, [latest ? String(latest.status) : ""]),
        el("td", {}, [logs, retire])]);
      row.setAttribute("data-bot", name);
      body.appendChild(row);
    });
  }

  function showLogs(name) {
    clearMessages();
    api("GET", "api/bots/" + encodeURIComponent(name) + "/logs").then(function (answer) {
      var logs = Array.isArray(answer.logs) ? answer.logs : [];
      var written = logs.filter(function (log) { return typeof log.text === "string" && log.text.trim() !== ""; });
      byId("logs-title").textContent = "Logs of " + name + " (" + (logs.length ? written.length + " of " +
        logs.length + " matches with something written" : "no match yet") + ")";
      byId("logs-text").textContent = written.length ? written.map(function (log) {
        return "== match " + String(log.match) + " (#" + String(log.index) + ", seat " + String(log.seat) +
          ", place " + String(log.place) + ")\n" + log.text;
      }).join("\n") : logs.length ? "(nothing written: the bot wrote nothing on stderr in these matches)" :
        "(no log yet: no match of this bot has been stored)";
      byId("logs").hidden = false;
    }, report);
  }

  function retireBot(name) {
    if (!window.confirm("Retire " + name + "? It is no longer scheduled; its matches and ratings are kept.")) return;
    clearMessages();
    api("POST", "api/bots/" + encodeURIComponent(name) + "/retire").then(function (answer) {
      showNotice(String(answer.message));
      loadBots();
    }, report);
  }

  // ---------------------------------------------------------------- start
  function start() {
    byId("token-form").addEventListener("submit", function (event) {
      event.preventDefault();
      clearMessages();
      var value = byId("token-input").value.trim();
      if (!value) { showError("paste your token first: `arena author add` printed it as token: ..."); return; }
      keepToken(value);
      signIn();
    });
    byId("forget").addEventListener("click", function () {
      if (polling !== null) { clearTimeout(polling); polling = null; }
      forgetToken();
      clearMessages();
      byId("submission").hidden = true;
      byId("logs").hidden = true;
      byId("who").textContent = "";
      signedOut();
    });
    byId("upload-form").addEventListener("submit", upload);
    signIn();
  }

  window.ArenaSubmit = { safeName: safeName, sha256hex: sha256hex };
  start();
}());
