// Final scoring: tap the tiles and cards each player holds, then score with /api/final.
// Every tile exists once in the box, so a tile taken by one player is greyed out for the others.
const C = JSON.parse(document.getElementById("components").textContent);
const state = { players: [] };

function newPlayer() {
  const used = new Set(state.players.map((p) => p.player));
  const color = C.players.find((c) => !used.has(c));
  if (!color) return;
  state.players.push({ player: color, provinces: [], patricians: [], senate: [], fortuna: [0, 0, 0], repete: 0 });
  render();
}

const tileKey = (t) => JSON.stringify(t);
function takenByOthers(kind, key, me) {
  return state.players.some((p) => p !== me && p[kind].some((t) => tileKey(t) === key));
}
function toggle(list, item) {
  const i = list.findIndex((t) => tileKey(t) === tileKey(item));
  if (i >= 0) list.splice(i, 1); else list.push(item);
}

const chip = (color, text) => el("span", { class: `chip c-${color}` }, `${SYMBOL[color] || ""} ${text}`);

function tileButton(p, kind, tile, label) {
  const key = tileKey(tile);
  const on = p[kind].some((t) => tileKey(t) === key);
  return el("button", {
    type: "button", class: `tile c-${tile.color || "card"}${on ? " on" : ""}`,
    "aria-pressed": on ? "true" : "false", disabled: !on && takenByOthers(kind, key, p),
    "data-tile": key, on: { click: () => { toggle(p[kind], tile); render(); } },
  }, label);
}

function counter(label, value, set) {
  return el("div", { class: "counter" }, el("span", { class: "clabel" }, label),
    el("button", { type: "button", class: "step", "aria-label": `${label} −`, on: { click: () => set(Math.max(0, value - 1)) } }, "−"),
    el("output", {}, String(value)),
    el("button", { type: "button", class: "step", "aria-label": `${label} +`, on: { click: () => set(value + 1) } }, "+"));
}

function playerCard(p, index) {
  const colorSelect = el("select", { class: "who", "aria-label": t("final.player-colour"),
    on: { change: (e) => { p.player = e.target.value; render(); } } },
    C.players.map((c) => el("option", { value: c, selected: c === p.player,
      disabled: c !== p.player && state.players.some((q) => q.player === c) }, `${SYMBOL[c]} ${colourName(c)}`)));
  const provinces = el("div", { class: "grid" }, C.provinces.map((t) =>
    tileButton(p, "provinces", { color: t.color, value: t.value }, `${SYMBOL[t.color]} ${ROMAN[t.value]}`)));
  const patricians = el("div", { class: "grid" }, C.patricians.map((t) =>
    tileButton(p, "patricians", { color: t.color, sex: t.sex, value: t.value },
      `${SYMBOL[t.color]} ${t.sex === "f" ? "♀" : "♂"}${ROMAN[t.value]}`)));
  const singles = C.senate_singles.map((c) => tileButton(p, "senate", c, c));
  const borders = C.border_pairs.map((pair) => tileButton(p, "senate", { card: "XII", colors: pair },
    `XII ${SYMBOL[pair[0]]}${SYMBOL[pair[1]]}`));
  const free = p.senate.filter((c) => c === "XIII").length;
  const senate = el("div", { class: "grid" }, singles, borders,
    counter(t("final.free") + " XIII", free, (n) => {
      const others = state.players.filter((q) => q !== p).reduce((s, q) => s + q.senate.filter((c) => c === "XIII").length, 0);
      n = Math.min(n, 2 - others);
      p.senate = p.senate.filter((c) => c !== "XIII").concat(Array(n).fill("XIII")); render();
    }));
  const fortuna = el("div", { class: "row" }, [1, 2, 3].map((v) =>
    counter(`Fortuna ${ROMAN[v]}`, p.fortuna[v - 1], (n) => { p.fortuna[v - 1] = n; render(); })));
  const repete = counter(t("final.repete"), p.repete, (n) => { p.repete = n; render(); });
  return el("article", { class: `player c-${p.player}`, "data-player": p.player },
    el("header", {}, colorSelect,
      el("button", { type: "button", class: "btn small", on: { click: () => { state.players.splice(index, 1); render(); } } }, t("final.remove"))),
    el("h3", {}, t("final.provinces")), provinces,
    el("h3", {}, t("final.patricians")), patricians,
    el("h3", {}, t("final.senate")), senate,
    el("h3", {}, t("final.fortuna")), fortuna, repete);
}

// The entries survive a reload (75 taps are not entered twice): kept in this browser.
const SAVED = "alea.final";
function render() {
  const root = document.getElementById("players");
  root.replaceChildren(...state.players.map(playerCard));
  document.getElementById("add-player").disabled = state.players.length >= C.players.length;
  localStorage.setItem(SAVED, JSON.stringify(state));
}
function restore() {
  try {
    const saved = JSON.parse(localStorage.getItem(SAVED) || "null");
    if (!saved || !Array.isArray(saved.players) || !saved.players.length) return false;
    state.players = saved.players;
    state.playerCount = saved.playerCount;
    render();
    return true;
  } catch (e) { return false; }
}
function startOver() {
  state.players = [];
  delete state.playerCount;
  document.getElementById("results").replaceChildren();
  newPlayer(); newPlayer();
}
// A card by its numeral and what it scores, as players call it.
function cardName(card) {
  const numeral = typeof card === "string" ? card : card.card;
  return `${numeral} · ${t(`card.${numeral}`)}`;
}

function payload() {
  return {
    // From the game page: its player count, so card IV is judged as the rules say.
    ...(state.playerCount ? { player_count: state.playerCount } : {}),
    players: state.players.map((p) => ({
      player: p.player, provinces: p.provinces, patricians: p.patricians, senate: p.senate,
      fortuna: p.fortuna.flatMap((n, i) => Array(n).fill(i + 1)), repete: p.repete,
    })),
  };
}

// The optimal assignment drawn as provinces holding their patricians (the text says it too,
// for screen readers and for players who prefer words).
function patricianChip(p, offspring) {
  return el("span", { class: `patrician c-${p.color}${offspring ? " offspring" : ""}`, title: `${p.color} ${p.sex === "f" ? t("woman") : t("man")} ${ROMAN[p.value]}` },
    `${SYMBOL[p.color]}${p.sex === "f" ? "♀" : "♂"}${ROMAN[p.value]}`);
}
function provinceTile(a) {
  const colors = a.kind === "border" ? a.colors : [a.color || (a.patricians[0] || {}).color || "joker"];
  const name = a.kind === "border" ? `XII ${a.colors.map((c) => SYMBOL[c]).join("")}`
    : a.kind === "free" ? "XIII" : a.color === "joker" ? `${SYMBOL.joker} 0` : `${SYMBOL[a.color]} ${ROMAN[a.value]}`;
  return el("div", { class: `province ${a.kind} c-${colors[0]}`, "data-province": a.text, title: a.text },
    el("div", { class: "pname" }, name),
    el("div", { class: "held" }, a.patricians.map((p) => patricianChip(p)), a.offspring ? patricianChip(a.offspring, true) : null),
    el("div", { class: "ppoints" }, `${a.points}`));
}

function showResults(out) {
  const root = document.getElementById("results");
  const win = out.winners || [];
  const cards = out.players.slice().sort((a, b) => b.total - a.total).map((r) => {
    const rows = Object.entries(r.breakdown).map(([k, v]) =>
      el("tr", {}, el("th", {}, t(`final.breakdown.${k}`)), el("td", {}, String(v))));
    const assignment = el("div", { class: "assignment" }, (r.assignment || []).map(provinceTile),
      (r.unplaced || []).length ? el("div", { class: "unplaced" }, `${t("final.unplaced")}: `,
        r.unplaced.map((p) => patricianChip(p))) : null);
    const cardList = el("ul", { class: "cards" }, (r.cards || []).map((c) =>
      el("li", { "data-card": typeof c.card === "string" ? c.card : c.card.card }, `${cardName(c.card)}: ${c.points}`)));
    return el("article", { class: `result c-${r.player}${win.includes(r.player) ? " winner" : ""}`, "data-player": r.player },
      el("h2", {}, chip(r.player, r.player), " ", el("span", { class: "total", "data-total": r.total }, String(r.total)),
        win.includes(r.player) ? el("span", { class: "crown" }, ` ♛ ${t("final.winner")}`) : null),
      el("table", { class: "breakdown" }, rows,
        el("tr", {}, el("th", {}, t("final.unplaced")), el("td", {}, String(r.unplaced_value)))),
      assignment, cardList);
  });
  root.replaceChildren(...cards);
  root.scrollIntoView({ behavior: "smooth" });
}

async function score() {
  const err = document.getElementById("error");
  err.hidden = true;
  const res = await fetch("/api/final", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload()) });
  const out = await res.json();
  if (!res.ok) { err.textContent = out.error.message + ` (${out.error.path})`; err.hidden = false; return; }
  showResults(out);
}

document.getElementById("add-player").addEventListener("click", newPlayer);
document.getElementById("score").addEventListener("click", score);
document.getElementById("start-over").addEventListener("click", startOver);
document.addEventListener("alea:lang", render);
// Opened from the game page: start from the tiles picked during the game.
async function fromGame() {
  const res = await fetch("/api/game/inventory");
  if (!res.ok) return false;
  const inv = await res.json();
  state.playerCount = inv.player_count;
  state.players = inv.players.map((p) => ({ player: p.player, provinces: p.provinces, patricians: p.patricians,
    senate: p.senate, fortuna: [1, 2, 3].map((v) => p.fortuna.filter((x) => x === v).length), repete: p.repete }));
  render();
  return true;
}
(new URLSearchParams(location.search).get("from") === "game" ? fromGame() : Promise.resolve(false))
  .then((loaded) => { if (!loaded && !restore()) { newPlayer(); newPlayer(); } });
