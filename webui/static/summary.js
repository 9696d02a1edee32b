// The game summary: who won what in each round, the points so far, and the record to keep.
function names(players) { return players.map((p) => `${SYMBOL[p]} ${colourName(p)}`).join(" → ") || "–"; }

function tileName(pick) {
  const x = pick.tile;
  if (x === null) return t("game.nothing");
  if (pick.kind === "fortuna") return `Fortuna ${ROMAN[x]}`;
  if (typeof x === "string") return x;
  if (x.colors) return `XII ${SYMBOL[x.colors[0]]}${SYMBOL[x.colors[1]]}`;
  if (x.sex) return `${SYMBOL[x.color]} ${x.sex === "f" ? "♀" : "♂"}${ROMAN[x.value]}`;
  return `${SYMBOL[x.color] || ""} ${colourName(x.color)} ${ROMAN[x.value]}`;
}

async function load() {
  const res = await fetch("/api/game/record");
  const none = document.getElementById("summary-none");
  if (!res.ok) { none.hidden = false; return; }
  const rec = await res.json();
  none.hidden = true;
  const head = el("tr", {}, el("th", {}, t("game.round")), el("th", {}, "Senatus"), el("th", {}, "Castrum"),
    el("th", {}, "Forum"), el("th", {}, t("summary.chips")), el("th", {}, t("summary.taken")));
  document.getElementById("rounds").replaceChildren(head, ...rec.rounds.map((r) => el("tr", { "data-round": r.round },
    el("td", {}, String(r.round)), el("td", {}, names(r.result.senatus)), el("td", {}, names(r.result.castrum)),
    el("td", {}, names(r.result.forum)),
    el("td", {}, Object.entries(r.chips_earned).filter(([, n]) => n).map(([p, n]) => `${SYMBOL[p]} ${n}`).join(", ") || "–"),
    el("td", {}, r.picks.map((p) => `${SYMBOL[p.player]} ${tileName(p)}`).join(", ") || "–"))));
  const scored = await fetch("/api/final", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(rec.inventory) });
  const out = await scored.json();
  if (!scored.ok) { document.getElementById("scores").replaceChildren(el("p", { class: "error" }, out.error.message)); return; }
  const order = out.players.slice().sort((a, b) => b.total - a.total);
  // Before a round is scored nobody leads; the crown says "winner" only once the last round is.
  const ahead = (p) => rec.rounds.length > 0 && out.winners.includes(p);
  const crown = t(rec.over ? "final.winner" : "summary.leading");
  document.getElementById("scores").replaceChildren(...order.map((s) => el("article", {
    class: `result${ahead(s.player) ? " winner" : ""}`, "data-player": s.player },
    el("h2", {}, el("span", { class: `chip c-${s.player}` }, `${SYMBOL[s.player]} ${colourName(s.player)}`),
      ahead(s.player) ? el("span", { class: "crown" }, `♛ ${crown}`) : "",
      el("span", { class: "total" }, String(s.total))))));
}
document.getElementById("print").addEventListener("click", () => window.print());
document.addEventListener("alea:lang", load);
load();
