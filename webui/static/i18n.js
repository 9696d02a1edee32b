// English and German labels. Elements carry data-i18n="key"; JS uses t("key").
const I18N = {
  en: {
    "nav.referee": "Referee", "nav.final": "Final scoring", "nav.game": "Game", "nav.calibrate": "Calibrate",
    "cal.print": "Print the marker sheet at 100 %", "cal.print-help": "Lay the sheet under the buildings, the webcam looking down from about 50–70 cm.",
    "cal.markers": "Markers found", "cal.zones": "The board from above: drag each zone onto its building",
    "cal.save": "Save zones", "cal.reset": "Undo changes", "cal.saved": "Saved: the camera uses these zones now.",
    "cal.colours": "Teach the dice colours: one die of each colour on its square", "cal.markers-fit": "markers, fit error",
    "cal.colours-how": "Set one die of each player's colour on the square named after it (the row of five under the Forum), six up, then press the button. The camera learns each body colour under this light, and whether the set's six is an emblem; pips do not matter. Do it again when the light changes.",
    "cal.learn": "Learn the dice colours", "cal.forget": "Forget them", "cal.seen": "The dice the camera reads now",
    "cal.learnt": "Learnt at this table:", "cal.emblems": "sixes with an emblem:", "cal.not-learnt": "Not learnt yet: the reader's built-in colours are used.",
    "cal.clipped": "The camera clips the sheet's white: the dice colours are unsure. Lower the camera's exposure or dim the lamp, then learn the colours again.",
    "game.new": "New game", "game.start": "Start", "game.pin": "Game PIN", "game.turn": "Turn",
    "game.menu": "Game PIN, new game, voice", "game.rulebook": "RULES.md", "summary.title": "The game so far", "summary.rounds": "Round by round",
    "summary.scores-note": "Points as the final scoring counts them from the tiles taken and chips held so far (Senate cards are not seen by the camera: enter them on the Final scoring page).",
    "summary.download": "Download the game record (JSON)", "summary.print": "Print", "summary.chips": "Repete chips earned",
    "summary.taken": "Tiles taken", "summary.leading": "Leading", "game.to-summary": "Game summary", "game.whole-history": "The whole game", "game.latest-history": "Only the latest","nav.language": "Language", "final.player-colour": "player colour",
    "live.video": "the table as the camera sees it, zones and dice drawn", "cal.rectified": "the board seen from above",
    "game.players": "Players: dice left, Repete chips, tiles", "game.dice-left": "dice left", "game.tiles": "tiles",
    "event.observe": "camera", "event.place": "placed", "event.correct": "corrected", "event.accept": "accepted anyway",
    "event.take-as-seen": "taken as seen", "event.lay-out": "tiles laid out", "event.repete": "Repete chip spent",
    "event.pick": "tile taken", "event.undo": "undo", "event.redo": "redo", "event.next-round": "round scored",
    "game.confirm-new": "Start a new game? The game in progress is kept in the data folder, but leaves this page.",
    "game.pin-missing": "Enter the game PIN first: alea serve prints it, with a QR code that fills it in.",
    "game.pin-wrong": "Wrong PIN: it is the six digits alea serve prints (they stay the same when it restarts).",
    "game.pin-wait": "Too many wrong PINs: wait a moment, then try again.",
    "game.no-dice": "Tap the dice first, then Place.",
    "game.round": "Round", "game.to-play": "to play", "game.place": "Place", "game.undo": "Undo",
    "game.redo": "Redo", "game.fix": "Correct this die: its value or its colour", "live.settled": "Settled: the board is read", "game.picks": "Tiles taken after round", "game.takes": "takes",
    "game.nothing": "nothing left", "game.to-final": "Final scoring with this game's tiles",
    "kind.province": "a province", "kind.patrician": "a patrician", "kind.senate": "a Senate card",
    "kind.fortuna": "a Fortuna tile to keep", "game.next-round": "Score round, next round", "game.accept": "Accept anyway", "game.history": "History",
    "game.unclear": "The referee cannot tell what happened on the table:",
    "game.lay-out": "Tiles laid out this round", "game.save-lay-out": "Save the tiles laid out", "game.chips": "Repete chips", "game.repete": "Spent a chip on a re-roll", "game.take-as-seen": "Take the board as the camera sees it now",
    "game.none": "No game yet. Choose the players in seating order and start.",
    "game.over": "The game is over.", "game.round-over": "The round is over: clear the buildings.",
    "home.referee": "Is this placement legal? Score a round.",
    "home.final": "Every player's points with the best assignment of patricians.",
    "home.game": "The table live: the camera reads every die, the referee flags illegal placements, rounds are scored.",
    "final.start-over": "Start over",
    "rule.move.empty": "A placement needs at least one die.",
    "rule.move.not-in-roll": "Only dice from the roll may be placed.",
    "rule.templum.absent": "There is no Templum with two or three players.",
    "rule.templum.count": "In the Templum you must hold exactly one die more than the leader.",
    "rule.templum.sum": "In the Templum your sum must beat the leader's.",
    "rule.senatus.not-a-run": "A Senatus run is consecutive different values.",
    "rule.senatus.not-extending": "New Senatus dice must extend your run to one run.",
    "rule.senatus.identical": "No two players may hold the same Senatus run.",
    "rule.castrum.mixed": "A Castrum set is dice of one value.",
    "rule.castrum.identical": "No two Castrum sets may have the same value and count.",
    "rule.forum.shape": "The Forum takes one die, or two that sum to 5.",
    "rule.forum.no-column": "Every die placed in the Forum must land on a column.",
    "rule.latrina.one-die": "The Latrina takes exactly one die.",
    "rule.latrina.not-forced": "The Latrina only when no die can go anywhere else.",
    "rule.play.turn": "It is another player's turn.",
    "voice.on": "Voice on",
    "voice.off": "Voice off",
    "voice.flag": "Rule broken.",
    "voice.round": "Round {n} is scored.",
    "card.I": "provinces", "card.II": "placed patricians", "card.III": "Senate cards", "card.IV": "Fortuna tiles",
    "card.V": "couples", "card.VI": "patrician colours", "card.VII": "province colours", "card.VIII": "occupied provinces",
    "card.IX": "women", "card.X": "men", "card.XI": "offspring", "card.XII": "border province", "card.XIII": "free province",
    "final.add": "Add player", "final.score": "Score the game", "final.provinces": "Provinces",
    "final.patricians": "Patricians", "final.senate": "Senate cards", "final.fortuna": "Fortuna tiles",
    "final.repete": "Repete chips", "final.remove": "Remove", "final.total": "Total",
    "final.winner": "Winner", "final.winners": "Winners", "final.unplaced": "Unplaced",
    "final.breakdown.provinces": "Provinces", "final.breakdown.patricians": "Patricians",
    "final.breakdown.senate": "Senate", "final.breakdown.fortuna": "Fortuna",
    "final.breakdown.repete": "Repete", "final.border": "Border province", "final.free": "Free province",
    "referee.board": "Board", "referee.move": "Move", "referee.check": "Check",
    "referee.round": "Score round", "referee.legal": "Legal", "referee.illegal": "Illegal",
    "referee.apply": "Apply", "referee.clear": "Clear", "referee.roll": "Roll (optional)",
    "referee.players": "Players (seating order)", "referee.dice": "Dice",
    "woman": "woman", "man": "man",
  },
  de: {
    "nav.referee": "Schiedsrichter", "nav.final": "Schlusswertung", "nav.game": "Partie", "nav.calibrate": "Kalibrieren",
    "cal.print": "Markerbogen in 100 % drucken", "cal.print-help": "Den Bogen unter die Gebäude legen, die Webcam schaut aus etwa 50–70 cm herab.",
    "cal.markers": "Gefundene Marker", "cal.zones": "Das Brett von oben: jede Zone auf ihr Gebäude ziehen",
    "cal.save": "Zonen speichern", "cal.reset": "Änderungen verwerfen", "cal.saved": "Gespeichert: die Kamera nutzt jetzt diese Zonen.",
    "cal.colours": "Würfelfarben anlernen: je einen Würfel jeder Farbe auf sein Feld", "cal.markers-fit": "Marker, Passfehler",
    "cal.colours-how": "Je einen Würfel jeder Spielerfarbe auf das Feld mit ihrem Namen legen (die Reihe aus fünf Feldern unter dem Forum), mit der Sechs nach oben, dann den Knopf drücken. Die Kamera lernt jede Würfelfarbe bei diesem Licht und ob die Sechs des Satzes ein Emblem ist; die Augenfarbe spielt keine Rolle. Bei anderem Licht wiederholen.",
    "cal.learn": "Würfelfarben anlernen", "cal.forget": "Vergessen", "cal.seen": "Die Würfel, die die Kamera jetzt liest",
    "cal.learnt": "An diesem Tisch angelernt:", "cal.emblems": "Sechsen mit Emblem:", "cal.not-learnt": "Noch nicht angelernt: die eingebauten Farben des Lesers gelten.",
    "cal.clipped": "Die Kamera überstrahlt das Weiß des Blatts: die Würfelfarben sind unsicher. Belichtung der Kamera senken oder die Lampe dimmen, dann die Farben neu anlernen.",
    "game.new": "Neue Partie", "game.start": "Starten", "game.pin": "Spiel-PIN", "game.turn": "Durchgang",
    "game.menu": "Spiel-PIN, neue Partie, Ansage", "game.rulebook": "RULES.md (englisch)", "summary.title": "Die Partie bisher", "summary.rounds": "Runde für Runde",
    "summary.scores-note": "Punkte, wie die Schlusswertung sie aus den bisher genommenen Plättchen und Chips zählt (Senatskarten sieht die Kamera nicht: sie werden in der Schlusswertung eingetragen).",
    "summary.download": "Spielprotokoll herunterladen (JSON)", "summary.print": "Drucken", "summary.chips": "Erhaltene Repete-Chips",
    "summary.taken": "Genommene Plättchen", "summary.leading": "Führt", "game.to-summary": "Spielübersicht", "game.whole-history": "Die ganze Partie", "game.latest-history": "Nur die letzten","nav.language": "Sprache", "final.player-colour": "Spielerfarbe",
    "live.video": "der Tisch, wie die Kamera ihn sieht, mit Zonen und Würfeln", "cal.rectified": "das Brett von oben",
    "game.players": "Spieler: Würfel übrig, Repete-Chips, Plättchen", "game.dice-left": "Würfel übrig", "game.tiles": "Plättchen",
    "event.observe": "Kamera", "event.place": "gesetzt", "event.correct": "berichtigt", "event.accept": "trotzdem angenommen",
    "event.take-as-seen": "so übernommen", "event.lay-out": "Plättchen ausgelegt", "event.repete": "Repete-Chip eingesetzt",
    "event.pick": "Plättchen genommen", "event.undo": "rückgängig", "event.redo": "wiederholt", "event.next-round": "Runde gewertet",
    "game.confirm-new": "Eine neue Partie beginnen? Die laufende Partie bleibt im Datenordner erhalten, verlässt aber diese Seite.",
    "game.pin-missing": "Zuerst die Spiel-PIN eingeben: alea serve zeigt sie an, mit einem QR-Code, der sie einträgt.",
    "game.pin-wrong": "Falsche PIN: es sind die sechs Ziffern, die alea serve anzeigt (sie bleiben nach einem Neustart gleich).",
    "game.pin-wait": "Zu viele falsche PINs: bitte kurz warten und dann erneut versuchen.",
    "game.no-dice": "Erst die Würfel antippen, dann Setzen.",
    "game.round": "Runde", "game.to-play": "ist am Zug", "game.place": "Setzen", "game.undo": "Rückgängig",
    "game.redo": "Wiederholen", "game.fix": "Diesen Würfel berichtigen: Augenzahl oder Farbe", "live.settled": "Ruhig: das Brett ist gelesen", "game.picks": "Genommene Plättchen nach Runde", "game.takes": "nimmt",
    "game.nothing": "nichts mehr da", "game.to-final": "Schlusswertung mit den Plättchen dieser Partie",
    "kind.province": "eine Provinz", "kind.patrician": "einen Patrizier", "kind.senate": "eine Senatskarte",
    "kind.fortuna": "ein Fortuna-Plättchen zum Behalten", "game.next-round": "Runde werten, nächste Runde", "game.accept": "Trotzdem annehmen", "game.history": "Verlauf",
    "game.unclear": "Der Schiedsrichter kann nicht sagen, was auf dem Tisch geschah:",
    "game.lay-out": "Ausgelegte Plättchen dieser Runde", "game.save-lay-out": "Ausgelegte Plättchen speichern", "game.chips": "Repete-Chips", "game.repete": "Einen Chip für einen Neuwurf ausgegeben", "game.take-as-seen": "Das Brett so nehmen, wie die Kamera es jetzt sieht",
    "game.none": "Noch keine Partie. Spieler in Sitzreihenfolge wählen und starten.",
    "game.over": "Die Partie ist zu Ende.", "game.round-over": "Die Runde ist vorbei: Gebäude abräumen.",
    "home.referee": "Ist dieser Zug erlaubt? Eine Runde werten.",
    "home.final": "Die Punkte jedes Spielers mit der besten Verteilung der Patrizier.",
    "home.game": "Der Tisch live: die Kamera liest jeden Würfel, der Schiedsrichter meldet unerlaubte Züge, Runden werden gewertet.",
    "final.start-over": "Neu beginnen",
    "rule.move.empty": "Ein Zug braucht mindestens einen Würfel.",
    "rule.move.not-in-roll": "Nur Würfel aus dem Wurf dürfen gesetzt werden.",
    "rule.templum.absent": "Mit zwei oder drei Spielern gibt es kein Templum.",
    "rule.templum.count": "Im Templum braucht man genau einen Würfel mehr als der Führende.",
    "rule.templum.sum": "Im Templum muss die Augensumme die des Führenden übertreffen.",
    "rule.senatus.not-a-run": "Eine Senatus-Reihe besteht aus aufeinanderfolgenden verschiedenen Werten.",
    "rule.senatus.not-extending": "Neue Senatus-Würfel müssen die eigene Reihe zu einer Reihe verlängern.",
    "rule.senatus.identical": "Zwei Spieler dürfen nicht dieselbe Senatus-Reihe haben.",
    "rule.castrum.mixed": "Eine Castrum-Gruppe besteht aus Würfeln eines einzigen Werts.",
    "rule.castrum.identical": "Zwei Castrum-Gruppen dürfen nicht gleichen Wert und gleiche Anzahl haben.",
    "rule.forum.shape": "Ins Forum kommt ein Würfel oder zwei mit der Summe 5.",
    "rule.forum.no-column": "Jeder ins Forum gesetzte Würfel muss auf einer Säule landen.",
    "rule.latrina.one-die": "In die Latrina kommt genau ein Würfel.",
    "rule.latrina.not-forced": "Die Latrina nur, wenn kein Würfel woanders hin kann.",
    "rule.play.turn": "Ein anderer Spieler ist am Zug.",
    "voice.on": "Ansage an",
    "voice.off": "Ansage aus",
    "voice.flag": "Regelverstoß.",
    "voice.round": "Runde {n} ist gewertet.",
    "card.I": "Provinzen", "card.II": "platzierte Patrizier", "card.III": "Senatskarten", "card.IV": "Fortuna-Plättchen",
    "card.V": "Ehepaare", "card.VI": "Patrizierfarben", "card.VII": "Provinzfarben", "card.VIII": "besetzte Provinzen",
    "card.IX": "Frauen", "card.X": "Männer", "card.XI": "Nachwuchs", "card.XII": "Grenzprovinz", "card.XIII": "freie Provinz",
    "final.add": "Spieler hinzufügen", "final.score": "Spiel werten", "final.provinces": "Provinzen",
    "final.patricians": "Patrizier", "final.senate": "Senatskarten", "final.fortuna": "Fortuna-Plättchen",
    "final.repete": "Repete-Chips", "final.remove": "Entfernen", "final.total": "Summe",
    "final.winner": "Sieger", "final.winners": "Sieger", "final.unplaced": "Nicht untergebracht",
    "final.breakdown.provinces": "Provinzen", "final.breakdown.patricians": "Patrizier",
    "final.breakdown.senate": "Senat", "final.breakdown.fortuna": "Fortuna",
    "final.breakdown.repete": "Repete", "final.border": "Grenzprovinz", "final.free": "Freie Provinz",
    "referee.board": "Spielbrett", "referee.move": "Zug", "referee.check": "Prüfen",
    "referee.round": "Runde werten", "referee.legal": "Erlaubt", "referee.illegal": "Nicht erlaubt",
    "referee.apply": "Übernehmen", "referee.clear": "Leeren", "referee.roll": "Wurf (optional)",
    "referee.players": "Spieler (Sitzreihenfolge)", "referee.dice": "Würfel",
    "woman": "Frau", "man": "Mann",
  },
};
let LANG = localStorage.getItem("alea.lang") || (navigator.language || "en").slice(0, 2);
if (!I18N[LANG]) LANG = "en";
function t(key) { return (I18N[LANG] && I18N[LANG][key]) || I18N.en[key] || key; }
function applyI18n(root) {
  (root || document).querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  // Words a screen reader says, or a picture's description, are translated the same way.
  (root || document).querySelectorAll("[data-i18n-alt]").forEach((el) => { el.alt = t(el.dataset.i18nAlt); });
  (root || document).querySelectorAll("[data-i18n-label]").forEach((el) => { el.setAttribute("aria-label", t(el.dataset.i18nLabel)); });
  document.documentElement.lang = LANG;
  const b = document.getElementById("lang");
  if (b) b.textContent = LANG === "en" ? "DE" : "EN";
}
// Why a placement breaks its rule, said from the facts the server sends with the flag
// (`params`, scanner.rules.placement.Illegal), in the page's language. The English lines are
// the server's own sentences (a test holds them equal); a flag without facts keeps its text.
const COLOUR_NAME = { de: { grey: "Grau", brown: "Braun", blue: "Blau", green: "Grün", yellow: "Gelb",
  red: "Rot", purple: "Lila", orange: "Orange", joker: "Joker" } };
function colourName(player, lang) { return ((COLOUR_NAME[lang || LANG] || {})[player]) || player; }
const cap = (s) => String(s).charAt(0).toUpperCase() + String(s).slice(1);
const DICE_TEXT = {
  en: (d) => d.length === 1 ? `a ${d[0]}` : d.length === 2 ? `a ${d[0]} and a ${d[1]}` : `${d.slice(0, -1).join(", ")} and ${d[d.length - 1]}`,
  de: (d) => d.length === 1 ? `eine ${d[0]}` : d.length === 2 ? `eine ${d[0]} und eine ${d[1]}` : `${d.slice(0, -1).join(", ")} und ${d[d.length - 1]}`,
};
const REASONS = {
  en: {
    "move.empty": (p, d, c) => `${cap(c(p.player))} placed no dice.`,
    "move.not-in-roll": (p, d, c) => `${cap(c(p.player))} cannot place ${d(p.dice)} in the ${cap(p.building)}: the roll was ${p.roll.join(", ")}.`,
    "templum.absent": (p, d, c) => `There is no Templum with ${p.players} players, so ${cap(c(p.player))} cannot place ${d(p.dice)} there.`,
    "templum.count": (p, d, c) => `${cap(c(p.player))}'s ${d(p.dice)} in the Templum ${p.dice.length === 1 ? "makes" : "make"} ${p.total} ${p.total === 1 ? "die" : "dice"}${p.had ? ` with the ${p.had} already there` : ""}; the Templum now needs exactly ${p.need}.`,
    "templum.sum": (p, d, c) => `${cap(c(p.player))}'s ${p.count} dice in the Templum sum to ${p.sum}, not more than ${c(p.other)}'s ${p.other_sum}.`,
    "senatus.not-a-run": (p, d, c) => `${cap(c(p.player))}'s ${d(p.dice)} in the Senatus are not a run of consecutive different values.`,
    "senatus.not-extending": (p, d, c) => `${cap(c(p.player))} already has ${p.run.join("-")} in the Senatus and ${d(p.dice)} ${p.dice.length === 1 ? "does" : "do"} not extend it to one run.`,
    "senatus.identical": (p, d, c) => `${cap(c(p.player))}'s run ${p.run.join("-")} in the Senatus would equal ${c(p.other)}'s run.`,
    "castrum.mixed": (p, d, c) => `${cap(c(p.player))}'s ${d(p.dice)} in the Castrum are not all the same value.`,
    "castrum.identical": (p, d, c) => `${cap(c(p.player))}'s set of ${p.count}×${p.value} in the Castrum would equal ${c(p.other)}'s set.`,
    "forum.shape": (p, d, c) => `${cap(c(p.player))} cannot place ${d(p.dice)} in the Forum: only one die or two dice summing to 5.`,
    "forum.no-column": (p, d, c) => `${cap(c(p.player))}'s ${d(p.dice)} would not land on a column of the Forum (${p.columns} columns, all taken by lower dice).`,
    "latrina.one-die": (p, d, c) => `${cap(c(p.player))} can put only one die on the Latrina, not ${p.count}.`,
    "latrina.not-forced": (p, d, c) => `${cap(c(p.player))} cannot put ${d(p.dice)} on the Latrina: ${d(p.other_dice)} can go in the ${cap(p.building)}.`,
    "play.turn": (p, d, c) => `It is ${c(p.current)}'s turn, not ${c(p.player)}'s.`,
  },
  de: {
    "move.empty": (p, d, c) => `${c(p.player)} hat keine Würfel gelegt.`,
    "move.not-in-roll": (p, d, c) => `${c(p.player)} kann ${d(p.dice)} nicht ins ${cap(p.building)} legen: gewürfelt wurde ${p.roll.join(", ")}.`,
    "templum.absent": (p, d, c) => `Mit ${p.players} Spielern gibt es kein Templum; ${c(p.player)} kann ${d(p.dice)} dort nicht legen.`,
    "templum.count": (p, d, c) => `${c(p.player)}: mit ${d(p.dice)} lägen ${p.total} Würfel im Templum${p.had ? ` (${p.had} davon schon dort)` : ""}; nötig sind jetzt genau ${p.need}.`,
    "templum.sum": (p, d, c) => `${c(p.player)}: ${p.count} Würfel im Templum ergeben ${p.sum}, nicht mehr als die ${p.other_sum} von ${c(p.other)}.`,
    "senatus.not-a-run": (p, d, c) => `${c(p.player)}: ${d(p.dice)} im Senatus sind keine Folge aufeinanderfolgender verschiedener Werte.`,
    "senatus.not-extending": (p, d, c) => `${c(p.player)} hat schon ${p.run.join("-")} im Senatus, und ${d(p.dice)} ${p.dice.length === 1 ? "verlängert" : "verlängern"} das nicht zu einer Folge.`,
    "senatus.identical": (p, d, c) => `${c(p.player)}: die Folge ${p.run.join("-")} im Senatus wäre gleich der von ${c(p.other)}.`,
    "castrum.mixed": (p, d, c) => `${c(p.player)}: ${d(p.dice)} im Castrum haben nicht alle denselben Wert.`,
    "castrum.identical": (p, d, c) => `${c(p.player)}: ${p.count}×${p.value} im Castrum wäre gleich der Gruppe von ${c(p.other)}.`,
    "forum.shape": (p, d, c) => `${c(p.player)} kann ${d(p.dice)} nicht ins Forum legen: nur ein Würfel oder zwei mit der Summe 5.`,
    "forum.no-column": (p, d, c) => `${c(p.player)}: ${d(p.dice)} fände keine Säule im Forum (${p.columns} Säulen, alle mit niedrigeren Würfeln besetzt).`,
    "latrina.one-die": (p, d, c) => `${c(p.player)} darf nur einen Würfel auf die Latrina legen, nicht ${p.count}.`,
    "latrina.not-forced": (p, d, c) => `${c(p.player)} darf ${d(p.dice)} nicht auf die Latrina legen: ${d(p.other_dice)} passt ins ${cap(p.building)}.`,
    "play.turn": (p, d, c) => `${c(p.current)} ist am Zug, nicht ${c(p.player)}.`,
  },
};
function reasonText(flag, lang) {
  lang = lang || LANG;
  const say = (REASONS[lang] || {})[flag.rule];
  if (!say || !flag.params) return flag.reason;
  return say(flag.params, DICE_TEXT[lang], (player) => colourName(player, lang));
}
// What the camera is doing, from the server's message id and facts (`why` of /api/game/table).
const markerList = { en: (m) => m.length ? `marker ${m.join(", ")}` : "no markers", de: (m) => m.length ? `Marker ${m.join(", ")}` : "keine Marker" };
const WHY = {
  en: {
    "camera.none": () => "no camera loop in this server",
    "camera.starting": () => "starting",
    "camera.moving": (w) => `moving (${w.mm2} mm² changed)`,
    "camera.still": (w) => `still for ${w.run} of ${w.need} frames`,
    "camera.large": (w) => `something large on the board (${w.mm2} mm² changed since the last settled board): a hand?`,
    "camera.voting": () => "still; waiting for the readings to agree",
    "camera.settled": () => "Settled: the board is read",
    "board.too-few": (w) => `board not found: ${markerList.en(w.seen)} of the sheet visible, at least ${w.need} are needed`,
    "board.not-flat": () => "board not found: the markers seen do not fit a flat sheet",
    "board.disagree": (w) => `board not found: markers ${w.markers.join(", ")} do not agree on where the board is`,
    "board.bent": (w) => `board not found: the markers fit a flat sheet only to ${w.error_mm} mm (limit ${w.limit_mm} mm); is the sheet bent or a marker misprinted?`,
    moved: "; the camera or the sheet has moved since the last good fit",
  },
  de: {
    "camera.none": () => "dieser Server hat keine Kamera",
    "camera.starting": () => "startet",
    "camera.moving": (w) => `Bewegung (${w.mm2} mm² verändert)`,
    "camera.still": (w) => `ruhig seit ${w.run} von ${w.need} Bildern`,
    "camera.large": (w) => `etwas Großes auf dem Brett (${w.mm2} mm² anders als beim letzten ruhigen Bild): eine Hand?`,
    "camera.voting": () => "ruhig; warte, bis die Lesungen übereinstimmen",
    "camera.settled": () => "Ruhig: das Brett ist gelesen",
    "board.too-few": (w) => `Brett nicht gefunden: ${markerList.de(w.seen)} des Bogens sichtbar, mindestens ${w.need} sind nötig`,
    "board.not-flat": () => "Brett nicht gefunden: die Marker passen nicht zu einem flachen Bogen",
    "board.disagree": (w) => `Brett nicht gefunden: die Marker ${w.markers.join(", ")} sind sich nicht einig, wo das Brett liegt`,
    "board.bent": (w) => `Brett nicht gefunden: die Marker passen nur auf ${w.error_mm} mm zu einem flachen Bogen (Grenze ${w.limit_mm} mm); ist der Bogen gewellt oder ein Marker falsch gedruckt?`,
    moved: "; Kamera oder Bogen wurden seit der letzten guten Anpassung bewegt",
  },
};
function whyText(why, lang) {
  lang = lang || LANG;
  const say = why && (WHY[lang] || {})[why.id];
  return say ? say(why) + (why.moved ? WHY[lang].moved : "") : null;
}
// Colour plus symbol for every colour, so colour-blind players can tell them apart.
const SYMBOL = { grey: "●", brown: "■", blue: "▲", green: "◆", yellow: "★",
  red: "♥", purple: "♣", orange: "✚", joker: "✱" };
const ROMAN = ["0", "I", "II", "III", "IV"];
document.addEventListener("DOMContentLoaded", () => {
  applyI18n();
  const b = document.getElementById("lang");
  if (b) b.addEventListener("click", () => {
    LANG = LANG === "en" ? "de" : "en"; localStorage.setItem("alea.lang", LANG); applyI18n();
    document.dispatchEvent(new Event("alea:lang"));
  });
});
