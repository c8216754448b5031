// tablecam director station: tables grid, table view, alert queue, archive.
// Live data arrive over the director WebSocket (/api/ws); REST fills the gaps on (re)connect.
"use strict";

const S = {
  token: sessionStorage.getItem("tablecam.token") || "",
  demo: false,
  tables: new Map(),      // id -> summary
  alerts: new Map(),      // id -> alert
  offset: 0,              // server clock - browser clock (seconds)
  route: ["grid"],
  watched: null,          // table id open in the table view
  tableState: null,       // snapshot of the watched table
  tableEvents: [],        // its event log
  tableFindings: [],
  ws: null,
  alertFilter: "active",
  alertTable: "",         // "" = every table
  drafts: new Map(),
  frameUrls: new Map(),   // frame id -> object URL of the image (fetched with the token)      // alert id -> {option, text}: what the director is typing survives live updates
  silentAfter: 120,
};

const $ = (sel, root) => (root || document).querySelector(sel);
const now = () => Date.now() / 1000 + S.offset;

function director() {
  const el = $("#director-name");
  return (el.value || "").trim() || "director";
}

async function api(path, opts) {
  opts = opts || {};
  const headers = Object.assign({}, opts.headers || {});
  if (S.token) headers["Authorization"] = "Bearer " + S.token;
  if (opts.json !== undefined) {
    headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(opts.json);
  }
  const r = await fetch(path, { method: opts.method || "GET", headers, body: opts.body });
  if (r.status === 401) { showLogin("The token was not accepted."); throw new Error("401"); }
  if (!r.ok) {
    let detail = r.statusText;
    try { detail = JSON.stringify((await r.json()).detail); } catch (e) { /* keep statusText */ }
    throw new Error(`${r.status}: ${detail}`);
  }
  return r;
}

// -- login --------------------------------------------------------------------------
function showLogin(msg) {
  for (const s of document.querySelectorAll("main > section")) s.classList.add("hidden");
  $("#login").classList.remove("hidden");
  $("#login-error").textContent = msg || "";
}

async function start() {
  $("#director-name").value = localStorage.getItem("tablecam.director") || "";
  $("#director-name").addEventListener("change", e => localStorage.setItem("tablecam.director", e.target.value.trim()));
  $("#login-form").addEventListener("submit", e => {
    e.preventDefault();
    S.token = $("#token").value.trim();
    sessionStorage.setItem("tablecam.token", S.token);
    start();
  });
  $("#logout").onclick = () => { sessionStorage.removeItem("tablecam.token"); S.token = ""; location.reload(); };
  $("#alert-table").onchange = e => { S.alertTable = e.target.value; renderAlerts(); };
  for (const b of document.querySelectorAll("[data-filter]")) b.onclick = () => {
    S.alertFilter = b.dataset.filter;
    for (const x of document.querySelectorAll("[data-filter]")) x.classList.toggle("secondary", x !== b);
    renderAlerts();
  };
  let who;
  try { who = await (await api("/api/whoami")).json(); } catch (e) { if (!S.token) showLogin(""); return; }
  S.demo = !!who.insecure_demo;
  $("#demo-banner").classList.toggle("hidden", !S.demo);
  $("#login").classList.add("hidden");
  await refresh();
  connect();
  window.onhashchange = route;
  route();
  setInterval(tick, 1000);
}

async function refresh() {
  const t = await (await api("/api/tables")).json();
  S.offset = t.now - Date.now() / 1000;
  S.tables = new Map(t.tables.map(x => [x.id, x]));
  const a = await (await api("/api/alerts")).json();
  S.alerts = new Map(a.alerts.map(x => [x.id, x]));
  renderGrid(); renderAlerts(); renderCount();
}

// -- live connection ------------------------------------------------------------------
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const q = S.token ? "?token=" + encodeURIComponent(S.token) : "";
  const ws = new WebSocket(`${proto}//${location.host}/api/ws${q}`);
  S.ws = ws;
  ws.onopen = () => {
    $("#conn").textContent = "live"; $("#conn").classList.add("live");
    if (S.watched) ws.send(JSON.stringify({ op: "watch", table: S.watched }));
  };
  ws.onclose = () => {
    $("#conn").textContent = "reconnecting"; $("#conn").classList.remove("live");
    S.ws = null;
    setTimeout(async () => { try { await refresh(); } catch (e) { /* retry below */ } connect(); }, 1500);
  };
  ws.onmessage = m => onMessage(JSON.parse(m.data));
}

function onMessage(msg) {
  switch (msg.type) {
    case "tables":
      if (msg.now) S.offset = msg.now - Date.now() / 1000;
      for (const t of msg.tables) S.tables.set(t.id, t);
      renderGrid();
      if (S.watched) renderTableHeader();
      break;
    case "alert":
      if (!S.alerts.has(msg.alert.id)) flashAlerts();
      S.alerts.set(msg.alert.id, msg.alert);
      renderTableFilter();
      renderAlert(msg.alert);
      renderCount();
      break;
    case "finding":
      if (msg.table === S.watched) { S.tableFindings.push(msg.finding); renderFindings(); }
      break;
    case "event":
      if (msg.table === S.watched) { S.tableEvents.push(msg.entry); appendLog(msg.entry); }
      break;
    case "snapshot":
      if (msg.table === S.watched) { S.tableState = msg.state; renderBoard(); }
      break;
  }
}

// -- routing ------------------------------------------------------------------------
function route() {
  const h = location.hash.replace(/^#\/?/, "");
  const parts = h.split("/").filter(Boolean).map(decodeURIComponent);
  const view = parts[0] || "grid";
  for (const s of document.querySelectorAll("main > section")) s.classList.add("hidden");
  for (const a of document.querySelectorAll("nav a[data-view]")) a.classList.toggle("active", a.dataset.view === view);
  if (view === "table" && parts[1]) {
    openTable(parts[1]);
  } else {
    if (S.watched && S.ws && S.ws.readyState === 1) S.ws.send(JSON.stringify({ op: "unwatch" }));
    S.watched = null;
  }
  const sec = $("#view-" + (view === "table" ? "table" : view));
  if (sec) sec.classList.remove("hidden");
  if (view === "archive") renderArchive();
  if (view === "alerts") renderAlerts();
}

// -- tables grid --------------------------------------------------------------------
function tileClass(t) {
  const sev = t.open_by_severity || {};
  const cls = ["tile"];
  if ((sev.alert || 0) > 0) cls.push("alerting"); else if (t.open_alerts > 0) cls.push("warning");
  const since = t.last_event_at ? now() - t.last_event_at : null;
  if (since === null || since > S.silentAfter) cls.push("silent");
  return cls.join(" ");
}

function healthHTML(h) {
  if (!h) return "";
  return ["shoe", "camera"].map(src => {
    const x = h[src] || { status: "unknown" };
    return `<span title="${esc(x.detail || x.status)}"><span class="dot ${esc(x.status)}"></span>${src} ${esc(x.status)}</span>`;
  }).join(" ");
}

function renderGrid() {
  const grid = $("#grid");
  const ids = [...S.tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  $("#grid-empty").classList.toggle("hidden", ids.length > 0);
  const html = ids.map(id => {
    const t = S.tables.get(id);
    const since = t.last_event_at ? now() - t.last_event_at : null;
    return `<div class="${tileClass(t)}" data-table="${esc(id)}" role="button" tabindex="0" aria-label="table ${esc(id)}">
      <div class="head"><span class="name" title="${esc(id)}">${esc(id)}</span><span class="game">${esc(t.game || "no game")}</span></div>
      <div class="big">Board <b>${esc(t.board ?? "\u2013")}</b> \u00b7 dealer ${esc(t.dealer || "\u2013")} \u00b7 <b>${esc(t.phase || "")}</b></div>
      <div class="big">${t.contract ? "Contract " + contractHTML(t.contract) + (t.declarer ? " by " + esc(t.declarer) : "") : "&nbsp;"}</div>
      <div class="meta"><span class="since" data-at="${t.last_event_at || ""}">last event ${since === null ? "never" : ago(since) + " ago"}</span>
      <span>alerts <span class="badge ${t.open_alerts ? "" : "zero"}">${t.open_alerts}</span></span></div>
      <div class="meta">${healthHTML(t.health)}</div></div>`;
  }).join("");
  // tiles are redrawn on every table update: a director moving through the grid with the
  // keyboard keeps the focused tile (else focus falls to the page and Enter opens nothing)
  const active = document.activeElement;
  const focused = active && active.classList && active.classList.contains("tile") && grid.contains(active)
    ? active.dataset.table : null;
  grid.innerHTML = html;
  for (const el of grid.querySelectorAll(".tile")) {
    el.onclick = () => { location.hash = "#/table/" + encodeURIComponent(el.dataset.table); };
    el.onkeydown = e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); el.onclick(); } };
    if (focused !== null && el.dataset.table === focused) el.focus();
  }
}

function tick() {
  for (const el of document.querySelectorAll(".since[data-at]")) {
    const at = parseFloat(el.dataset.at);
    el.textContent = "last event " + (at ? ago(now() - at) + " ago" : "never");
  }
  for (const el of document.querySelectorAll(".tile")) {
    const t = S.tables.get(el.dataset.table);
    if (t) el.className = tileClass(t);
  }
}

// -- table view ---------------------------------------------------------------------
async function openTable(id) {
  const sec = $("#view-table");
  if (S.watched !== id) {
    S.watched = id;
    S.tableEvents = []; S.tableFindings = []; S.tableState = null;
    sec.innerHTML = `<div class="panel" id="table-head"></div>
      <div class="cols"><div>
        <div class="panel"><h2>Deal and play</h2><div id="board"></div></div>
        <div class="panel"><h2>Event log</h2><div class="log" id="log"></div></div>
      </div><div>
        <div class="panel"><h2>Auction</h2><div id="auction"></div></div>
        <div class="panel"><h2>Tricks</h2><ol class="tricklist" id="tricks"></ol></div>
        <div class="panel"><h2>Findings</h2><div class="log" id="findings"></div></div>
        <div class="panel downloads"><h2>Download</h2><div id="table-dl"></div></div>
      </div></div>`;
    if (S.ws && S.ws.readyState === 1) S.ws.send(JSON.stringify({ op: "watch", table: id }));
    try {
      const d = await (await api("/api/tables/" + encodeURIComponent(id))).json();
      S.tableState = d.state; S.tableFindings = d.findings;
      S.tables.set(id, d.summary);
      let since = 0, all = [];
      for (;;) {
        const e = await (await api(`/api/tables/${encodeURIComponent(id)}/events?since=${since}&limit=5000`)).json();
        all = all.concat(e.events); since += e.events.length;
        if (!e.events.length || since >= e.total) break;
      }
      // events pushed while loading are kept, without duplicates
      const seen = new Set(all.map(e => e.index));
      S.tableEvents = all.concat(S.tableEvents.filter(e => !seen.has(e.index)));
    } catch (e) {
      sec.innerHTML = `<div class="panel">Table ${esc(id)}: ${esc(e.message)}</div>`;
      return;
    }
    const log = $("#log"); log.innerHTML = "";
    for (const e of S.tableEvents) appendLog(e, true);
    log.scrollTop = log.scrollHeight;
  }
  renderTableHeader(); renderBoard(); renderFindings(); renderTableDownloads();
}

function renderTableHeader() {
  const t = S.tables.get(S.watched);
  const el = $("#table-head");
  if (!t || !el) return;
  const tw = t.tricks_won || {};
  el.innerHTML = `<div class="kv"><span>Table <b>${esc(t.id)}</b></span><span>${esc(t.game || "")}</span>
    <span>Board <b>${esc(t.board ?? "\u2013")}</b></span><span>Dealer <b>${esc(t.dealer || "\u2013")}</b></span>
    <span>Phase <b>${esc(t.phase || "")}</b></span>
    <span>Contract <b>${contractHTML(t.contract)}</b>${t.declarer ? " by <b>" + esc(t.declarer) + "</b>" : ""}</span>
    <span>Tricks ${wonHTML(tw)}</span>
    <span>Open alerts <span class="badge ${t.open_alerts ? "" : "zero"}">${t.open_alerts}</span></span>
    <span class="meta">${healthHTML(t.health)}</span></div>`;
}

function renderBoard() {
  const st = S.tableState || {};
  const el = $("#board");
  if (!el) return;
  const dealt = st.dealt || st.hands || {};
  const held = st.hands || {};
  const piles = Object.keys(dealt).filter(k => !SEATS.includes(k));
  const h = seat => handHTML(seat, dealt[seat] || [], held[seat] || null, { turn: st.turn === seat });
  const done = st.tricks || [];
  const live = st.trick && st.trick.cards && st.trick.cards.length;
  const last = done[done.length - 1];
  const trick = live ? st.trick : (last || { cards: [] });
  const label = live ? `trick ${done.length + 1}` : (last ? `trick ${done.length} \u2192 ${last.winner || "?"}` : "");
  el.innerHTML = `<div class="compass"><div class="n">${h("N")}</div><div class="w">${h("W")}</div>
      <div class="t">${trickHTML(trick, label)}</div><div class="e">${h("E")}</div><div class="s">${h("S")}</div></div>
      ${piles.map(p => `<p>${esc(p)}: ${(dealt[p] || []).map(c => cardHTML(c)).join("")}</p>`).join("")}`;
  $("#auction").innerHTML = auctionHTML(st.auction, st.dealer, st.game) +
    (st.contract ? `<p>Contract <b>${contractHTML(st.contract)}</b>${st.declarer ? " by " + esc(st.declarer) : ""}</p>` : "");
  $("#tricks").innerHTML = (st.tricks || []).map(t =>
    `<li>${(t.cards || []).map(p => esc(p.seat) + " " + cardHTML(p.card)).join(" ")} \u2192 <b>${esc(t.winner || "?")}</b></li>`).join("");
}

function appendLog(e, bulk) {
  const log = $("#log");
  if (!log) return;
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 30;
  const div = document.createElement("div");
  div.innerHTML = eventHTML(e);  // every field escaped inside eventHTML
  if (e.type === "unreadable") div.className = "bad";
  else if (e.uncertain) div.className = "unsure";
  log.appendChild(div);
  if (!bulk && atEnd) log.scrollTop = log.scrollHeight;
}

function renderFindings() {
  const el = $("#findings");
  if (!el) return;
  el.innerHTML = S.tableFindings.slice(-100).map(f =>
    `<div class="${f.status === "info" ? "" : "found"}">board ${esc(f.board)} ${esc(f.kind)}${f.seat ? " " + esc(f.seat) : ""}: ${ruleTextHTML(f.message)} <span class="muted">[${esc(f.rule)}]</span></div>`).join("");
  el.scrollTop = el.scrollHeight;
}

function boardsOf(events) {
  const out = [];
  for (const e of events) if (e.type === "board" && !out.includes(String(e.board))) out.push(String(e.board));
  return out;
}

function dlLinks(path, label) {
  return `<span>${esc(label)}: ` + ["pbn", "lin", "jsonl"].map(f =>
    `<a href="#" data-dl="${esc(path + (path.includes("?") ? "&" : "?") + "format=" + f)}">${f.toUpperCase()}</a>`).join(" ") + "</span>";
}

function wireDownloads(root) {
  for (const a of root.querySelectorAll("[data-dl]")) a.onclick = async ev => {
    ev.preventDefault();
    try {
      const r = await api(a.dataset.dl);
      const blob = await r.blob();
      const m = /filename="([^"]+)"/.exec(r.headers.get("Content-Disposition") || "");
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob); link.download = m ? m[1] : "tablecam-archive";
      document.body.appendChild(link); link.click(); link.remove();
    } catch (e) { alert("Download failed: " + e.message); }
  };
}

function renderTableDownloads() {
  const el = $("#table-dl");
  if (!el) return;
  const id = encodeURIComponent(S.watched);
  const boards = boardsOf(S.tableEvents);
  el.innerHTML = `<p>${dlLinks(`/api/tables/${id}/archive`, "Whole session")}</p>` +
    boards.map(b => `<p>${dlLinks(`/api/tables/${id}/archive?board=${encodeURIComponent(b)}`, "Board " + b)}</p>`).join("");
  wireDownloads(el);
}

// -- alert queue --------------------------------------------------------------------
// A new alert makes the Alerts tab pulse for a few seconds: visible across the room.
function flashAlerts() {
  const a = $('nav a[data-view="alerts"]');
  a.classList.remove("pulse"); void a.offsetWidth; a.classList.add("pulse");
}

function renderCount() {
  // the badge counts everything not yet ruled; it is red while any alert is still unacknowledged
  const vals = [...S.alerts.values()];
  const n = vals.filter(a => a.state !== "ruled").length;
  const open = vals.some(a => a.state === "open");
  const b = $("#alert-count");
  b.textContent = n; b.classList.toggle("zero", !open);
  document.title = (open ? `(${vals.filter(a => a.state === "open").length}) ` : "") + "tablecam - director station";
}

function visible(a) {
  return (S.alertFilter === "all" || a.state !== "ruled") && (!S.alertTable || a.table === S.alertTable);
}

function alertHTML(a) {
  const refs = (a.rules && a.rules.length) ? a.rules : [{ citation: a.rule, ref: a.rule_ref }];
  const rule = refs.map(r => r.ref ? `<div class="rule"><b>${esc(r.citation)}</b> \u2013 ${esc(r.ref.title)}: ${esc(r.ref.text)}
      ${r.ref.url ? ` <a href="${esc(r.ref.url)}" target="_blank" rel="noopener noreferrer">full text</a>` : ""}
      ${r.ref.file ? ` <span class="muted">(source: ${esc(r.ref.file)})</span>` : ""}</div>`
    : `<div class="rule"><b>${esc(r.citation || "no rule cited")}</b></div>`).join("");
  const trig = a.event;
  const causes = new Set(a.events || [trig]);
  const evidence = (a.evidence || []).map(e =>
    `<div class="${causes.has(e.index) ? "cause" : ""}">${eventHTML(e)}</div>`).join("");
  const draft = S.drafts.get(a.id) || {};
  const opts = alertOptions(a).map(o => `<option ${draft.option === o ? "selected" : ""}>${esc(o)}</option>`).join("");
  const ack = a.acknowledged ? `<span class="muted">acknowledged by ${esc(a.acknowledged.by)} at ${clock(a.acknowledged.at)}</span>` : "";
  const ruling = a.ruling ? `<div class="msg">Ruling by <b>${esc(a.ruling.by)}</b> at ${clock(a.ruling.at)}:
      ${a.ruling.option ? "<b>" + esc(a.ruling.option) + "</b> \u2013 " : ""}${esc(a.ruling.text)}
      ${a.ruling.applied ? `<div class="applied">Applied to board ${esc(a.ruling.applied.board ?? "")}: the result on the dashboard, the broadcast and the archive is the adjusted one (event <code>director_ruling</code>, Law ${esc(a.ruling.applied.law)}).</div>` : ""}</div>` : "";
  const form = a.state === "open"
    ? `<form data-ack="${a.id}"><button type="submit">Acknowledge</button></form>`
    : `<form data-rule="${a.id}">
        <select name="option"><option value="">(no option)</option>${opts}<option ${draft.option === "Other (see text)" ? "selected" : ""}>Other (see text)</option></select>
        ${applyHTML(a, draft)}
        <textarea name="text" placeholder="Ruling, in words" required>${esc(draft.text || "")}</textarea>
        <button type="submit">${a.ruling ? "Change ruling" : "Record ruling"}</button></form>`;
  return `<div class="alert sev-${esc(a.severity)} state-${esc(a.state)}" data-alert="${a.id}">
    <div class="title"><span class="pill ${esc(a.state)}">${esc(a.state)}</span><span class="kind">${esc(String(a.kind || "").replace(/_/g, " "))}</span>
      <span class="where">table <b>${esc(a.table)}</b> \u00b7 board <b>${esc(a.board ?? "\u2013")}</b>${a.seat ? " \u00b7 seat <b>" + esc(a.seat) + "</b>" : ""}${a.trick ? " \u00b7 trick <b>" + esc(a.trick) + "</b>" : ""}</span>
      <span class="muted">${esc(a.severity)} \u00b7 ${clock(a.found_at)} \u00b7 ${esc(a.status || "")}</span></div>
    <div class="msg">${ruleTextHTML(a.message)}</div>${rule}
    ${alertOptions(a).length ? `<div><b>Options:</b> ${alertOptions(a).map(ruleTextHTML).join(" \u00b7 ")}</div>` : ""}
    ${a.remedy ? `<div><b>Remedy:</b> ${ruleTextHTML(a.remedy)}</div>` : ""}
    <details><summary>Evidence: ${(a.evidence || []).length} events up to #${esc(trig ?? "?")} (highlighted: the events the finding cites)${a.frame ? " and the camera frame" : ""}</summary>
      <div class="evidence-wrap"><div class="evidence">${evidence}</div>
      ${a.frame ? `<figure class="frame" data-frame="${esc(a.frame.id)}"><div class="frame-box"></div>
        <figcaption>camera, ${esc(clock(a.frame.at))}: ${(a.frame.cards || []).length} cards recognised</figcaption></figure>` : ""}</div></details>
    ${ruling}${ack}${form}</div>`;
}

// What a ruling can apply to the board (docs/dashboard.md "Applying a ruling"): a Law 64A
// transfer of one or two tricks (the engine's number first), no transfer (64B), the Law 50D2 lead
// restriction declarer chose, or an adjusted score with the director's own numbers (64C, 12C).
const TRANSFER_KINDS = ["trick_transfer", "revoke"];
const LEAD_KINDS = ["penalty_card", "lead_out_of_turn", "lead_options"];

// The options of every step the alert holds (a revoke's, then its trick transfer's: Law 64A1,
// 64A2, 64B, 64C, the computed one first), each once, the latest step's first.
function alertOptions(a) {
  const seen = new Set();
  const out = [];
  for (const f of [...[...(a.findings || [])].reverse(), a]) {
    for (const o of (f && f.options) || []) if (!seen.has(o)) { seen.add(o); out.push(o); }
  }
  return out;
}

function applyChoices(a) {
  const out = [["", "no: record the ruling only"]];
  // an alert is an incident: the findings that joined it (a revoke's transfer, its penalty card) count
  const kinds = [a.kind, ...(a.findings || []).map(f => (f || {}).kind)];
  if (kinds.some(k => TRANSFER_KINDS.includes(k))) {
    // the engine's computed transfer: on the trick_transfer finding, which joins its revoke's alert
    const n = [a.finding, ...(a.findings || [])].map(f => (f || {}).tricks).find(t => t !== undefined);
    const first = n === 1 || n === 2 ? [n, 3 - n] : [1, 2];
    for (const k of first) out.push([`64A:${k}`, `Law 64A: transfer ${k} trick${k > 1 ? "s" : ""}${k === n ? " (as computed)" : ""}`]);
    out.push(["64B", "Law 64B: no trick transferred"]);
    out.push(["64C", "Law 64C: adjusted score"]);
  }
  if (kinds.some(k => LEAD_KINDS.includes(k))) {
    out.push(["50D2:require", "Law 50D2(a): declarer requires the suit"]);
    out.push(["50D2:forbid", "Law 50D2(b): declarer forbids the suit"]);
  }
  out.push(["12C1", "Law 12C1: adjusted score (director's own numbers)"]);
  return out;
}

function applyHTML(a, draft) {
  const choice = draft.apply ?? "";
  const seats = ["", "N", "E", "S", "W"].map(s => `<option>${s}</option>`).join("");
  return `<label class="apply">Apply to the board <select name="apply">${applyChoices(a).map(([v, t]) =>
      `<option value="${esc(v)}" ${v === choice ? "selected" : ""}>${esc(t)}</option>`).join("")}</select></label>
    <span class="apply-lead">suit <select name="suit"><option>S</option><option>H</option><option>D</option><option>C</option></select></span>
    <span class="apply-score">contract <input name="contract" size="4" placeholder="4S">
      declarer <select name="declarer">${seats}</select>
      tricks <input name="tricks" type="number" min="0" max="13">
      NS <input name="ns" type="number" step="any" placeholder="+420"> EW <input name="ew" type="number" step="any" placeholder="-420"></span>`;
}

function applyBody(f) {
  const v = f.apply.value;
  if (!v) return null;
  const [law, arg] = v.split(":");
  if (law === "64A") return { law, tricks: Number(arg) };
  if (law === "64B") return { law };
  if (law === "50D2") return { law, demand: arg, suit: f.suit.value };
  const body = { law };
  const c = f.contract.value.trim().toUpperCase().replace("NT", "N");
  if (c) body.contract = c === "PASS" ? "Pass" : c;
  if (f.declarer.value) body.declarer = f.declarer.value;
  if (f.tricks.value !== "") body.tricks = Number(f.tricks.value);
  if (f.ns.value !== "" || f.ew.value !== "") {
    body.score = {};
    if (f.ns.value !== "") body.score.NS = Number(f.ns.value);
    if (f.ew.value !== "") body.score.EW = Number(f.ew.value);
  }
  return body;
}

function showApplyFields(f) {
  const v = f.apply.value;
  f.classList.toggle("lead", v.startsWith("50D2"));
  f.classList.toggle("score", v === "64C" || v.startsWith("12C"));
}

// The frame is fetched with the token (an <img src> cannot send it) and the recognised
// cards are outlined with an SVG drawn in the image's own pixel coordinates.
async function showFrame(fig, frame) {
  const box = fig.querySelector(".frame-box");
  let url = S.frameUrls.get(frame.id);
  if (!url) {
    try {
      url = URL.createObjectURL(await (await api(`/api/frames/${frame.id}`)).blob());
      S.frameUrls.set(frame.id, url);
    } catch (e) { box.textContent = "frame not available: " + e.message; return; }
  }
  const img = new Image();
  img.onload = () => {
    const w = frame.width || img.naturalWidth, h = frame.height || img.naturalHeight;
    const rects = (frame.cards || []).map(c => {
      const [x1, y1, x2, y2] = c.box.map(Number);
      const red = /^[HD]/.test(c.card);
      return `<rect x="${x1}" y="${y1}" width="${x2 - x1}" height="${y2 - y1}" class="${red ? "red" : ""}"></rect>
        <text x="${x1 + 4}" y="${Math.max(14, y1 - 4)}">${esc(c.card)}${c.conf != null ? " " + Math.round(c.conf * 100) + "%" : ""}</text>`;
    }).join("");
    box.innerHTML = "";
    box.appendChild(img);
    box.insertAdjacentHTML("beforeend", `<svg viewBox="0 0 ${w} ${h}" preserveAspectRatio="none">${rects}</svg>`);
  };
  img.alt = "camera frame";
  img.src = url;
}

function wireAlert(el) {
  const a = S.alerts.get(parseInt(el.dataset.alert, 10));
  const fig = el.querySelector("figure.frame");
  if (fig && a && a.frame) {
    const det = el.querySelector("details");
    const load = () => { if (!fig.dataset.loaded) { fig.dataset.loaded = "1"; showFrame(fig, a.frame); } };
    if (det.open) load(); else det.addEventListener("toggle", load, { once: true });
  }
  const ackF = el.querySelector("form[data-ack]");
  if (ackF) ackF.onsubmit = async e => {
    e.preventDefault();
    try {
      const a = await (await api(`/api/alerts/${ackF.dataset.ack}/acknowledge`, { method: "POST", json: { by: director() } })).json();
      S.alerts.set(a.id, a); renderAlert(a); renderCount();
    } catch (err) { alert("Could not acknowledge: " + err.message); }
  };
  const rF = el.querySelector("form[data-rule]");
  if (rF) {
    const id = parseInt(rF.dataset.rule, 10);
    const save = () => S.drafts.set(id, { option: rF.option.value, text: rF.text.value, apply: rF.apply.value });
    rF.option.onchange = save; rF.text.oninput = save;
    rF.apply.onchange = () => { save(); showApplyFields(rF); };
    showApplyFields(rF);
    rF.onsubmit = async e => {
      e.preventDefault();
      const body = { by: director(), text: rF.text.value.trim(), option: rF.option.value || null };
      const applied = applyBody(rF);
      if (applied) body.apply = applied;
      if (!body.text) { rF.text.focus(); return; }
      try {
        const a = await (await api(`/api/alerts/${id}/ruling`, { method: "POST", json: body })).json();
        S.drafts.delete(id); S.alerts.set(a.id, a); renderAlert(a, true); renderCount();
      } catch (err) { alert("Could not record the ruling: " + err.message); }
    };
  }
}

function renderAlert(a, force) {
  const list = $("#alerts");
  const old = list.querySelector(`[data-alert="${a.id}"]`);
  if (old && !force && old.contains(document.activeElement) && document.activeElement.tagName === "TEXTAREA") return;
  if (!visible(a)) { if (old) old.remove(); return; }
  const tmp = document.createElement("div");
  tmp.innerHTML = alertHTML(a);
  const el = tmp.firstElementChild;
  const wasOpen = old && old.querySelector("details") && old.querySelector("details").open;
  if (wasOpen) el.querySelector("details").open = true;
  if (old) old.replaceWith(el); else list.prepend(el);
  wireAlert(el);
  renderAlertsSummary();
}

function renderTableFilter() {
  const sel = $("#alert-table");
  const ids = [...new Set([...S.alerts.values()].map(a => a.table))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const have = [...sel.options].map(o => o.value).slice(1);
  if (have.join("\u0000") === ids.join("\u0000")) return;
  sel.innerHTML = '<option value="">all tables</option>' + ids.map(id =>
    `<option value="${esc(id)}" ${id === S.alertTable ? "selected" : ""}>${esc(id)}</option>`).join("");
}

function renderAlerts() {
  renderTableFilter();
  const list = $("#alerts");
  const all = [...S.alerts.values()].sort((x, y) => y.id - x.id).filter(visible);
  list.innerHTML = all.map(alertHTML).join("") || '<p class="muted">No alerts.</p>';
  for (const el of list.querySelectorAll(".alert")) wireAlert(el);
  renderAlertsSummary();
}

function renderAlertsSummary() {
  const c = { open: 0, acknowledged: 0, ruled: 0 };
  for (const a of S.alerts.values()) c[a.state] = (c[a.state] || 0) + 1;
  $("#alerts-summary").textContent = `${c.open} open, ${c.acknowledged} acknowledged, ${c.ruled} ruled`;
  const empty = $("#alerts > p.muted");
  if (empty && $("#alerts .alert")) empty.remove();
}

// -- archive ------------------------------------------------------------------------
function renderArchive() {
  const el = $("#view-archive");
  const ids = [...S.tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  el.innerHTML = `<div class="panel downloads"><h2>Whole session (all tables)</h2>${dlLinks("/api/archive", "Session")}</div>
    <div class="panel downloads"><h2>By table</h2>${ids.map(id =>
      `<p><b>${esc(id)}</b> (${esc(S.tables.get(id).boards)} board${S.tables.get(id).boards === 1 ? "" : "s"}, ${esc(S.tables.get(id).game || "no game")}) ${dlLinks("/api/tables/" + encodeURIComponent(id) + "/archive", "session")}
       <a href="#/table/${encodeURIComponent(id)}">boards \u2192</a></p>`).join("") || '<p class="muted">No tables yet.</p>'}</div>`;
  wireDownloads(el);
}

start();
