// Calibration wizard: markers found, the rectified board with draggable zones, dice colours.
const pinBox = document.getElementById("pin");
pinBox.value = localStorage.getItem("alea.pin") || "";
pinBox.addEventListener("change", () => localStorage.setItem("alea.pin", pinBox.value.trim()));
let layout = null, original = null, drag = null;
const svg = document.getElementById("zones");
const NS = "http://www.w3.org/2000/svg";

// Every rectangle of the layout: the four buildings and the Forum's pedestals.
function shapes() {
  const z = layout.zones;
  const out = ["templum", "senatus", "castrum", "latrina"].filter((n) => z[n].rect).map((n) => ({ name: n, shape: z[n] }));
  // A pedestal is too narrow for "forum 7": the number in it, the building's name over the row.
  z.forum.pedestals.forEach((p, i) => { if (p.rect) out.push({ name: `forum ${i + 1}`, text: String(i + 1), over: i === 0 ? "forum" : null, shape: p }); });
  return out;
}

function draw() {
  svg.setAttribute("viewBox", `0 0 ${layout.board.width} ${layout.board.height}`);
  svg.replaceChildren();
  for (const { name, text, over, shape } of shapes()) {
    const [x0, y0, x1, y1] = shape.rect;
    const g = document.createElementNS(NS, "g");
    g.dataset.zone = name;
    const r = document.createElementNS(NS, "rect");
    Object.entries({ x: x0, y: y0, width: x1 - x0, height: y1 - y0, class: "zone" }).forEach(([k, v]) => r.setAttribute(k, v));
    const handle = document.createElementNS(NS, "rect");
    Object.entries({ x: x1 - 6, y: y1 - 6, width: 12, height: 12, class: "handle" }).forEach(([k, v]) => handle.setAttribute(k, v));
    const label = document.createElementNS(NS, "text");
    Object.entries({ x: x0 + 2, y: y0 + 8, class: "zone-label" }).forEach(([k, v]) => label.setAttribute(k, v));
    label.textContent = text || name;
    if (over) {
      const title = document.createElementNS(NS, "text");
      Object.entries({ x: x0, y: y0 - 2, class: "zone-label" }).forEach(([k, v]) => title.setAttribute(k, v));
      title.textContent = over;
      g.append(title);
    }
    r.addEventListener("pointerdown", (e) => start(e, shape, "move"));
    handle.addEventListener("pointerdown", (e) => start(e, shape, "size"));
    g.append(r, label, handle);
    svg.append(g);
  }
}

function toBoard(e) {
  const p = svg.createSVGPoint();
  p.x = e.clientX; p.y = e.clientY;
  return p.matrixTransform(svg.getScreenCTM().inverse());
}
function start(e, shape, mode) {
  e.preventDefault();
  svg.setPointerCapture(e.pointerId);
  const p = toBoard(e);
  drag = { shape, mode, from: [p.x, p.y], rect: shape.rect.slice() };
}
svg.addEventListener("pointermove", (e) => {
  if (!drag) return;
  const p = toBoard(e);
  const dx = p.x - drag.from[0], dy = p.y - drag.from[1];
  const [x0, y0, x1, y1] = drag.rect;
  const round = (v) => Math.round(v * 2) / 2;  // half-millimetre steps
  drag.shape.rect = drag.mode === "move"
    ? [x0 + dx, y0 + dy, x1 + dx, y1 + dy].map(round)
    : [x0, y0, Math.max(x0 + 10, x1 + dx), Math.max(y0 + 10, y1 + dy)].map(round);
  draw();
});
svg.addEventListener("pointerup", () => { drag = null; });

async function load() {
  layout = await (await fetch("/api/layout")).json();
  original = JSON.stringify(layout);
  draw();
}
document.getElementById("reset-layout").addEventListener("click", () => { layout = JSON.parse(original); draw(); });
document.getElementById("save-layout").addEventListener("click", async () => {
  const err = document.getElementById("error"), saved = document.getElementById("saved");
  err.hidden = true; saved.hidden = true;
  const res = await fetch("/api/layout", { method: "POST", headers: { "Content-Type": "application/json", "X-Alea-Pin": pinBox.value.trim() }, body: JSON.stringify(layout) });
  const out = await res.json();
  if (!res.ok) { err.textContent = out.error.message; err.hidden = false; return; }
  original = JSON.stringify(out.layout); saved.hidden = false;
});

async function poll() {
  try {
    const st = await (await fetch("/api/game/table")).json();
    const want = (layout && layout.markers.positions.map((m) => m.id)) || [];
    const found = new Set(st.markers || []);
    document.getElementById("markers").replaceChildren(...want.map((id) => el("span",
      { class: `chip ${found.has(id) ? "c-green" : "c-grey"}`, "data-marker": id, "data-found": String(found.has(id)) }, `${found.has(id) ? "✔" : "✘"} ${id}`)));
    document.getElementById("cal-reason").textContent = st.running === false ? whyText(st.why) || st.reason
      : st.board_found ? `${found.size} ${t("cal.markers-fit")} ${st.error_mm ?? "?"} mm` : whyText(st.why) || st.reason;
    const img = document.getElementById("rectified");
    if (st.board_found) img.src = `/calibration/rectified.jpg?frame=${st.frame}`;
    const dice = (st.settled && st.settled.dice) || [];
    document.getElementById("colours").replaceChildren(...dice.map((d) => die(d.color || "grey", `${d.value}${d.color ? "" : "?"}`)));
  } catch (e) { /* try again */ }
}
let shownPalette = null;
function showPalette(palette) {
  shownPalette = palette;
  const box = document.getElementById("palette-state");
  const learnt = palette ? Object.keys(palette.colors) : [];
  box.dataset.palette = learnt.join(" ");
  const emblems = (palette && palette.emblem_sixes) || [];
  box.dataset.emblems = emblems.join(" ");
  box.replaceChildren(learnt.length
    ? el("span", {}, `${t("cal.learnt")} `, ...learnt.map((c) => die(c, "")),
      ...(emblems.length ? [` · ${t("cal.emblems")} `, ...emblems.map((c) => die(c, "6"))] : []))
    : t("cal.not-learnt"));
}
async function colours(body) {
  const err = document.getElementById("palette-error");
  const warn = document.getElementById("palette-warning");
  err.hidden = true;
  warn.hidden = true;
  const res = await fetch("/api/palette", { method: "POST", headers: { "Content-Type": "application/json", "X-Alea-Pin": pinBox.value.trim() }, body: JSON.stringify(body) });
  const out = await res.json();
  if (!res.ok) { err.textContent = out.error.message; err.hidden = false; return; }
  warn.hidden = !(out.warnings && out.warnings.length); // the text is the page's (cal.clipped)
  showPalette(out.palette);
}
document.getElementById("learn-colours").addEventListener("click", () => colours({}));
document.getElementById("forget-colours").addEventListener("click", () => colours({ forget: true }));
fetch("/api/palette").then((r) => r.json()).then((out) => showPalette(out.palette));
document.addEventListener("alea:lang", () => showPalette(shownPalette));

load().then(poll);
setInterval(poll, 2000);
