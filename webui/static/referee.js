// Referee calculator: build a board by tapping dice into buildings, then check a move against it
// (/api/check) or score the round (/api/round). The server decides everything; this page only
// edits the board-state JSON of CONTRACT.md.
const C = JSON.parse(document.getElementById("components").textContent);
let board = emptyBoard(["grey", "brown", "blue", "green"]);
let pick = { player: "grey", value: 1 };
let move = { building: "forum", dice: [], roll: [] };

function emptyBoard(players) {
  return { players, templum: {}, senatus: {}, castrum: [], forum: [], latrina: {}, supply: {} };
}

// Taps are laid one after another, each on the board the one before it made.
let laying = Promise.resolve();
function addDie(building) { const { player, value } = pick; laying = laying.then(() => layDie(building, player, value)); }

async function layDie(building, player, value) {
  if (!board.players.includes(player)) return;
  // The server lays the die where the rules put it (the Forum's order, the Castrum's sets).
  const res = await fetch("/api/lay", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ state: board, move: { player, building, dice: [value] } }) });
  const out = await res.json();
  if (!res.ok) { document.getElementById("verdict").replaceChildren(el("p", { class: "error" }, out.error.message)); return; }
  board = out.state;
  render();
}

function buildingCard(name) {
  let dice = [];
  if (name === "templum" || name === "senatus") {
    for (const [p, vs] of Object.entries(board[name])) vs.forEach((v, i) => dice.push(die(p, v, () => {
      vs.splice(i, 1); if (!vs.length) delete board[name][p]; render(); })));
  } else if (name === "castrum") {
    board.castrum.forEach((s) => dice.push(el("span", { class: "picker" }, die(s.player, s.value, () => {
      s.count -= 1; if (!s.count) board.castrum.splice(board.castrum.indexOf(s), 1); render(); }), `×${s.count}`)));
  } else if (name === "forum") {
    board.forum.forEach((d, i) => dice.push(die(d.player, d.value, () => { board.forum.splice(i, 1); render(); })));
  } else {
    for (const [p, n] of Object.entries(board[name])) dice.push(el("span", { class: "picker" },
      die(p, "·", () => { board[name][p] -= 1; if (!board[name][p]) delete board[name][p]; render(); }), `×${n}`));
  }
  return el("article", { class: "player building", "data-building": name },
    el("header", {}, el("h3", {}, cap(name)),
      el("button", { type: "button", class: "btn small", "data-add": name, on: { click: () => addDie(name) } }, "+")),
    el("div", { class: "dice" }, dice));
}

function render() {
  document.getElementById("seating").replaceChildren(...C.players.map((c) => el("button", {
    type: "button", class: `tile c-${c}${board.players.includes(c) ? " on" : ""}`, "data-seat": c,
    on: { click: () => {
      const i = board.players.indexOf(c);
      if (i >= 0) board.players.splice(i, 1); else board.players.push(c);
      render(); } } }, `${SYMBOL[c]} ${colourName(c)}${board.players.includes(c) ? " " + (board.players.indexOf(c) + 1) : ""}`)));
  document.getElementById("die-player").replaceChildren(...board.players.map((c) => el("button", {
    type: "button", class: `tile c-${c}${pick.player === c ? " on" : ""}`, "data-pick-player": c,
    on: { click: () => { pick.player = c; render(); } } }, `${SYMBOL[c]} ${colourName(c)}`)));
  document.getElementById("die-value").replaceChildren(...[1, 2, 3, 4, 5, 6].map((v) => el("button", {
    type: "button", class: `tile${pick.value === v ? " on c-card" : ""}`, "data-pick-value": v,
    on: { click: () => { pick.value = v; render(); } } }, String(v))));
  const shown = C.buildings.filter((b) => b !== "templum" || C.templum_with.includes(board.players.length));
  document.getElementById("board").replaceChildren(...shown.map(buildingCard));
  document.getElementById("move-building").replaceChildren(...C.buildings.map((b) => el("button", {
    type: "button", class: `tile${move.building === b ? " on c-card" : ""}`, "data-move-building": b,
    on: { click: () => { move.building = b; render(); } } }, cap(b))));
  const diceRow = (key) => [...move[key].map((v, i) => die(pick.player, v, () => { move[key].splice(i, 1); render(); })),
    ...[1, 2, 3, 4, 5, 6].map((v) => el("button", { type: "button", class: "tile", "data-add-value": `${key}:${v}`,
      on: { click: () => { move[key].push(v); render(); } } }, `+${v}`))];
  document.getElementById("move-dice").replaceChildren(...diceRow("dice"));
  document.getElementById("move-roll").replaceChildren(...diceRow("roll"));
}

async function post(url, body) {
  const err = document.getElementById("error");
  err.hidden = true;
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const out = await res.json();
  if (!res.ok) { err.textContent = `${out.error.message} (${out.error.path})`; err.hidden = false; return null; }
  return out;
}

document.getElementById("check").addEventListener("click", async () => {
  const body = { state: board, move: { player: pick.player, building: move.building, dice: move.dice } };
  if (move.roll.length) body.roll = move.roll;
  const out = await post("/api/check", body);
  if (!out) return;
  const v = document.getElementById("verdict");
  if (out.legal) {
    const apply = el("button", { type: "button", class: "btn", id: "apply", on: { click: () => {
      board = out.state; move.dice = []; move.roll = []; v.replaceChildren(); render(); } } }, t("referee.apply"));
    const pushed = out.pushed_out.map((d) => die(d.player, d.value));
    v.replaceChildren(el("div", { class: "verdict legal", "data-legal": "true" }, `✔ ${t("referee.legal")} `, ...pushed, " ", apply));
  } else {
    v.replaceChildren(el("div", { class: "verdict illegal", "data-legal": "false", "data-rule": out.rule },
      `✘ ${t("referee.illegal")}: ${reasonText(out)} `, el("code", {}, out.rule)));
  }
});
document.getElementById("round").addEventListener("click", async () => {
  const out = await post("/api/round", board);
  if (!out) return;
  const line = (k, v) => el("tr", {}, el("th", {}, k), el("td", {}, v));
  document.getElementById("verdict").replaceChildren(el("table", { class: "breakdown", id: "round-result" },
    line("Templum", Object.entries(out.templum).map(([p, n]) => `${SYMBOL[p]} ${colourName(p)} ${n}`).join(", ")),
    line("Senatus", out.senatus.map((p) => `${SYMBOL[p]} ${colourName(p)}`).join(" → ")),
    line("Castrum", out.castrum.map((p) => `${SYMBOL[p]} ${colourName(p)}`).join(" → ")),
    line("Forum", out.forum.map((p) => `${SYMBOL[p]} ${colourName(p)}`).join(" → ")),
    line("Repete", Object.entries(out.repete).map(([p, n]) => `${SYMBOL[p]} ${colourName(p)} ${n}`).join(", "))));
});
document.getElementById("clear").addEventListener("click", () => { board = emptyBoard(board.players); move.dice = []; move.roll = []; render(); });
document.addEventListener("alea:lang", render);
render();
