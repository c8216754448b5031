// Shared rendering helpers for the director station and the broadcast.
// Everything that came from a table is escaped: a forged table must not inject markup.
"use strict";
const SUIT_SYM = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SEATS = ["N", "E", "S", "W"];
const RANK_ORDER = "AKQJT98765432";

function esc(v) {
  return String(v === null || v === undefined ? "" : v)
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function cardHTML(card, cls) {
  card = String(card || "");
  if (card === "JK") return `<span class="card ${cls || ""}">JK</span>`;
  const s = card[0], r = card.slice(1) === "T" ? "10" : card.slice(1);
  if (!SUIT_SYM[s]) return `<span class="card ${cls || ""}">${esc(card)}</span>`;
  return `<span class="card suit-${s} ${cls || ""}">${SUIT_SYM[s]}${esc(r)}</span>`;
}

function callHTML(call) {
  call = String(call || "");
  const m = /^([1-7])([CDHSN])T?$/.exec(call);
  if (m) {
    if (m[2] === "N") return `${m[1]}NT`;
    return `${m[1]}<span class="suit-${m[2]}">${SUIT_SYM[m[2]]}</span>`;
  }
  if (call === "P") return "Pass";
  return esc(call);
}

function contractHTML(c) {
  if (!c) return "\u2013";
  const m = /^([1-7])([CDHSN])T?(X{0,2})$/.exec(String(c));
  if (!m) return esc(c);
  return callHTML(m[1] + m[2]) + esc(m[3]);
}

// A hand as rows by suit; cards in `played` are shown faded (as dealt, then played).
function handHTML(seat, cards, held, opts) {
  opts = opts || {};
  const bySuit = { S: [], H: [], D: [], C: [], X: [] };
  for (const c of cards || []) {
    const s = String(c)[0];
    (bySuit[s] || bySuit.X).push(String(c));
  }
  const heldSet = held ? new Set(held) : null;
  let rows = "";
  for (const s of ["S", "H", "D", "C"]) {
    const cs = bySuit[s].sort((a, b) => RANK_ORDER.indexOf(a.slice(1)) - RANK_ORDER.indexOf(b.slice(1)));
    const ranks = cs.map(c => {
      const r = c.slice(1) === "T" ? "10" : c.slice(1);
      const gone = heldSet && !heldSet.has(c);
      return `<span class="card ${gone ? "played" : ""}" data-card="${esc(c)}">${esc(r)}</span>`;
    }).join("");
    rows += `<div class="row"><span class="sym suit-${s}">${SUIT_SYM[s]}</span>${ranks || '<span class="muted">\u2014</span>'}</div>`;
  }
  if (bySuit.X.length) rows += `<div class="row">${bySuit.X.map(c => cardHTML(c)).join("")}</div>`;
  const name = opts.name ? ` <span class="muted">${esc(opts.name)}</span>` : "";
  if (!(cards || []).length && !opts.always) {
    return `<div class="hand" data-seat="${esc(seat)}"><h3>${esc(seat)}${name}</h3><p class="muted">no cards dealt</p></div>`;
  }
  return `<div class="hand ${opts.turn ? "turn" : ""}" data-seat="${esc(seat)}"><h3>${esc(seat)}${name}</h3>${rows}</div>`;
}

function trickHTML(trick, label) {
  let slots = "";
  if (trick && Array.isArray(trick.cards)) {
    trick.cards.forEach((p, i) => {
      const seat = SEATS.includes(p.seat) ? p.seat : "N";
      slots += `<div class="slot ${seat} ${i === 0 ? "lead" : ""}" data-seat="${seat}">${cardHTML(p.card)}</div>`;
    });
  }
  return `<div class="trick">${slots}<div class="label">${esc(label || "")}</div></div>`;
}

function auctionHTML(auction, dealer, game) {
  const cols = ["W", "N", "E", "S"];
  if (!auction || !auction.length) return '<span class="muted">no calls yet</span>';
  if (game && game !== "bridge") {  // not every seat bids in turn (Vira's sitter-out, whist's joins): a list
    return `<ol class="calls">${auction.map(c => `<li><b>${esc(c.seat)}</b> ${callHTML(c.call)}</li>`).join("")}</ol>`;
  }
  let start = cols.indexOf(auction[0].seat || dealer || "W");
  if (start < 0) start = 0;
  const cells = [];
  for (let i = 0; i < start; i++) cells.push("");
  for (const c of auction) cells.push(callHTML(c.call));
  let rows = "";
  for (let i = 0; i < cells.length; i += 4) {
    rows += "<tr>" + [0, 1, 2, 3].map(j => `<td>${cells[i + j] === undefined ? "" : cells[i + j]}</td>`).join("") + "</tr>";
  }
  return `<table class="auction"><tr>${cols.map(c => `<th>${c}</th>`).join("")}</tr>${rows}</table>`;
}

function ago(seconds) {
  if (seconds === null || seconds === undefined) return "never";
  seconds = Math.max(0, Math.round(seconds));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

function clock(epoch) {
  if (!epoch) return "";
  const d = new Date(epoch * 1000);
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

function eventText(e) {
  const skip = new Set(["index", "at", "type", "ts", "source"]);
  const parts = [];
  for (const k of Object.keys(e)) if (!skip.has(k)) parts.push(`${k}=${typeof e[k] === "object" ? JSON.stringify(e[k]) : e[k]}`);
  return `#${e.index} ${clock(e.at)} ${e.type}${e.source ? " [" + e.source + "]" : ""} ${parts.join(" ")}`;
}

const CARD_RE = /^(?:[SHDC](?:[AKQJT98765432]|10)|JK)$/;

// A list of cards (a turned trick, a discard) with symbols, each with its seat where the event names them.
function cardsHTML(cards, seats) {
  return cards.map((c, i) => (seats && seats[i] ? `${esc(seats[i])}\u00a0` : "") + cardHTML(c)).join(" ");
}

// One event as a readable line, with card symbols (for the evidence list and the event log).
function eventHTML(e) {
  const skip = new Set(["index", "at", "type", "ts", "source", "card", "seat", "to", "call", "uncertain", "candidates"]);
  let s = `<span class="muted">#${esc(e.index)} ${esc(clock(e.at))}</span> <b>${esc(String(e.type).replace(/_/g, " "))}</b>`;
  if (e.seat) s += ` ${esc(e.seat)}`;
  if (e.to) s += ` \u2192 ${esc(e.to)}`;
  if (e.card) s += ` ${cardHTML(e.card)}`;
  if (e.call) s += ` ${callHTML(e.call)}`;
  // A camera read it could not be sure of: the director checks the card at the table.
  if (e.uncertain) {
    const cands = Array.isArray(e.candidates) ? e.candidates : [];
    s += ` <span class="unsure" title="the camera could not read this card surely; check it at the table">camera unsure</span>`;
    if (cands.length) s += ` <span class="muted">candidates: ${cands.map(c => c && typeof c === "object"
      ? `${cardHTML(c.card)} ${esc(Math.round(100 * Number(c.conf || 0)))}%` : cardHTML(c)).join(", ")}</span>`;
  }
  const isCards = v => Array.isArray(v) && v.length && v.every(c => CARD_RE.test(String(c)));
  if (isCards(e.cards)) {   // trick_turned, discards, purchases: the cards, not a JSON list
    skip.add("cards");
    const seats = Array.isArray(e.seats) && e.seats.length === e.cards.length ? e.seats : null;
    if (seats) skip.add("seats");
    if (Number.isInteger(e.trick)) { skip.add("trick"); s += ` trick ${esc(e.trick)}:`; }
    s += ` ${cardsHTML(e.cards, seats)}`;
  }
  for (const k of Object.keys(e)) {
    if (skip.has(k)) continue;
    const v = e[k];
    const text = isCards(v) ? cardsHTML(v) : esc(Array.isArray(v) ? v.join(" ") : typeof v === "object" ? JSON.stringify(v) : v);
    s += ` <span class="muted">${esc(k)}</span> ${text}`;
  }
  if (e.source) s += ` <span class="muted">[${esc(e.source)}]</span>`;
  return s;
}

// A director's text (a finding's message, options, remedy) with the suit symbols the rest of the page uses:
// cards (H2, ST -> \u26652, \u266010), bids and contracts (3C, 4SX -> 3\u2663, 4\u2660X; 3N -> 3NT). Escaped first.
function ruleTextHTML(text) {
  return esc(text)
    .replace(/\b([1-7])([CDHS])(X{0,2})\b/g, (m, n, s, x) => `${n}<span class="suit-${s}">${SUIT_SYM[s]}</span>${x}`)
    .replace(/\b([1-7])N(?:T)?(X{0,2})\b/g, (m, n, x) => `${n}NT${x}`)
    .replace(/\b([SHDC])([AKQJT98765432])\b/g, (m, s, r) => cardHTML(s + r, "inline"));
}

// Tricks won, whatever the game keys them by (NS/EW in bridge, seats in Vira).
function wonHTML(tw) {
  const keys = Object.keys(tw || {});
  if (!keys.length) return "NS <b>0</b> \u00b7 EW <b>0</b>";
  return keys.map(k => `${esc(k)} <b>${esc(tw[k])}</b>`).join(" \u00b7 ");
}
