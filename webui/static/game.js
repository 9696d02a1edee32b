// The game in progress: live over Server-Sent Events; changes need the game PIN.
const C = JSON.parse(document.getElementById("components").textContent);
let snap = null, seating = [], entry = { building: "forum", dice: [] }, fixing = null;
const pinBox = document.getElementById("pin");
// The QR code printed by `alea serve` carries the PIN in the address: #pin=1234.
const fromLink = new URLSearchParams(location.hash.slice(1)).get("pin");
if (fromLink) { localStorage.setItem("alea.pin", fromLink); history.replaceState(null, "", location.pathname); }
pinBox.value = localStorage.getItem("alea.pin") || "";
pinBox.addEventListener("change", () => localStorage.setItem("alea.pin", pinBox.value.trim()));


// One change at a time: a second tap while the first is on its way (a double tap on Undo) is
// not a second change.
let sending = false;
let menuTouched = false;  // once a player opened or closed the menu, it stays as they left it
document.getElementById("menu").addEventListener("click", (e) => {
  if (e.target.tagName === "SUMMARY") menuTouched = true;
});
// The turn bar sticks under the site's bar, whatever height that has on this screen.
function barHeight() {
  document.documentElement.style.setProperty("--bar-h", `${document.querySelector(".bar").offsetHeight}px`);
}
window.addEventListener("resize", barHeight);
barHeight();

function showError(text) {
  const err = document.getElementById("error");
  err.textContent = text;
  err.hidden = false;
}

function errorText(res, out) {
  if (res.status === 429) return t("game.pin-wait");
  if (out.error.code === "auth.pin") return t(pinBox.value.trim() ? "game.pin-wrong" : "game.pin-missing");
  return out.error.message;
}

async function send(action, payload) {
  if (sending) return null;
  sending = true;
  document.getElementById("error").hidden = true;
  try {
    const res = await fetch(`/api/game/${action}`, { method: "POST",
      headers: { "Content-Type": "application/json", "X-Alea-Pin": pinBox.value.trim() },
      body: JSON.stringify(payload || {}) });
    const out = await res.json();
    if (!res.ok) { showError(errorText(res, out)); return null; }
    show(out);
    return out;
  } finally {
    sending = false;
  }
}

// Behind every rule id: its sentence as seeds/RULES.md states it, one tap away.
let helpOpen = null;
function ruleHelp(rule) {
  const text = C.rulebook[rule];
  const button = el("button", { type: "button", class: "rule-id", "data-help": rule, "aria-expanded": String(helpOpen === rule),
    on: { click: () => { helpOpen = helpOpen === rule ? null : rule; show(snap); } } }, rule);
  if (!text || helpOpen !== rule) return button;
  return el("span", {}, button, el("span", { class: "rule-help", "data-help-text": rule }, ` ${t("game.rulebook")}: ${text.replace(/[*`]/g, "")}`));
}

// Each die on the board knows where it sits in the state, so a tap can correct it.
function renderBoard(state) {
  const players = state.players;
  const tap = (where) => () => { fixing = where; renderBoard(state); };
  const fix = (where, p, v) => die(p, v, tap(where));
  const card = (name, dice) => el("article", { class: "player building", "data-building": name },
    el("h3", {}, cap(name)), el("div", { class: "dice" }, dice));
  const cards = [];
  if (C.templum_with.includes(players.length)) cards.push(card("templum", Object.entries(state.templum).flatMap(([p, vs]) => vs.map((v, i) => fix({ b: "templum", p, i }, p, v)))));
  cards.push(card("senatus", Object.entries(state.senatus).flatMap(([p, vs]) => vs.map((v, i) => fix({ b: "senatus", p, i }, p, v)))));
  cards.push(card("castrum", state.castrum.flatMap((s, k) => Array(s.count).fill(0).map(() => fix({ b: "castrum", k }, s.player, s.value)))));
  cards.push(card("forum", state.forum.map((d, i) => fix({ b: "forum", i }, d.player, d.value))));
  cards.push(card("latrina", Object.entries(state.latrina).map(([p, n]) => el("span", { class: "picker" }, die(p, "·"), `×${n}`))));
  document.getElementById("board").replaceChildren(...cards);
  const editor = document.getElementById("fix-die");
  if (!fixing) { editor.hidden = true; return; }
  editor.hidden = false;
  const choose = (player, value) => correctDie(state, fixing, player, value);
  const cur = currentDie(state, fixing);
  editor.replaceChildren(el("p", {}, t("game.fix")),
    el("div", { class: "picker" }, [1, 2, 3, 4, 5, 6].map((v) => el("button", { type: "button", class: "tile", "data-fix-value": v, on: { click: () => choose(cur.player, v) } }, String(v)))),
    el("div", { class: "picker" }, players.map((c) => el("button", { type: "button", class: `tile c-${c}`, "data-fix-player": c, on: { click: () => choose(c, cur.value) } }, `${SYMBOL[c]} ${colourName(c)}`))),
    el("button", { type: "button", class: "btn small", on: { click: () => { fixing = null; renderBoard(state); } } }, "✕"));
}

function currentDie(state, w) {
  if (w.b === "templum" || w.b === "senatus") return { player: w.p, value: state[w.b][w.p][w.i] };
  if (w.b === "castrum") return { player: state.castrum[w.k].player, value: state.castrum[w.k].value };
  return { ...state.forum[w.i] };
}

// A misread die: the server reads it anew where it lies (its building's own way of holding dice)
// and records that board as a correction.
function correctDie(state, w, player, value) {
  const was = currentDie(state, w);
  fixing = null;
  send("read-anew", {
    die: { building: w.b, player: was.player, value: was.value, ...(w.b === "forum" ? { column: w.i } : {}) },
    now: { player, value },
  });
}

function show(s) {
  snap = s;
  const g = s.game;
  const warning = document.getElementById("warning");
  warning.hidden = !s.warning;
  warning.textContent = s.warning || "";
  document.getElementById("no-game").hidden = !!g;
  // The menu stays out of the way during a game; without one (or without a PIN) it is open.
  if (!menuTouched) document.getElementById("menu").open = !g || !pinBox.value.trim();
  document.getElementById("entry").hidden = !g;
  const status = document.getElementById("status");
  if (!g) { status.replaceChildren(); document.getElementById("board").replaceChildren(); return; }
  const who = g.current_player;
  status.replaceChildren(el("h2", { id: "whose-turn", "data-player": who || "" },
    `${t("game.round")} ${g.round}/${g.rounds} · ${t("game.turn")} ${g.turn} · `,
    who ? el("span", { class: `chip c-${who}` }, `${SYMBOL[who]} ${colourName(who)}`) : (g.over ? t("game.over") : t("game.round-over")),
    who ? ` ${t("game.to-play")}` : ""));
  renderBoard(g.state);
  document.getElementById("next-round").hidden = !!who || g.over;
  document.getElementById("place").hidden = !who;
  const flag = document.getElementById("flag");
  if (g.flag) {
    // A banner over the camera image, in the first screen: the rule broken, what the camera
    // saw, and the two answers far apart so that a tap cannot hit the wrong one.
    flag.replaceChildren(el("div", { class: "verdict illegal banner", "data-rule": g.flag.rule },
      el("strong", { class: "rule-text" }, `✘ ${t(`rule.${g.flag.rule}`)} `),
      el("span", { class: "reason" }, `${reasonText(g.flag)} `), ruleHelp(g.flag.rule),
      el("div", { class: "answers" },
        el("button", { type: "button", class: "btn big-btn", id: "undo-flag", on: { click: () => send("undo") } }, t("game.undo")),
        el("button", { type: "button", class: "btn big-btn", id: "accept", on: { click: () => send("accept") } }, t("game.accept")))));
  } else flag.replaceChildren();
  announce(g);
  // The referee cannot explain the table: say so, with its reasons, and offer one tap.
  const lost = document.getElementById("unclear");
  if (g.unclear && !g.flag) {
    lost.replaceChildren(el("div", { class: "verdict unclear" },
      el("b", {}, `? ${t("game.unclear")} `), (g.unclear.notes || []).join("; "), " ",
      el("button", { type: "button", class: "btn small", id: "take-as-seen", on: { click: () => send("take-as-seen") } }, t("game.take-as-seen"))));
  } else lost.replaceChildren();
  renderHistory(g.log);
  renderEntry();
  renderPicks(g);
  renderLayOut(g);
  // One panel per player: dice still in hand, Repete chips (the camera does not see re-rolls,
  // so a chip spent is entered here) and the tiles taken so far.
  const chips = document.getElementById("chips");
  chips.replaceChildren(...g.players.map((p) => el("article", { class: `player-panel c-${p}${p === who ? " on-turn" : ""}`, "data-chips": p },
    el("span", { class: `chip c-${p}` }, `${SYMBOL[p]} ${colourName(p)} · ${g.chips[p]}`),
    el("span", { class: "dice-left", "data-dice-left": p }, ` ${t("game.dice-left")}: ${(g.state.supply || {})[p] || 0}`),
    el("span", { class: "taken" }, ` · ${t("game.tiles")}: ${g.picks.filter((x) => x.player === p && x.tile !== null).map((x) => tileText(x.kind, x.tile)).join(", ") || "–"}`),
    p === who && g.chips[p] > 0 ? el("button", { type: "button", class: "btn small", id: "spend-repete",
      on: { click: () => send("repete", { player: p }) } }, t("game.repete")) : "")));
}

// History: the latest entries come with every update; the whole game on request.
let wholeGame = false;
function historyItem(e) {
  return el("li", { "data-event": e.event, "data-kind": e.kind || "", "data-legal": String(e.legal) },
    el("span", { class: "entry-no" }, `${t("game.round")} ${e.in_round} · ${e.n}  `),
    e.move ? `${colourName(e.move.player)}: ${e.move.building} ${e.move.dice.join("+")} ` : `${e.kind === "unclear" || e.kind === "unsure" ? "?" : t(`event.${e.event}`)} `,
    e.legal === false ? el("b", { class: "error" }, `✘ ${e.rule}`) : (e.legal ? "✔" : ""),
    e.round ? el("span", { class: "round-result" }, ` · Senatus ${e.round.senatus.map((p) => colourName(p)).join(", ")} · Castrum ${e.round.castrum.map((p) => colourName(p)).join(", ")} · Forum ${e.round.forum.map((p) => colourName(p)).join(", ")}`) : "",
    (e.notes && e.notes.length) ? el("small", { class: "notes" }, ` — ${e.notes.join("; ")}`) : "");
}
async function renderHistory(latest) {
  let log = latest;
  if (wholeGame) {
    const res = await fetch("/api/game/history");
    if (res.ok) log = (await res.json()).log;
  }
  document.getElementById("history").replaceChildren(...log.slice().reverse().map(historyItem));
  document.getElementById("whole-history").textContent = t(wholeGame ? "game.latest-history" : "game.whole-history");
}
document.getElementById("whole-history").addEventListener("click", () => {
  wholeGame = !wholeGame;
  if (snap && snap.game) renderHistory(snap.game.log);
});

// Tiles as players name them; what may be taken and in which order comes from the server.
function tileText(kind, tile) {
  if (tile === null) return t("game.nothing");
  if (kind === "fortuna") return `Fortuna ${ROMAN[tile]}`;
  if (kind === "province") return `${SYMBOL[tile.color] || ""} ${colourName(tile.color)} ${ROMAN[tile.value]}`;
  if (kind === "patrician") return `${SYMBOL[tile.color]} ${tile.sex === "f" ? "♀" : "♂"}${ROMAN[tile.value]}`;
  return typeof tile === "string" ? tile : `XII ${SYMBOL[tile.colors[0]]}${SYMBOL[tile.colors[1]]}`;
}

function renderPicks(g) {
  const panel = document.getElementById("picks");
  const last = g.last_round;
  if (!last) { panel.hidden = true; return; }
  const done = g.picks.filter((p) => p.round === last.number);
  const next = g.next_pick;
  panel.hidden = false;
  const rows = last.order.map(([player, kind], i) => {
    const pick = done[i];
    const label = el("span", {}, el("span", { class: `chip c-${player}` }, `${SYMBOL[player]} ${colourName(player)}`), ` ${t("game.takes")} ${t("kind." + kind)}: `);
    if (pick) return el("li", { "data-pick": i }, label, el("b", {}, tileText(kind, pick.tile)));
    if (!next || i !== next.index) return el("li", { "data-pick": i }, label, "…");
    return el("li", { "data-pick": i, class: "pending" }, label, el("div", { class: "grid" },
      next.choices.map((tile) => el("button", { type: "button", class: `tile c-${tile.color || "card"}`,
        "data-choice": JSON.stringify(tile), on: { click: () => send("pick", { player, kind, tile }) } }, tileText(kind, tile))),
      el("button", { type: "button", class: "tile", on: { click: () => send("pick", { player, kind, tile: null }) } }, t("game.nothing"))));
  });
  panel.replaceChildren(el("h2", {}, `${t("game.picks")} ${last.number}`), el("ol", {}, rows));
}

// The tiles laid out for the round being played: picks after it take only these.
let layout = null, layoutOpen = false;  // kept across the re-renders every update brings
function renderLayOut(g) {
  const panel = document.getElementById("lay-out");
  panel.hidden = !g.current_player;
  if (panel.hidden) { layout = null; return; }
  const saved = g.laid_out || { provinces: [], patricians: [] };
  if (!layout || layout.round !== g.round) layout = { round: g.round, provinces: [...saved.provinces], patricians: [...saved.patricians] };
  const taken = g.picks.map((p) => JSON.stringify(p.tile));
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const picker = (key, kind, pool) => el("div", { class: "grid" }, pool.filter((x) => !taken.includes(JSON.stringify(x))).map((tile) => {
    const on = layout[key].some((x) => same(x, tile));
    return el("button", { type: "button", class: `tile c-${tile.color}${on ? " on" : ""}`, "aria-pressed": String(on),
      "data-lay": JSON.stringify(tile), on: { click: () => {
        layout[key] = on ? layout[key].filter((x) => !same(x, tile)) : [...layout[key], tile];
        renderLayOut(snap.game);
      } } }, tileText(kind, tile));
  }));
  panel.replaceChildren(el("details", { open: layoutOpen, on: { toggle: (e) => { layoutOpen = e.target.open; } } },
    el("summary", {}, `${t("game.lay-out")} (${saved.provinces.length + saved.patricians.length})`),
    el("h3", {}, t("kind.province")), picker("provinces", "province", C.provinces),
    el("h3", {}, t("kind.patrician")), picker("patricians", "patrician", C.patricians),
    el("button", { type: "button", class: "btn", id: "save-lay-out",
      on: { click: () => send("lay-out", { provinces: layout.provinces, patricians: layout.patricians }) } }, t("game.save-lay-out"))));
}

function renderEntry() {
  document.getElementById("entry-building").replaceChildren(...C.buildings.map((b) => el("button", {
    type: "button", class: `tile${entry.building === b ? " on c-card" : ""}`, "data-entry-building": b,
    on: { click: () => { entry.building = b; renderEntry(); } } }, cap(b))));
  const who = snap && snap.game && snap.game.current_player;
  document.getElementById("entry-dice").replaceChildren(
    ...entry.dice.map((v, i) => el("button", { type: "button", class: `die c-${who}`, on: { click: () => { entry.dice.splice(i, 1); renderEntry(); } } }, String(v))),
    ...[1, 2, 3, 4, 5, 6].map((v) => el("button", { type: "button", class: "tile", "data-entry-value": v,
      on: { click: () => { entry.dice.push(v); renderEntry(); } } }, `+${v}`)));
}

function renderSeating() {
  document.getElementById("new-seating").replaceChildren(...C.players.map((c) => el("button", {
    type: "button", class: `tile c-${c}${seating.includes(c) ? " on" : ""}`, "data-seat": c,
    on: { click: () => { const i = seating.indexOf(c); if (i >= 0) seating.splice(i, 1); else seating.push(c); renderSeating(); } } },
    `${SYMBOL[c]} ${colourName(c)}${seating.includes(c) ? " " + (seating.indexOf(c) + 1) : ""}`)));
}

document.getElementById("new-game").addEventListener("click", () => {
  const playing = snap && snap.game && !snap.game.over;
  if (playing && !window.confirm(t("game.confirm-new"))) return;
  send("new", { players: seating });
});
document.getElementById("place").addEventListener("click", async () => {
  const who = snap && snap.game && snap.game.current_player;
  if (!who) return;
  if (!entry.dice.length) { showError(t("game.no-dice")); return; }
  const out = await send("place", { move: { player: who, building: entry.building, dice: entry.dice } });
  if (out) entry.dice = [];
  renderEntry();
});
document.getElementById("next-round").addEventListener("click", () => send("next-round"));
document.getElementById("undo").addEventListener("click", () => send("undo"));
document.getElementById("redo").addEventListener("click", () => send("redo"));
document.addEventListener("alea:lang", () => { renderSeating(); if (snap) show(snap); });
renderSeating();
const source = new EventSource("/api/game/stream");
source.addEventListener("game", (e) => show(JSON.parse(e.data)));

// The camera: MJPEG video and a settled/moving indicator, when this server has a camera loop.
async function pollTable() {
  try {
    const res = await fetch("/api/game/table");
    const st = await res.json();
    const live = document.getElementById("live");
    if (!st.running && !st.error) { live.hidden = true; return; }
    if (live.hidden) { live.hidden = false; document.getElementById("video").src = "/video.mjpg"; }
    const settled = st.reason === "settled";
    const line = document.getElementById("table-status");
    line.dataset.settled = String(settled);
    document.getElementById("table-reason").textContent = st.error || whyText(st.why) || st.reason;
  } catch (e) { /* the server restarts: try again */ }
}
pollTable();
setInterval(pollTable, 1000);

// Voice: a chime and a spoken sentence, in the page's language, for every new flag and every
// round scored, so that players who do not watch the tablet hear it. The browser's own speech
// synthesis (offline); an off switch kept in this browser. What was already there when the
// page opened is not announced.
let heard = null;
const voiceButton = document.getElementById("voice");
function voiceOn() { return localStorage.getItem("alea.voice") !== "off"; }
function showVoice() {
  voiceButton.textContent = `${voiceOn() ? "♪" : "–"} ${t(voiceOn() ? "voice.on" : "voice.off")}`;
  voiceButton.setAttribute("aria-pressed", String(voiceOn()));
}
voiceButton.addEventListener("click", () => {
  localStorage.setItem("alea.voice", voiceOn() ? "off" : "on");
  showVoice();
});
document.addEventListener("alea:lang", showVoice);
showVoice();

function chime() {
  try {
    const audio = new (window.AudioContext || window.webkitAudioContext)();
    const tone = audio.createOscillator(), gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.2, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
  } catch (e) { /* no audio here: the words still come */ }
}

function say(text) {
  if (!voiceOn() || !window.speechSynthesis) return;
  chime();
  const words = new SpeechSynthesisUtterance(text);
  words.lang = LANG === "de" ? "de-DE" : "en-GB";
  window.speechSynthesis.speak(words);
}

function announce(g) {
  const now = { flag: g.flag ? `${g.flag.rule}:${g.log.length ? g.log[g.log.length - 1].id : ""}` : null,
    round: g.last_round ? g.last_round.number : 0 };
  if (heard !== null) {
    if (now.flag && now.flag !== heard.flag) say(`${t("voice.flag")} ${t(`rule.${g.flag.rule}`)}`);
    if (now.round > heard.round) say(t("voice.round").replace("{n}", String(now.round)));
  }
  heard = now;
}

// The tablet lies on the table for a whole game: keep its screen on while this page shows
// (the Screen Wake Lock API; browsers without it, or a page not served over HTTPS or
// localhost, simply let the screen sleep). A lock is dropped when the page hides, so it is
// asked for again each time the page comes back.
async function keepAwake() {
  if (!("wakeLock" in navigator) || document.visibilityState !== "visible") return;
  try { await navigator.wakeLock.request("screen"); } catch (e) { /* refused: the screen may sleep */ }
}
document.addEventListener("visibilitychange", keepAwake);
keepAwake();
