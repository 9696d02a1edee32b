// English and German labels. Elements carry data-i18n="key"; JS uses t("key").
const I18N = {
  en: {
    "nav.referee": "Referee", "nav.final": "Final scoring", "nav.game": "Game", "nav.calibrate": "Calibrate",
    "cal.print": "Print the marker sheet at 100 %", "cal.print-help": "Lay the sheet under the buildings, the webcam looking down from about 50–70 cm.",
    "cal.markers": "Markers found", "cal.zones": "The board from above: drag each zone onto its building",
    "cal.save": "Save zones", "cal.reset": "Undo changes", "cal.saved": "Saved: the camera uses these zones now.",
    "cal.colours": "Teach the dice colours: one die of each colour on its square", "cal.markers-fit": "markers, fit error",
    "cal.colours-how": "Set one die of each player's colour on the square named after it (the row of five under the Forum), then press the button. The camera learns each body colour under this light; pips do not matter. Do it again when the light changes.",
    "cal.learn": "Learn the dice colours", "cal.forget": "Forget them", "cal.seen": "The dice the camera reads now",
    "cal.learnt": "Learnt at this table:", "cal.not-learnt": "Not learnt yet: the reader's built-in colours are used.",
    "game.new": "New game", "game.start": "Start", "game.pin": "Game PIN", "game.turn": "Turn",
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
    "cal.colours-how": "Je einen Würfel jeder Spielerfarbe auf das Feld mit ihrem Namen legen (die Reihe aus fünf Feldern unter dem Forum), dann den Knopf drücken. Die Kamera lernt jede Würfelfarbe bei diesem Licht; die Augenfarbe spielt keine Rolle. Bei anderem Licht wiederholen.",
    "cal.learn": "Würfelfarben anlernen", "cal.forget": "Vergessen", "cal.seen": "Die Würfel, die die Kamera jetzt liest",
    "cal.learnt": "An diesem Tisch angelernt:", "cal.not-learnt": "Noch nicht angelernt: die eingebauten Farben des Lesers gelten.",
    "game.new": "Neue Partie", "game.start": "Starten", "game.pin": "Spiel-PIN", "game.turn": "Durchgang",
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
  document.documentElement.lang = LANG;
  const b = document.getElementById("lang");
  if (b) b.textContent = LANG === "en" ? "DE" : "EN";
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
