// Small DOM helpers shared by every page.

// el("button", {class: "x", on: {click: f}}, "text", child) builds an element.
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "on") for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
    else if (k === "class") e.className = v;
    else if (v !== false && v !== undefined) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
}

// A die in its player's colour with the player's symbol; a button when it can be tapped.
function die(player, value, onclick) {
  const attrs = { class: `die c-${player}`, title: `${player} ${value}`, "data-die": `${player}:${value}` };
  if (onclick) Object.assign(attrs, { type: "button", on: { click: onclick } });
  return el(onclick ? "button" : "span", attrs, String(value), el("small", {}, SYMBOL[player]));
}
