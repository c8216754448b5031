// The table operator's page (/operator/TABLE): a tablet at the table or a VuGraph operator.
// Everything entered here is an event POSTed to /api/tables/TABLE/events with the table's
// operator token; the station hands it to the table's node when one runs it (docs/dashboard.md).
"use strict";

const TABLE = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
const TOKEN_KEY = "tablecam.operator." + TABLE;
const O = {
  token: sessionStorage.getItem(TOKEN_KEY) || "",
  state: null,         // the board in progress (BoardEngine.snapshot())
  log: [],             // the table's whole event log, as read so far
  since: 0,
  pickField: null,     // the form field the card pad fills in "into the form" mode
  queue: Promise.resolve(),
  refreshing: null,    // the refresh under way; another is asked for after it (refreshSoon)
  again: false,
  timer: null,
};
const $ = sel => document.querySelector(sel);
const BIDS = [];
for (let l = 1; l <= 7; l++) for (const s of "CDHSN") BIDS.push(l + s);
const CALLS = {
  bridge: { rows: BIDS, extra: ["P", "X", "XX"] },
  pidro: { rows: ["6", "7", "8", "9", "10", "11", "12", "13", "14"], extra: ["P"] },
  whist: { rows: ["7", "8", "9", "10", "11", "12", "13", "sol", "ren sol", "bordlægger", "ren bordlægger"],
           extra: ["gå med", "pas"] },
  vira: { rows: [], extra: ["pass"] },
};
// The Nordic games' own entries (docs/vira.md, pidro.md, whist.md): type, label, fields.
// Field kinds: seat (the seat chosen above), card, cards, suit, text, bool, or a list of choices.
const SUITS = ["S", "H", "D", "C"];
const ENTRIES = {
  vira: [
    { type: "bid", label: "Bid", fields: [["bid", "text"], ["suit", ["", ...SUITS]], ["om", "bool"]] },
    { type: "contract_choice", label: "Contract choice", fields: [["name", "text"]] },
    { type: "trump", label: "Trump", fields: [["suit", [...SUITS, "misar"]], ["cards", "cards?"]] },
    { type: "discard", label: "Discard (ekartering)", fields: [["cards", "cards"]] },
    { type: "buy", label: "Purchase from the talong", fields: [["cards", "cards"]] },
    { type: "show", label: "Cards shown (open misär)", fields: [["cards", "cards"]] },
    { type: "sit_out", label: "Sits out", fields: [] },
    { type: "first_suit", label: "Högsta färg", fields: [["card", "card?"], ["suit", ["", ...SUITS]]], noSeat: true },
    { type: "ruling", label: "Table's decision", fields: [["outcome", ["hemma", "bet", "kodilj", "redeal", "continue", "void"]], ["note", "text?"]] },
  ],
  pidro: [
    { type: "trump", label: "Trump", fields: [["suit", SUITS]] },
    { type: "discard", label: "Discard (non-trumps)", fields: [["cards", "cards"]] },
    { type: "lay_down", label: "Trumps laid down", fields: [["cards", "cards"]] },
    { type: "redeal", label: "Redeal", fields: [["reason", "text?"]], noSeat: true },
  ],
  whist: [
    { type: "trump", label: "Trump", fields: [["suit", [...SUITS, "N"]]] },
    { type: "partner_ace", label: "Partner ace", fields: [["card", "card"]] },
    { type: "kitty_take", label: "Takes from the kitty", fields: [["card", "card"]] },
    { type: "kitty_give", label: "Gives to the kitty", fields: [["card", "card"]] },
    { type: "turn_kitty", label: "Kitty card turned (vip)", fields: [["card", "card"]], noSeat: true },
    { type: "renons_card", label: "Renons card", fields: [["card", "card"]] },
    { type: "jernhand", label: "Jernhånd", fields: [] },
    { type: "redeal", label: "Redeal", fields: [["reason", "text?"]], noSeat: true },
  ],
};

function say(text, kind) {
  const el = $("#status");
  el.textContent = text;
  el.className = "op-status " + (kind || "");
}

async function api(path, opts) {
  opts = opts || {};
  const headers = Object.assign({}, opts.headers || {});
  if (O.token) headers["Authorization"] = "Bearer " + O.token;
  if (opts.json !== undefined) { headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(opts.json); }
  const r = await fetch(path, { method: opts.method || "GET", headers, body: opts.body, cache: "no-store" });
  if (r.status === 401 || r.status === 403) { showLogin(r.status === 403 ? "That token opens another table." : "The token was not accepted."); throw new Error(String(r.status)); }
  if (!r.ok) {
    let detail = r.statusText;
    try { detail = JSON.stringify((await r.json()).detail); } catch (e) { /* not JSON */ }
    throw new Error(`${r.status}: ${detail}`);
  }
  return r;
}

function showLogin(msg) {
  $("#pad").classList.add("hidden");
  $("#login").classList.remove("hidden");
  $("#login-error").textContent = msg || "";
  $("#conn").textContent = "offline";
  $("#conn").classList.remove("live");
}

// -- sending ----------------------------------------------------------------
// Taps are sent in order, one request at a time; none is dropped while the previous one is on its way.
// ``events``: a list, or a function making it when its turn comes (so "the seat on turn" is read
// after the taps before it have been folded and the state refreshed).
function send(events) {
  O.queue = O.queue.then(() => {
    const evs = typeof events === "function" ? events() : events;
    return evs ? post(evs) : null;
  });
  return O.queue;
}

async function post(events) {
  try {
    const out = await (await api(`/api/tables/${encodeURIComponent(TABLE)}/events`, { method: "POST", json: events })).json();
    const bad = (out.findings || []).filter(f => f.status !== "info" || f.kind === "bad_event");
    if (bad.length) say(bad.map(f => f.message).join(" "), "warn");
    else say(`Sent: ${events.map(e => e.type + (e.call ? " " + e.call : e.card ? " " + e.card : "")).join(", ")}` +
             (out.forwarded ? " (to the table node)" : ""), "ok");
    refreshSoon();
    await O.refreshing;
  } catch (e) {
    say("Not sent: " + e.message, "warn");
  }
}

function seat() {
  const v = $("#seat").value;
  if (v !== "auto") return v;
  return O.state && O.state.turn ? O.state.turn : null;
}

function needSeat() {
  const s = seat();
  if (!s) say("Choose the seat: nobody is known to be on turn.", "warn");
  return s;
}

function game() { return (O.state && O.state.game) || $("#board-form").game.value; }

// -- the pads -------------------------------------------------------------------
function renderCalls() {
  const spec = CALLS[game()] || CALLS.bridge;
  const grid = game() === "bridge";
  const legal = new Set(((O.state && O.state.extra) || {}).legal || []);
  const btn = c => `<button type="button" class="call ${grid && legal.size && !legal.has(c) ? "illegal" : ""}" data-call="${esc(c)}">${callHTML(c)}</button>`;
  $("#calls").className = "op-calls" + (grid ? " grid" : "");
  $("#calls").innerHTML = spec.rows.map(btn).join("") + `<div class="op-extra">${spec.extra.map(btn).join("")}</div>`;
}

function renderCards() {
  let html = "";
  for (const s of SUITS) {
    html += `<div class="op-suit"><span class="sym suit-${s}">${SUIT_SYM[s]}</span>` +
      [..."AKQJT98765432"].map(r => `<button type="button" class="cardbtn suit-${s}" data-card="${s}${r}">${r === "T" ? "10" : r}</button>`).join("") + "</div>";
  }
  html += `<div class="op-suit"><button type="button" class="cardbtn" data-card="JK">JK</button></div>`;
  $("#cards").innerHTML = html;
}

function callEvent(c, fixed) {
  const s = fixed && fixed !== "auto" ? fixed : needSeat();   // (called when the call's turn in the queue comes)
  if (!s) return null;
  if (game() === "vira") return { type: "bid", seat: s, bid: c };
  return { type: "call", seat: s, call: c };
}

function onCall(ev) {
  const b = ev.target.closest("button[data-call]");
  if (!b) return;
  const fixed = $("#seat").value;
  send(() => { const e = callEvent(b.dataset.call, fixed); return e && [e]; });
}

function onCard(ev) {
  const b = ev.target.closest("button[data-card]");
  if (!b) return;
  const card = b.dataset.card;
  const action = $("#card-action").value;
  if (action === "pick") {
    if (!O.pickField) { say("Click a card field of a form first.", "warn"); return; }
    const f = O.pickField;
    f.value = f.dataset.kind.startsWith("cards") ? (f.value + " " + card).trim() : card;
    return;
  }
  const fixed = $("#seat").value;
  send(() => {
    const s = fixed === "auto" ? needSeat() : fixed;
    if (!s) return null;
    return [action === "deal" ? { type: "deal", to: s, card } : { type: action, seat: s, card }];
  });
}

// -- the game panel: bridge's contract / lead / result, the Nordic games' entries ---------------------
function renderGamePanel() {
  const g = game();
  const panel = $("#game-panel");
  if (panel.dataset.game === g) return;
  panel.dataset.game = g;
  if (g === "bridge") {
    const opts = (xs) => xs.map(x => `<option>${x}</option>`).join("");
    panel.innerHTML = `<h3>Contract, lead and result <span class="muted">(where nothing else captured them)</span></h3>
      <form id="contract-form" class="op-form">
        <label>Contract <select name="level">${opts([1, 2, 3, 4, 5, 6, 7])}</select>
          <select name="strain"><option value="C">\u2663</option><option value="D">\u2666</option><option value="H">\u2665</option><option value="S">\u2660</option><option value="N">NT</option></select>
          <select name="dbl"><option value=""></option><option>X</option><option>XX</option></select></label>
        <label>Declarer <select name="declarer">${opts(SEATS)}</select></label>
        <button type="submit">Contract</button></form>
      <form id="lead-form" class="op-form"><label>Opening lead <input name="card" data-kind="card" placeholder="e.g. HQ" size="4"></label>
        <button type="submit">Lead</button></form>
      <form id="result-form" class="op-form"><label>Result: declarer's tricks <select name="tricks">${opts([...Array(14).keys()])}</select></label>
        <button type="submit">Result, end of board</button></form>`;
    $("#contract-form").onsubmit = ev => {
      ev.preventDefault();
      const f = ev.target;
      send([{ type: "contract", contract: f.level.value + f.strain.value + f.dbl.value, declarer: f.declarer.value }]);
    };
    $("#lead-form").onsubmit = ev => {
      ev.preventDefault();
      const decl = O.state && O.state.declarer;
      if (!decl) { say("Enter the contract first: the lead is made by declarer's left-hand opponent.", "warn"); return; }
      send([{ type: "play", seat: SEATS[(SEATS.indexOf(decl) + 1) % 4], card: ev.target.card.value.trim() }]);
    };
    $("#result-form").onsubmit = ev => {
      ev.preventDefault();
      const decl = O.state && O.state.declarer;
      if (!decl) { say("Enter the contract first.", "warn"); return; }
      send([{ type: "claim", seat: decl, tricks: Number(ev.target.tricks.value) }, { type: "end" }]);
    };
  } else {
    panel.innerHTML = `<h3>${esc(g)}: bids, contract, trump, discards, purchase</h3>` + (ENTRIES[g] || []).map((e, i) =>
      `<form class="op-form entry" data-entry="${i}"><b>${esc(e.label)}</b>${e.fields.map(([name, kind]) => fieldHTML(name, kind)).join("")}
        <button type="submit">${esc(e.label)}</button></form>`).join("");
    panel.querySelectorAll("form.entry").forEach(f => { f.onsubmit = onEntry; });
  }
  panel.querySelectorAll("input[data-kind]").forEach(inp => { inp.onfocus = () => { O.pickField = inp; }; });
}

function fieldHTML(name, kind) {
  if (Array.isArray(kind)) return `<label>${esc(name)} <select name="${esc(name)}">${kind.map(k => `<option>${esc(k)}</option>`).join("")}</select></label>`;
  if (kind === "bool") return `<label><input type="checkbox" name="${esc(name)}"> ${esc(name)}</label>`;
  const ph = kind.startsWith("cards") ? "e.g. SA HK D7" : kind.startsWith("card") ? "e.g. SA" : "";
  return `<label>${esc(name)} <input name="${esc(name)}" data-kind="${esc(kind)}" placeholder="${ph}" autocomplete="off"></label>`;
}

function onEntry(ev) {
  ev.preventDefault();
  const spec = ENTRIES[game()][Number(ev.target.dataset.entry)];
  const e = { type: spec.type };
  if (!spec.noSeat) { const s = needSeat(); if (!s) return; e.seat = s; }
  for (const [name, kind] of spec.fields) {
    const inp = ev.target.elements[name];
    if (kind === "bool") { if (inp.checked) e[name] = true; continue; }
    const v = inp.value.trim();
    if (!v) { if (Array.isArray(kind) || String(kind).endsWith("?")) continue; say(`${spec.label}: ${name} is missing.`, "warn"); return; }
    e[name] = String(kind).startsWith("cards") ? v.split(/[\s,]+/) : v;
  }
  send([e]);
}

// -- camera reads to confirm or correct --------------------------------------------------------
function openReads() {
  const done = new Set(O.log.filter(e => e.type === "confirm" || e.type === "correct").map(e => e.event));
  return O.log.filter(e => e.uncertain === true && !done.has(e.index) && ["play", "call", "expose", "bid"].includes(e.type));
}

function readHTML(e) {
  const what = e.call !== undefined ? "call" : "card";
  return `<div class="read" data-index="${e.index}">${eventHTML(e)}
    <form class="op-form correct"><label>${what} <input name="value" value="${esc(e[what] || "")}" size="5" data-kind="${what}"></label>
    <label>seat <select name="seat">${SEATS.map(s => `<option ${s === e.seat ? "selected" : ""}>${s}</option>`).join("")}</select></label>
    <button type="button" class="confirm">Confirm</button> <button type="submit">Correct</button></form></div>`;
}

function renderReads() {
  const reads = openReads();
  $("#reads-count").textContent = reads.length;
  $("#reads-count").classList.toggle("zero", !reads.length);
  const box = $("#reads");
  const key = reads.map(e => e.index).join(",");
  if (box.dataset.key === key) return;   // keep what the operator is typing
  box.dataset.key = key;
  box.innerHTML = reads.length ? reads.map(readHTML).join("") : '<p class="muted">No uncertain camera read.</p>';
  box.querySelectorAll(".read").forEach(div => {
    const idx = Number(div.dataset.index);
    const orig = O.log[idx] || {};
    const f = div.querySelector("form");
    f.querySelector(".confirm").onclick = () => send([{ type: "confirm", event: idx }]);
    f.onsubmit = ev => {
      ev.preventDefault();
      const what = orig.call !== undefined ? "call" : "card";
      const e = { type: "correct", event: idx, seat: f.seat.value, was: orig[what] };
      e[what] = f.value.value.trim();
      send([e]);
    };
    f.value.onfocus = () => { O.pickField = f.value; };
  });
}

// -- the table's state ------------------------------------------------------------------------
function renderState() {
  const st = O.state || {};
  $("#op-board").innerHTML = st.board !== undefined && st.board !== null
    ? `${esc(st.game || "")} board <b>${esc(st.board)}</b> \u00b7 ${esc(st.phase || "")}` : "no board yet";
  const won = st.tricks_won ? wonHTML(st.tricks_won) : "";
  const trick = st.trick ? trickHTML(st.trick, "") : "";
  $("#state").innerHTML = `<div class="op-facts">
      <span>Dealer <b>${esc(st.dealer || "\u2013")}</b></span>
      <span>Turn <b id="turn">${esc(st.turn || "\u2013")}</b></span>
      <span>Contract <b id="contract">${contractHTML(st.contract)}</b>${st.declarer ? " by <b>" + esc(st.declarer) + "</b>" : ""}</span>
      ${st.trump ? `<span>Trump <b>${esc(st.trump)}</b></span>` : ""}
      <span id="won">${won}</span></div>
    <div class="op-state">${auctionHTML(st.auction, st.dealer, st.game)}${trick}</div>`;
  $("#turn-note").textContent = st.turn ? `(${st.turn} is on turn)` : "";
  const bf = $("#board-form");
  if (document.activeElement === null || !bf.contains(document.activeElement)) {
    if (st.game) bf.game.value = st.game;
    const n = Number(st.board);
    bf.board.value = Number.isFinite(n) && n > 0 ? (st.phase === "finished" ? n + 1 : n) : (bf.board.value || 1);
  }
  document.body.dataset.game = game();
}

// The card pad marks what the board has used: cards played (in play mode) or dealt (in deal mode),
// so a tap on a used card is seen before it is sent (it is still sent: the engine judges it).
function markUsedCards() {
  const st = O.state || {};
  const action = $("#card-action").value;
  let used = [];
  if (action === "play") used = [...(st.tricks || []), st.trick || { cards: [] }].flatMap(t => (t.cards || []).map(p => p.card));
  else if (action === "deal") used = Object.values(st.dealt || {}).flat();
  const set = new Set(used);
  document.querySelectorAll("#cards button[data-card]").forEach(b => b.classList.toggle("used", set.has(b.dataset.card)));
}

function renderLog() {
  $("#log").innerHTML = O.log.slice(-12).reverse().map(e => `<li>${eventHTML(e)}</li>`).join("");
}

function refreshSoon() {
  if (O.refreshing) { O.again = true; return; }
  O.refreshing = refresh().finally(() => {
    O.refreshing = null;
    if (O.again) { O.again = false; refreshSoon(); }
  });
}

async function refresh() {
  const t = encodeURIComponent(TABLE);
  try {
    const r = await fetch(`/api/tables/${t}`, { headers: O.token ? { Authorization: "Bearer " + O.token } : {}, cache: "no-store" });
    if (r.status === 404) { O.state = null; }
    else if (r.status === 401 || r.status === 403) { showLogin("The token was not accepted."); return; }
    else if (r.ok) O.state = (await r.json()).state;
    if (r.ok) {
      for (;;) {
        const page = await (await api(`/api/tables/${t}/events?since=${O.since}&limit=5000`)).json();
        O.log.push(...page.events);
        O.since += page.events.length;
        if (O.since >= page.total || !page.events.length) break;
      }
    }
    $("#conn").textContent = "live";
    $("#conn").classList.add("live");
  } catch (e) {
    $("#conn").textContent = "offline";
    $("#conn").classList.remove("live");
    return;
  }
  renderState();
  renderCalls();
  renderGamePanel();
  renderReads();
  renderLog();
  markUsedCards();
}

async function start() {
  $("#table-name").textContent = TABLE;
  document.title = `tablecam - table ${TABLE} operator`;
  let demo = false;
  try { demo = (await (await fetch("/healthz")).json()).mode === "insecure-demo"; } catch (e) { /* offline */ }
  $("#demo-banner").classList.toggle("hidden", !demo);
  if (!O.token && !demo) { showLogin(""); return; }
  $("#login").classList.add("hidden");
  $("#pad").classList.remove("hidden");
  renderCards();
  renderCalls();
  refreshSoon();
  if (O.timer) clearInterval(O.timer);
  O.timer = setInterval(refreshSoon, 1000);   // camera reads and the other sources' events arrive meanwhile
}

$("#login-form").onsubmit = ev => {
  ev.preventDefault();
  O.token = $("#token").value.trim();
  sessionStorage.setItem(TOKEN_KEY, O.token);
  start();
};
$("#logout").onclick = () => { sessionStorage.removeItem(TOKEN_KEY); O.token = ""; location.reload(); };
$("#calls").onclick = onCall;
$("#cards").onclick = onCard;
$("#call-text").onsubmit = ev => {
  ev.preventDefault();
  const v = ev.target.call.value.trim();
  if (!v) return;
  ev.target.call.value = "";
  const fixed = $("#seat").value;
  send(() => { const e = callEvent(v, fixed); return e && [e]; });
};
$("#board-form").onsubmit = ev => {
  ev.preventDefault();
  const f = ev.target;
  const e = { type: "board", game: f.game.value, board: Number(f.board.value), dealer: f.dealer.value };
  if (f.game.value === "bridge") e.vulnerable = f.vulnerable.value;
  O.state = null;
  send([e]);
};
$("#board-form").game.onchange = () => { document.body.dataset.game = $("#board-form").game.value; };
$("#end-board").onclick = () => send([{ type: "end" }]);
$("#card-action").onchange = markUsedCards;
start();
