// Public broadcast: delayed, trick by trick. It only ever receives what the server's
// delayed fold has released, so there is nothing early to hide in this page.
"use strict";

const B = { tables: new Map(), current: null, delay: "", step: null, timer: null };  // step: trick shown (null = latest)
const $ = sel => document.querySelector(sel);

function pick() {
  const want = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
  const ids = [...B.tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const next = B.tables.has(want) ? want : (ids[0] || null);
  if (next !== B.current) B.step = null;
  B.current = next;
  $("#tablepick").innerHTML = ids.map(id =>
    `<a href="#${encodeURIComponent(id)}" class="${id === B.current ? "active" : ""}">Table ${esc(id)}</a>`).join("");
  render();
}

function render() {
  const st = B.tables.get(B.current);
  const stage = $("#stage");
  $("#delay").textContent = B.delay ? `delayed by ${B.delay}` : "";
  if (!st || st.board === null || st.board === undefined) {
    stage.innerHTML = `<div class="waiting">Waiting for play${B.current ? " at table " + esc(B.current) : ""}.
      The broadcast is delayed (${esc(B.delay || "by the organiser")}) so no hand is shown while it can still be played.</div>`;
    return;
  }
  const dealt = st.dealt || st.hands || {};
  const all = (st.tricks || []).slice();
  if (st.trick && st.trick.cards && st.trick.cards.length) all.push(st.trick);
  const latest = all.length - 1;
  const k = B.step === null ? latest : Math.max(0, Math.min(B.step, latest));
  let held = st.hands || {};
  if (B.step !== null && k < latest) {  // replaying an earlier trick: cards played after it are back in hand
    const gone = new Set(all.slice(0, k + 1).flatMap(t => (t.cards || []).map(p => p.card)));
    held = {};
    for (const seat of SEATS) held[seat] = (dealt[seat] || []).filter(c => !gone.has(c));
  }
  const following = B.step === null || k === latest;
  const h = seat => handHTML(seat, dealt[seat] || [], held[seat] || null,
                             { turn: following && st.phase === "play" && st.turn === seat });
  const cur = all[k] || { cards: [] };
  const n = k + 1;
  const tw = st.tricks_won || {};
  stage.innerHTML = `<div class="bigline">Table ${esc(st.table)} \u00b7 Board ${esc(st.board)} \u00b7
      ${esc(st.game || "")} \u00b7 dealer ${esc(st.dealer || "\u2013")}${st.vulnerable ? " \u00b7 vul " + esc(st.vulnerable) : ""}
      ${st.contract ? " \u00b7 <b>" + contractHTML(st.contract) + "</b>" + (st.declarer ? " by " + esc(st.declarer) : "") : ""}</div>
    <div class="compass">
      <div class="a">${st.auction && st.auction.length ? `<div class="bauction"><h3>Auction</h3>${auctionHTML(st.auction, st.dealer, st.game)}</div>` : ""}</div>
      <div class="n">${h("N")}</div>
      <div class="x"><div class="tricksum">Tricks: ${wonHTML(tw)}<br><span class="muted">${esc(st.phase || "")}</span>${outcomeHTML(st)}</div>
      ${all.length ? `<div class="stepper"><button data-step="prev" aria-label="previous trick">\u25c0</button>
        <button data-step="next" aria-label="next trick">\u25b6</button><br>
        <button data-step="replay" class="${B.timer ? "on" : ""}">Replay from trick 1</button><br>
        <button data-step="live" class="${B.step === null && !B.timer ? "on" : ""}">Follow play</button></div>` : ""}</div>
      <div class="w">${h("W")}</div>
      <div class="t">${trickHTML(cur, n ? "trick " + n : "")}</div><div class="e">${h("E")}</div><div class="s">${h("S")}</div></div>
    ${rulingsHTML(st.rulings)}`;
}

// How the board ended: a claim (the cards still in hand were not played) and the result.
function outcomeHTML(st) {
  let s = "";
  if (st.claim) {
    s += `<div class="claim">Claim: <b>${esc(st.claim.seat || "?")}</b> claims ${esc(st.claim.tricks)} trick${st.claim.tricks === 1 ? "" : "s"} for ${["N", "S"].includes(st.claim.seat) ? "NS" : "EW"}` +
      (st.phase === "finished" ? `<br><span class="muted">accepted; the cards left in hand were not played</span>` : "") + "</div>";
  }
  const r = st.result;
  if (r) {
    const line = r.contract && r.contract !== "Pass" && r.declarer
      ? `${contractHTML(r.contract)} by ${esc(r.declarer)}${r.tricks === null || r.tricks === undefined ? "" : ", " + esc(r.tricks) + " tricks"}`
      : ruleTextHTML(r.text || "");
    s += `<div class="result">Result: <b>${line}</b></div>`;
  }
  return s;
}

// The director's applied rulings: the adjusted result beside the table's.
function rulingsHTML(rulings) {
  if (!rulings || !rulings.length) return "";
  const res = r => r.declarer ? `${contractHTML(r.contract)} by ${esc(r.declarer)}, ${esc(r.tricks)} tricks` : contractHTML(r.contract);
  const score = sc => sc === undefined || sc === null ? "" : " \u00b7 score " +
    (typeof sc === "object" ? Object.keys(sc).map(k => `${esc(k)} ${esc(sc[k])}`).join(", ") : esc(sc));
  return `<div class="rulings"><h3>Director's rulings</h3><ul>${rulings.map(r => `<li class="ruling">Board ${esc(r.board)}
    (${esc(r.rule || r.law)}): <b>${res(r)}</b>${score(r.score)}${r.original ? ` <span class="muted">(table result ${res(r.original)})</span>` : ""}</li>`).join("")}</ul></div>`;
}

document.addEventListener("click", ev => {
  const b = ev.target.closest("[data-step]");
  if (!b) return;
  const st = B.tables.get(B.current);
  if (!st) return;
  const n = (st.tricks || []).length + (st.trick && st.trick.cards && st.trick.cards.length ? 1 : 0);
  const cur = B.step === null ? n - 1 : B.step;
  stopReplay();
  if (b.dataset.step === "prev") B.step = Math.max(0, cur - 1);
  else if (b.dataset.step === "next") B.step = cur + 1 >= n - 1 ? null : cur + 1;
  else if (b.dataset.step === "replay") {
    // the board trick by trick, one every few seconds, then back to following the play
    B.step = 0;
    B.timer = setInterval(() => {
      const s2 = B.tables.get(B.current);
      const m = s2 ? (s2.tricks || []).length + (s2.trick && s2.trick.cards && s2.trick.cards.length ? 1 : 0) : 0;
      if (B.step === null || B.step + 1 >= m) { stopReplay(); B.step = null; } else B.step += 1;
      render();
    }, 3000);
  } else B.step = null;
  render();
});

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/broadcast`);
  ws.onopen = () => { $("#conn").textContent = "live"; $("#conn").classList.add("live"); };
  ws.onclose = () => {
    $("#conn").textContent = "reconnecting"; $("#conn").classList.remove("live");
    setTimeout(connect, 3000);
  };
  ws.onmessage = m => {
    const msg = JSON.parse(m.data);
    if (msg.type === "hello") {
      B.delay = msg.delay;
      B.tables = new Map(msg.tables.map(t => [t.table, t]));
      pick();
    } else if (msg.type === "table") {
      const isNew = !B.tables.has(msg.state.table);
      const before = B.tables.get(msg.state.table);
      if (before && before.board !== msg.state.board && msg.state.table === B.current) B.step = null;
      B.tables.set(msg.state.table, msg.state);
      if (isNew) pick(); else if (msg.state.table === B.current) render();
    }
  };
}

function stopReplay() {
  if (B.timer) { clearInterval(B.timer); B.timer = null; }
}

window.onhashchange = () => { stopReplay(); pick(); };
connect();
