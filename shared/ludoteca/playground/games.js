/* The tables of the playground (used by playground.js): for each game, how its view is drawn,
 * how a move is built by clicking (only from the listed legal actions: a button exists, enabled,
 * only when the action it posts is in GET .../actions), how an event reads in the log, and the
 * result screen's columns.
 *
 *   GAMES.<game> = { title, blurb, seats, level, render(ctx), describe(event, ctx), onEvent(event, ctx),
 *                    resultColumns(ctx), resultNotes(ctx) }
 *
 * `ctx` (playground.js, ctxOf): view, state, you, actions, templates, sel (the clicks towards the
 * next move, cleared by a new version), ui (kept for the table), name(seat), play(action), rerender().
 */
"use strict";

// ---- shared pieces -----------------------------------------------------------------------------------

function cardFace(code, deck) {
  return deck === "spanish" ? Cards.spanish(code) : Cards.french(code);
}

// A card: a toggle button when `onclick` is given, else an image with its name.
function card(code, deck, { onclick = null, pressed = null, cls = "", badge = null, label = null } = {}) {
  const name = label || Cards.name(code, deck);
  const face = code ? cardFace(code, deck) : Cards.back();
  const inner = [face, badge ? h("span", { class: "badge" }, badge) : null];
  if (onclick) {
    return h("button", {
      type: "button", class: `card-btn ${cls}`, "aria-label": name, "aria-pressed": pressed === null ? null : String(pressed),
      dataset: { card: code }, onclick,
    }, inner);
  }
  return h("span", { class: `card-img ${cls}`, role: "img", "aria-label": code ? name : (label || "a card face down"), dataset: code ? { card: code } : {} }, inner);
}

function backs(n, label) {
  return h("span", { class: "card-img small", role: "img", "aria-label": label }, Cards.back(), h("span", { class: "badge" }, String(n)));
}

// A move button: enabled only for a listed action (`action` null: shown disabled, or not at all).
function move(ctx, label, action, { cls = "", hideIfNone = false, id = null } = {}) {
  if (!action && hideIfNone) return null;
  return h("button", {
    type: "button", class: `move ${cls}`, disabled: !action, id,
    dataset: action ? { move: JSON.stringify(action) } : {},
    onclick: () => action && ctx.play(action),
  }, label);
}

const listed = (ctx, pred) => ctx.actions.find(pred) || null;
const template = (ctx, type) => ctx.templates.find((t) => t.type === type) || null;

// The body a compact listing's template stands for (a template with a `domain`: Speculation's joker
// guesses), its domain's field filled with `value` when the domain allows it (`size` whole numbers
// from `min` to `max`, none more than `max_repeats` times); else null.
function fromDomain(ctx, type, value) {
  const t = ctx.templates.find((x) => x.type === type && x.domain);
  if (!t || !Array.isArray(value)) return null;
  const d = t.domain;
  if (value.length !== d.size) return null;
  const counts = new Map();
  for (const v of value) {
    if (!Number.isInteger(v) || v < d.min || v > d.max) return null;
    counts.set(v, (counts.get(v) || 0) + 1);
    if (counts.get(v) > d.max_repeats) return null;
  }
  return { type, [d.field]: value };
}
const who = (ctx, seat) => ctx.name(seat);
const verb = (ctx, seat, you, other) => (seat === ctx.you ? you : other);
const seatOf = (ctx, seat) => (seat === ctx.you ? "your" : `${ctx.name(seat)}'s`);

function panel(title, cls, ...children) {
  const id = `p-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return h("section", { class: `panel ${cls}`, "aria-labelledby": id }, h("h3", { id }, title), ...children);
}

function seatsWord(n) {
  return n === 1 ? "1 card" : `${n} cards`;
}

// ---- Pig: the smallest table, the one to copy for a new game -----------------------------------------
// A table is an object in GAMES under the game's name (below). `render(ctx)` draws `ctx.state` (the
// game's view, as its view schema documents it) and the move buttons; `move(...)` enables a button
// only when the action it would post is listed in `ctx.actions` (GET .../actions), so a table never
// judges legality itself. `describe(e, ctx)` turns each event into a line of the log (null: a
// generic line from its type; "": hidden). A game with no entry here is still playable: the page
// shows its view as JSON and lists no buttons (docs/adding-a-game.md).

const PIG = {
  title: "Pig",
  blurb: "Pig: roll one die as often as you dare; every face adds to your turn's points, but a 1 "
    + "loses them all. Hold to bank them; the first to bank the target wins.",
  seats: 2, level: "hold20", // the table's default size and bot level in the setup form

  render(ctx) {
    const s = ctx.state;
    const scores = panel("Scores", "scores",
      h("p", {}, `Target ${s.target}`),
      h("table", { class: "scoreboard" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Score"))),
        h("tbody", {}, s.scores.map((points, seat) => h("tr", { class: seat === s.current ? "current" : "" },
          h("th", { scope: "row" }, `${seat === s.current ? "▶ " : ""}${ctx.name(seat)}`),
          h("td", {}, h("meter", { min: 0, max: s.target, value: Math.min(points, s.target), "aria-label": `${ctx.name(seat)}: ${points} of ${s.target}` }), ` ${points}`))))));

    const last = s.last_roll; // {seat, die} or null before the first throw
    const caption = !last ? "No throw yet."
      : `${ctx.name(last.seat)} threw ${last.die}${last.die === 1 ? ": the turn is lost!" : "."}`;
    const die = panel("The die", "dice-panel",
      h("div", { class: `dice${last && last.die === 1 ? " bust" : ""}`, role: "img", "aria-label": last ? `The die: ${last.die}` : "The die, not thrown yet" },
        Cards.pips(last ? last.die : null)),
      h("p", { class: "caption" }, caption),
      h("p", { class: "turn-total" }, `Turn total: ${s.turn_total}`));

    const parts = [scores, die];
    if (ctx.you !== null && ctx.view.status === "active") {
      parts.push(panel("Your move", "controls", h("div", { class: "moves" },
        move(ctx, "Roll", listed(ctx, (a) => a.type === "roll"), { id: "pig-roll" }),
        move(ctx, `Hold: bank ${s.turn_total}`, listed(ctx, (a) => a.type === "hold"), { id: "pig-hold" }))));
    }
    return parts;
  },

  describe(e, ctx) {
    const d = e.data || {};
    const w = who(ctx, d.seat);
    switch (e.type) {
      case "GameCreated": return `A new table: ${d.seats.length} players, target ${(d.options || {}).target}.`;
      case "DieRolled": return d.die === 1 ? `${w} ${verb(ctx, d.seat, "roll", "rolls")} a 1.`
        : `${w} ${verb(ctx, d.seat, "roll", "rolls")} ${d.die}: turn total ${d.turn_total}.`;
      case "Busted": return `${w} ${verb(ctx, d.seat, "lose", "loses")} ${d.lost} points.`;
      case "PointsBanked": return `${w} ${verb(ctx, d.seat, "hold and bank", "holds and banks")} ${d.points}: score ${d.score}.`;
      case "TurnStarted": return `${d.seat === ctx.you ? "Your" : `${w}'s`} turn.`;
      case "ActionBoundReached": return `The game's bound of ${d.actions} actions is reached.`;
      case "GameEnded": return "The game is over.";
      default: return null;
    }
  },
};

// ---- Ludix --------------------------------------------------------------------------------------------

const LUDIX = {
  title: "Ludix",
  blurb: "Ludix: throw four dice marked L, X, X, V, I, I; every throw must spell a Roman numeral, "
    + "or you lose the turn's points. Hold to bank them; first to the target wins.",
  seats: 2, level: "steady",

  render(ctx) {
    const s = ctx.state;
    const ui = ctx.ui;
    const parts = [];
    parts.push(panel("Scores", "scores",
      h("p", {}, `Target ${s.target} · round ${s.round}${s.final_round ? " · final round" : ""}`),
      h("table", { class: "scoreboard" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Score"), h("th", { scope: "col" }, "Turns"))),
        h("tbody", {}, s.totals.map((t, seat) => h("tr", { class: seat === s.current ? "current" : "" },
          h("th", { scope: "row" }, `${seat === s.current ? "▶ " : ""}${ctx.name(seat)}`),
          h("td", {}, h("meter", { min: 0, max: s.target, value: Math.min(t, s.target), "aria-label": `${ctx.name(seat)}: ${t} of ${s.target}` }), ` ${t}`),
          h("td", {}, String(s.turns[seat]))))))));

    const shown = ui.lastThrow && ui.lastThrow.version > ctx.view.version ? ui.lastThrow
      : s.throw ? { dice: s.throw.dice, numerals: s.throw.numerals, seat: s.current }
        : ui.lastThrow || null;
    const dice = shown ? shown.dice.split("") : [null, null, null, null];
    const bust = shown && !shown.numerals.length;
    const caption = !shown ? "No throw yet."
      : bust ? `${ctx.name(shown.seat)} threw ${dice.join(" ")}: no numeral, bust!`
        : `${ctx.name(shown.seat)} threw ${dice.join(" ")}: ${shown.numerals.map((n) => `${n.numeral} = ${n.value}`).join(", ")}`;
    const throwBox = panel("The dice", "dice-panel",
      h("div", { class: `dice${bust ? " bust" : ""}`, role: "img", "aria-label": shown ? `Dice: ${dice.join(", ")}` : "The dice, not thrown yet" },
        dice.map((f) => Cards.die(f))),
      h("p", { class: "caption" }, caption),
      h("p", { class: "turn-total" }, `Turn total: ${s.turn_total}`, s.throw ? ` · at stake: ${s.at_stake}` : ""));
    parts.push(throwBox);

    // the numeral that counts (the throw pending, yours): the best by default
    const controls = [];
    if (s.throw && ctx.myTurn()) {
      const chosen = ctx.sel.numeral || s.throw.numerals[0].numeral;
      controls.push(h("div", { class: "numerals", role: "group", "aria-label": "The numeral that counts" },
        s.throw.numerals.map((n) => h("button", {
          type: "button", class: "chip", "aria-pressed": String(n.numeral === chosen),
          onclick: () => { ctx.sel.numeral = n.numeral; ctx.rerender(); },
        }, `${n.numeral} = ${n.value}`))));
      const roll = listed(ctx, (a) => a.type === "roll" && a.numeral === chosen);
      const hold = listed(ctx, (a) => a.type === "hold" && a.numeral === chosen);
      const value = s.throw.numerals.find((n) => n.numeral === chosen).value;
      controls.push(h("div", { class: "moves" },
        move(ctx, `Roll again (count ${chosen})`, roll, { id: "ludix-roll" }),
        move(ctx, `Hold: bank ${s.turn_total + value}`, hold, { id: "ludix-hold" })));
    } else {
      controls.push(h("div", { class: "moves" },
        move(ctx, "Alea jacta est!", listed(ctx, (a) => a.type === "alea_jacta_est"), { hideIfNone: true, id: "ludix-call" }),
        move(ctx, "Roll the dice", listed(ctx, (a) => a.type === "roll" && !a.numeral), { hideIfNone: s.phase !== "playing", id: "ludix-roll" })));
    }
    if (ctx.you !== null && ctx.view.status === "active") parts.push(panel("Your move", "controls", ...controls));
    return parts;
  },

  onEvent(e, ctx) {
    if (e.type === "DiceThrown") {
      ctx.ui.lastThrow = { seat: e.data.seat, dice: e.data.dice, numerals: e.data.numerals, version: e.version };
      ctx.rerender();
    }
  },

  describe(e, ctx) {
    const d = e.data || {};
    const w = who(ctx, d.seat);
    switch (e.type) {
      case "GameCreated": return `A new table: ${d.seats.length} players, target ${(d.options || {}).target}.`;
      case "AleaJactaEstCalled": return `${w} called “Alea jacta est!” and ${verb(ctx, d.seat, "start", "starts")}.`;
      case "TurnStarted": return `Round ${d.round}: ${d.seat === ctx.you ? "your" : `${w}'s`} turn.`;
      case "DiceThrown": return d.numerals.length
        ? `${w} ${verb(ctx, d.seat, "throw", "throws")} ${d.dice.split("").join(" ")}: ${d.numerals[0].numeral} = ${d.numerals[0].value}.`
        : `${w} ${verb(ctx, d.seat, "throw", "throws")} ${d.dice.split("").join(" ")}: no numeral.`;
      case "NumeralChosen": return `${w} ${verb(ctx, d.seat, "count", "counts")} ${d.numeral} = ${d.value}: turn total ${d.turn_total}.`;
      case "Busted": return d.lost ? `Bust! ${w} ${verb(ctx, d.seat, "lose", "loses")} ${d.lost} points.` : `Bust! ${w} ${verb(ctx, d.seat, "score", "scores")} nothing this turn.`;
      case "PointsBanked": return `${w} ${verb(ctx, d.seat, "hold and bank", "holds and banks")} ${d.points}: total ${d.total}.`;
      case "FinalRoundStarted": return `${w} ${verb(ctx, d.seat, "reach", "reaches")} ${d.total}: the final round begins.`;
      case "GameEnded": return "The game is over.";
      default: return null;
    }
  },

};

// ---- Ludic ------------------------------------------------------------------------------------------

const RULE_CHECK_DELAY_MS = 600; // the rule checker is rate limited per address: ask once typing pauses

const LUDIC = {
  title: "Ludic",
  blurb: "Ludic: the Vexer writes a secret rule about pairs of cards; the Seekers place sets of two "
    + "cards in the obey or break column and guess the rule. Find it, and you become the Vexer.",
  seats: 3, level: "expert",

  render(ctx) {
    const s = ctx.state;
    const parts = [];
    const roles = (seat) => [seat === s.vexer ? "Vexer" : null, seat === s.token ? "token" : null,
      s.ludic.includes(seat) ? "ludic" : null, seat === s.turn ? "to play" : null].filter(Boolean).join(", ");
    parts.push(panel("Players", "scores",
      h("p", {}, `Round ${s.round} · ${s.target} points make a player ludic`),
      h("table", { class: "scoreboard" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Score"),
          h("th", { scope: "col" }, "Cards"), h("th", { scope: "col" }, "Role"))),
        h("tbody", {}, s.scores.map((score, seat) => h("tr", { class: seat === s.turn ? "current" : "" },
          h("th", { scope: "row" }, ctx.name(seat)), h("td", {}, String(score)),
          h("td", {}, String(s.hand_counts[seat])), h("td", {}, roles(seat))))))));

    if (s.phase === "cut") {
      parts.push(panel("The cut: low card is the first Vexer", "cut",
        h("div", { class: "row" }, s.cuts.map((c) => h("figure", {}, card(c.card, "french"), h("figcaption", {}, `${ctx.name(c.seat)}${c.attempt > 1 ? ` (again)` : ""}`)))),
        h("div", { class: "moves" }, move(ctx, "Cut the deck", listed(ctx, (a) => a.type === "cut"), { hideIfNone: true, id: "ludic-cut" }))));
    }

    if (s.columns.obey.length || s.columns.break.length) {
      const column = (key, title) => h("section", { class: `column column-${key}`, "aria-label": title },
        h("h4", {}, title), card(s.aces[key], "french", { cls: "ace" }),
        h("ol", { class: "sets" }, s.columns[key].map((set) => h("li", { class: `set${set.face_up ? "" : " down"}` },
          set.face_up ? [card(set.top, "french", { cls: "top" }), card(set.bottom, "french", { cls: "bottom" })]
            : [card(null, "french", { label: "a set face down" })],
          h("span", { class: "who" }, set.initial ? "initial" : set.face_up ? `${set.kind} · ${ctx.name(set.seat)}` : "face down")))));
      parts.push(panel("The columns", "columns",
        h("div", { class: "two" }, column("obey", "Obey"), column("break", "Break")),
        h("p", { class: "counts" }, `Deck: ${s.deck_count} cards · hintbook: ${s.hintbook_count} cards`)));
    }

    if (s.rule) parts.push(panel("Your secret rule", "rule", h("p", { class: "secret" }, s.rule)));
    if (s.hints.length) {
      parts.push(panel("Your hints", "hints", h("ul", { class: "row" }, s.hints.map((hint) => h("li", { class: "set" },
        card(hint.top, "french"), card(hint.bottom, "french"),
        h("span", { class: "who" }, `${hint.obeys ? "obeys" : "breaks"}${hint.guess ? ` (not “${hint.guess}”)` : ""}`))))));
    }

    const writing = template(ctx, "write_rule");
    if (writing) parts.push(LUDIC.editor(ctx, writing));
    else if (ctx.you !== null && s.hand && s.phase !== "cut" && ctx.view.status === "active") parts.push(LUDIC.hand(ctx));

    const choices = ctx.actions.filter((a) => a.type === "choose_hint" || a.type === "choose_flip");
    if (choices.length) {
      parts.push(panel(choices[0].type === "choose_hint" ? "Choose the hint to give" : "Choose the set to flip", "choices",
        h("div", { class: "row" }, choices.map((a) => h("button", {
          type: "button", class: "move set-choice", dataset: { move: JSON.stringify(a) }, onclick: () => ctx.play(a),
          "aria-label": `${Cards.name(a.top, "french")} over ${Cards.name(a.bottom, "french")}${a.column ? ` in ${a.column}` : ""}`,
        }, cardFace(a.top, "french"), cardFace(a.bottom, "french"))))));
    }

    if (s.rounds.length) {
      parts.push(panel("Rounds played", "rounds", h("ol", {}, s.rounds.map((r) => h("li", {},
        `Round ${r.round}: ${ctx.name(r.vexer)} ${r.vexer === ctx.you ? "were" : "was"} the Vexer with “${r.rule}”; `
        + (r.guesser !== null ? `${ctx.name(r.guesser)} found it` : "nobody found it")
        + ` · ${r.points} points${r.zero_reason ? ` (${r.zero_reason})` : ""}.`)))));
    }
    return parts;
  },

  // A Seeker's hand: click two cards (the first is the top), then query or play to a column.
  hand(ctx) {
    const s = ctx.state;
    const sel = ctx.sel.cards || (ctx.sel.cards = []);
    const toggle = (code) => {
      const i = sel.indexOf(code);
      if (i >= 0) sel.splice(i, 1);
      else if (sel.length < 2) sel.push(code);
      else sel.splice(1, 1, code);
      ctx.rerender();
    };
    const usable = new Set(ctx.actions.filter((a) => a.top && (a.type === "query" || a.type === "play")).flatMap((a) => [a.top, a.bottom]));
    const [top, bottom] = sel;
    const pick = (type, column) => (sel.length === 2 ? listed(ctx, (a) => a.type === type && a.top === top && a.bottom === bottom && (!column || a.column === column)) : null);
    const hint = ctx.myTurn()
      ? (sel.length === 0 ? "Click two cards: the first is the top of the set, the second its bottom."
        : sel.length === 1 ? "Now the bottom card." : "Query the Vexer, or play the set to a column.")
      : "Your hand.";
    const guess = template(ctx, "guess");
    const controls = [
      h("div", { class: "moves" },
        move(ctx, "Query the Vexer", pick("query"), { hideIfNone: !ctx.actions.some((a) => a.type === "query"), id: "ludic-query" }),
        move(ctx, "Play to Obey", pick("play", "obey"), { hideIfNone: !ctx.actions.some((a) => a.type === "play"), id: "ludic-play-obey" }),
        move(ctx, "Play to Break", pick("play", "break"), { hideIfNone: !ctx.actions.some((a) => a.type === "play"), id: "ludic-play-break" }),
        move(ctx, "Draw two cards", listed(ctx, (a) => a.type === "draw"), { hideIfNone: true, id: "ludic-draw" }),
        move(ctx, "Pass", listed(ctx, (a) => a.type === "pass"), { hideIfNone: true, id: "ludic-pass" })),
    ];
    if (guess) {
      const text = ctx.ui.guess || "";
      controls.push(h("div", { class: "guess" },
        h("label", { for: "ludic-guess-text" }, "Your guess at the rule"),
        h("textarea", { id: "ludic-guess-text", rows: 2, spellcheck: "false", oninput: (e) => { ctx.ui.guess = e.target.value; } }, text),
        h("button", { type: "button", class: "move", id: "ludic-guess", onclick: () => { if (ctx.ui.guess && ctx.ui.guess.trim()) ctx.play({ ...guess, rule: ctx.ui.guess.trim() }); } }, "Guess")));
    }
    return panel("Your hand", "hand",
      h("p", { class: "caption" }, hint),
      h("div", { class: "row hand-cards" }, s.hand.map((code) => card(code, "french", {
        onclick: () => toggle(code), pressed: sel.includes(code), cls: usable.has(code) ? "playable" : "",
        badge: code === top ? "top" : code === bottom ? "bottom" : null,
      }))),
      ...controls);
  },

  // The Vexer's editor: the rule and the turns of the initial sets, with the checker's live verdict.
  editor(ctx, tpl) {
    const s = ctx.state;
    const ui = ctx.ui;
    if (ui.ruleRound !== s.round) { // a new round: a blank editor, not an earlier guess or rule
      ui.ruleRound = s.round;
      ui.rule = "";
      ui.turnObey = ui.turnBreak = false;
      ui.verdict = null;
    }
    const initial = (key, turned) => {
      const set = s.columns[key].find((x) => x.initial);
      return turned ? { top: set.bottom, bottom: set.top } : { top: set.top, bottom: set.bottom };
    };
    const verdict = h("p", { id: "ludic-verdict", class: "verdict", "aria-live": "polite" });
    const send = h("button", { type: "button", class: "move", id: "ludic-write" }, "Write the rule");
    const show = () => {
      const v = ui.verdict;
      verdict.dataset.state = !ui.rule.trim() ? "empty" : !v ? "checking" : v.valid ? "valid" : "invalid";
      if (!ui.rule.trim()) verdict.textContent = "Type a rule: the checker answers as you type.";
      else if (!v) verdict.textContent = "Checking…";
      else if (v.error) verdict.textContent = v.error;
      else if (v.valid) verdict.textContent = `Valid: ${v.obeying_sets} of ${v.total_sets} sets obey it; the 'obey' set obeys and the 'break' set breaks.`;
      else verdict.textContent = (v.errors || []).map((e) => e.message + (e.suggestion ? ` (did you mean “${e.suggestion}”?)` : "")).join(" ") || "Not a valid rule.";
      send.disabled = !(v && v.valid && v.rule === ui.rule);
    };
    const check = () => {
      clearTimeout(ui.timer);
      ui.verdict = null;
      show();
      if (!ui.rule.trim()) return;
      ui.timer = setTimeout(async () => {
        const rule = ui.rule;
        const answer = await call("POST", `${ctx.table.base}rules/check`, {
          body: { rule, obey_set: initial("obey", ui.turnObey), break_set: initial("break", ui.turnBreak) },
        });
        if (rule !== ui.rule) return; // typed on since: a newer check comes
        if (answer.status === 429) ui.verdict = { error: "The checker is busy: it answers again in a moment.", rule };
        else if (!answer.ok) ui.verdict = { error: `The checker answered ${answer.status}.`, rule };
        else ui.verdict = answer.data;
        show();
        if (answer.status === 429) setTimeout(check, 2000);
      }, RULE_CHECK_DELAY_MS);
    };
    send.addEventListener("click", () => {
      if (send.disabled) return;
      const action = { ...tpl, rule: ui.rule };
      if ("turn_obey" in tpl) action.turn_obey = !!ui.turnObey;
      if ("turn_break" in tpl) action.turn_break = !!ui.turnBreak;
      ctx.play(action);
    });
    const area = h("textarea", { id: "ludic-rule", rows: 3, spellcheck: "false", oninput: (e) => { ui.rule = e.target.value; check(); } });
    area.value = ui.rule;
    const turn = (key, label) => ("turn_" + key in tpl ? h("label", { class: "check" },
      h("input", { type: "checkbox", id: `ludic-turn-${key}`, checked: key === "obey" ? ui.turnObey : ui.turnBreak,
        onchange: (e) => { if (key === "obey") ui.turnObey = e.target.checked; else ui.turnBreak = e.target.checked; ctx.rerender(); check(); } }),
      label) : null);
    const box = panel("You are the Vexer: write the secret rule", "editor",
      h("p", {}, "Write a rule about a set of two cards (top and bottom) that the 'obey' initial set obeys and the 'break' "
        + "set breaks. For instance: “the top card is red”, “the total is at least 12”, “a red card outranks a black card”."),
      h("label", { for: "ludic-rule" }, "Your rule"), area,
      h("div", { class: "row" }, turn("obey", "Turn the 'obey' set around"), turn("break", "Turn the 'break' set around")),
      verdict, h("div", { class: "moves" }, send));
    show();
    if (ui.rule.trim() && !ui.verdict) check();
    return box;
  },

  describe(e, ctx) {
    const d = e.data || {};
    const w = who(ctx, d.seat);
    const set = (top, bottom) => `${Cards.name(top, "french")} over ${Cards.name(bottom, "french")}`;
    switch (e.type) {
      case "GameCreated": return `A new table of ${d.seats.length}.`;
      case "CardCut": return `${w} ${verb(ctx, d.seat, "cut", "cuts")} the ${Cards.name(d.card, "french")}.`;
      case "CutTied": return `A tie for the low card: ${d.seats.map((s) => ctx.name(s)).join(" and ")} cut again.`;
      case "VexerChosen": return `${ctx.name(d.vexer)} ${d.vexer === ctx.you ? "are" : "is"} the Vexer.`;
      case "RoundStarted": return `Round ${d.round}: ${ctx.name(d.vexer)} ${d.vexer === ctx.you ? "are" : "is"} the Vexer; the initial sets are dealt.`;
      case "HandDealt": return `You are dealt ${d.cards.map((c) => Cards.name(c, "french")).join(", ")}.`;
      case "RuleWritten": return `The Vexer has written the rule${(d.turned || []).length ? ` (turning the ${d.turned.join(" and ")} set)` : ""}.`;
      case "SetQueried": return `${w} ${verb(ctx, d.seat, "query", "queries")} ${set(d.top, d.bottom)}: it goes to ${d.column}.`;
      case "SetPlayed": return `${w} ${verb(ctx, d.seat, "play", "plays")} ${set(d.top, d.bottom)} to ${d.chosen}: ${d.correct ? "right" : `wrong, it goes to ${d.column}`}.`;
      case "CardsDealt": return `${w} ${verb(ctx, d.seat, "get", "gets")} ${d.count} cards from the deck (${d.deck_count} left).`;
      case "CardsReceived": return `You receive ${d.cards.map((c) => Cards.name(c, "french")).join(" and ")}.`;
      case "GuessMade": return `${w} ${verb(ctx, d.seat, "guess", "guesses")} “${d.rule}”: ${d.correct ? "that is the rule!" : "wrong."}`;
      case "GuessPassed": return `${w} ${verb(ctx, d.seat, "pass", "passes")}.`;
      case "VexerChoosing": return `The Vexer chooses a ${d.kind}.`;
      case "HintGiven": return `${w} ${verb(ctx, d.seat, "get", "gets")} a hint from the ${d.source}.`;
      case "HintPointed": return `Hint for ${d.seat === ctx.you ? "you" : w}: ${set(d.top, d.bottom)} in ${d.column}.`;
      case "HintReceived": return `Your hint: ${d.top ? set(d.top, d.bottom) : "a set"}${d.obeys === undefined ? "" : d.obeys ? " obeys" : " breaks"}.`;
      case "SetFlipped": return `A set in ${d.column} is turned face down (${set(d.top, d.bottom)}).`;
      case "RoundEnded": return `Round ${d.round} is over: the rule was “${d.rule}”; ${ctx.name(d.vexer)} ${d.vexer === ctx.you ? "score" : "scores"} ${d.points}.`;
      case "PlayerBecameLudic": return `${w} ${verb(ctx, d.seat, "are", "is")} ludic (${d.score} points).`;
      case "GameWon": return `The game is won by ${d.winners.map((s) => ctx.name(s)).join(" and ")}.`;
      case "RuleRecorded": return "";
      default: return null;
    }
  },

  onEvent(e, ctx) {
    if (e.type === "GuessMade" && e.data.seat === ctx.you) ctx.ui.guess = ""; // said: a blank box for the next one
  },

  resultNotes(ctx) {
    const s = ctx.state;
    return s.rounds.length ? h("ul", {}, s.rounds.map((r) => h("li", {}, `Round ${r.round}: ${seatOf(ctx, r.vexer).replace(/^./, (c) => c.toUpperCase())} rule was “${r.rule}” (${r.points} points).`))) : null;
  },
};

// ---- Speculation --------------------------------------------------------------------------------------

const VALUE_CODE = (v) => `${v === 1 ? "A" : v}H`; // the hearts a guesser names values with
const TIERS = { jacks: "jacks", queens: "queens", kings: "kings", joker: "joker" };

const SPECULATION = {
  title: "Speculation",
  blurb: "Speculation: each player hides black cards under their jacks, queens, kings and joker. Ask "
    + "“is there a 5 under your jacks?”, keep asking while the answer is yes; name the joker's four values to win.",
  seats: 2, level: "basic",

  render(ctx) {
    const s = ctx.state;
    const you = ctx.you === null ? 0 : ctx.you;
    const other = 1 - you;
    const parts = [];
    const phaseText = s.phase === "clothing" ? "Who guesses first: the player wearing the most items of clothing."
      : s.phase === "race" ? "A tie! The first to put on one more item of clothing guesses first."
        : s.phase === "over" ? `${ctx.name(s.winner)} ${s.winner === ctx.you ? "named" : "named"} the joker.`
          : `${s.guesser === ctx.you ? "Your" : `${ctx.name(s.guesser)}'s`} turn to guess.`;
    parts.push(h("p", { class: "phase" }, phaseText));

    if (s.phase === "clothing" && ctx.actions.some((a) => a.type === "report_clothing")) {
      const n = ctx.sel.items ?? 5;
      const set = (v) => { ctx.sel.items = Math.max(0, Math.min(30, v)); ctx.rerender(); };
      parts.push(panel("Your clothing", "clothing",
        h("p", {}, "How many items of clothing are you wearing? (Sealed until both have answered.)"),
        h("div", { class: "row stepper" },
          h("button", { type: "button", class: "chip", "aria-label": "one fewer", onclick: () => set(n - 1) }, "−"),
          h("output", { id: "clothing-items", "aria-live": "polite" }, String(n)),
          h("button", { type: "button", class: "chip", "aria-label": "one more", onclick: () => set(n + 1) }, "+")),
        h("div", { class: "moves" }, move(ctx, `Report ${n} items`, listed(ctx, (a) => a.type === "report_clothing" && a.items === n), { id: "spec-report" }))));
    }
    const race = listed(ctx, (a) => a.type === "put_on_item");
    if (race) parts.push(panel("The race", "race", h("div", { class: "moves" }, move(ctx, "I put on one more item!", race, { id: "spec-race" }))));

    const board = (owner, title) => {
      const b = s.boards[owner];
      return panel(title, `board board-${owner === ctx.you ? "mine" : "theirs"}`,
        h("p", { class: "caption" }, `Being attacked at the ${b.target}.`),
        h("div", { class: "faces" }, b.faces.map((f) => h("div", { class: `face${f.tier === b.target ? " target" : ""}${f.down ? " downed" : ""}` },
          card(f.card, "french", { cls: "face-card", badge: f.down ? "down" : null }),
          h("div", { class: "under" }, f.cards.map((c) => (c.card
            ? card(c.card, "french", { cls: `small${c.found ? " found" : ""}`, badge: c.found && owner === ctx.you ? "found" : null })
            : card(null, "french", { cls: "small", label: "an unknown card" }))))))),
        b.set_aside && b.set_aside.length ? h("p", { class: "caption" }, `Set aside: ${b.set_aside.map((c) => Cards.name(c, "french")).join(", ")}`) : null);
    };
    if (s.phase !== "clothing" || ctx.you === null) {
      parts.push(board(other, ctx.you === null ? `${ctx.name(other)}'s board` : `${ctx.name(other)}'s board (you attack it)`));
      const record = (s.records || []).find((r) => r.keeper === you);
      if (record) {
        parts.push(panel(ctx.you === null ? `${ctx.name(you)}'s record` : "Your record of their board", "record",
          h("div", { class: "faces" }, record.faces.map((f) => h("div", { class: "face" },
            card(f.card, "french", { cls: "small" }),
            h("div", { class: "under" }, f.cards.map((c) => (c ? card(c, "french", { cls: "small" }) : h("span", { class: "slot", "aria-hidden": "true" })))))))));
      }
    }
    if (s.phase === "guessing" && ctx.myTurn()) parts.push(SPECULATION.guessing(ctx, s.boards[other].target));
    if (ctx.you !== null) parts.push(board(you, "Your board"));
    else parts.push(board(you, `${ctx.name(you)}'s board`));
    return parts;
  },

  guessing(ctx, tier) {
    const history = ctx.state.history || [];
    if (tier !== "joker") {
      const asked = new Map(history.filter((g) => g.seat === ctx.you && g.tier === tier).map((g) => [g.values[0], g.answer]));
      return panel(`Ask about their ${tier}`, "ask",
        h("p", { class: "caption" }, `Click a value: “is there one under your ${tier}?”`),
        h("div", { class: "row values" }, Array.from({ length: 10 }, (_, i) => i + 1).map((v) => {
          const action = listed(ctx, (a) => a.type === "guess" && a.value === v);
          return h("button", {
            type: "button", class: `card-btn value${asked.get(v) === "no" ? " asked-no" : ""}`, disabled: !action,
            "aria-label": `Ask for ${v === 8 ? "an" : "a"} ${v}${asked.get(v) === "no" ? " (answered no before)" : ""}`,
            dataset: { value: String(v), move: action ? JSON.stringify(action) : "" }, onclick: () => action && ctx.play(action),
          }, Cards.french(VALUE_CODE(v)), asked.get(v) === "no" ? h("span", { class: "badge" }, "no") : null);
        })));
    }
    const picked = ctx.sel.joker || (ctx.sel.joker = []);
    const sorted = [...picked].sort((a, b) => a - b);
    // listed one body each, or (the compact listing) as one template with its domain
    const action = picked.length === 4
      ? listed(ctx, (a) => a.type === "guess_joker" && same(a.values, sorted)) || fromDomain(ctx, "guess_joker", sorted)
      : null;
    return panel("Name the joker's four values", "ask joker",
      h("p", { class: "caption" }, "Click four values (twice for a pair); click a chosen one to take it back."),
      h("div", { class: "row slots", "aria-label": "Your four values" }, [0, 1, 2, 3].map((i) => (picked[i] !== undefined
        ? card(VALUE_CODE(picked[i]), "french", { onclick: () => { picked.splice(i, 1); ctx.rerender(); }, label: `take back ${picked[i]}`, cls: "small" })
        : h("span", { class: "slot", "aria-hidden": "true" })))),
      h("div", { class: "row values" }, Array.from({ length: 10 }, (_, i) => i + 1).map((v) => h("button", {
        type: "button", class: "card-btn value", disabled: picked.length >= 4, "aria-label": `Add ${v === 8 ? "an" : "a"} ${v}`, dataset: { value: String(v) },
        onclick: () => { if (picked.length < 4) { picked.push(v); ctx.rerender(); } },
      }, Cards.french(VALUE_CODE(v))))),
      h("div", { class: "moves" }, move(ctx, picked.length === 4 ? `Guess ${sorted.join(", ")}` : "Guess the joker", action, { id: "spec-joker" })));
  },

  describe(e, ctx) {
    const d = e.data || {};
    const w = who(ctx, d.seat);
    switch (e.type) {
      case "GameCreated": return "A new game: two boards are dealt.";
      case "ClothingReported": return `${w} ${verb(ctx, d.seat, "report", "reports")} how many items of clothing ${d.seat === ctx.you ? "you wear" : "they wear"} (sealed).`;
      case "ClothingCompared": return `Clothing: ${d.items.map((n, s) => `${ctx.name(s)} ${n}`).join(", ")}.`;
      case "DressingRaceStarted": return "A tie: the first to put on one more item guesses first!";
      case "ItemPutOn": return `${w} ${verb(ctx, d.seat, "put", "puts")} on one more item.`;
      case "FirstGuesserChosen": return `${w} ${verb(ctx, d.seat, "guess", "guesses")} first.`;
      case "ValueGuessed": return `${w} ${verb(ctx, d.seat, "ask", "asks")} for ${d.value === 8 ? "an" : "a"} ${d.value} under the ${d.tier}: ${d.answer}${d.card ? ` (the ${Cards.name(d.card, "french")})` : ""}.`;
      case "FaceCardDowned": return `${seatOf(ctx, d.seat)} ${Cards.name(d.face, "french")} is down.`.replace(/^./, (c) => c.toUpperCase());
      case "TierCleared": return `${seatOf(ctx, d.seat)} ${d.tier} are cleared.`.replace(/^./, (c) => c.toUpperCase());
      case "TurnPassed": return `${d.seat === ctx.you ? "Your" : `${w}'s`} turn.`;
      case "JokerGuessed": return `${w} ${verb(ctx, d.seat, "name", "names")} the joker ${d.values.join(", ")}: ${d.right} right.`;
      case "GameWon": return `${w} ${verb(ctx, d.seat, "win", "wins")}!`;
      case "BoardsRevealed": return "The boards are turned face up.";
      default: return null;
    }
  },

  resultColumns(ctx) {
    const s = ctx.state;
    return [
      { title: "Tier guesses", value: (seat) => String((s.history || []).filter((g) => g.seat === seat && g.tier !== "joker").length) },
      { title: "Joker guesses", value: (seat) => String((s.history || []).filter((g) => g.seat === seat && g.tier === "joker").length) },
    ];
  },
};

// ---- Ludor -------------------------------------------------------------------------------------------

const TITLES = { presidente: "Presidente", vicepresidente: "Vicepresidente", neutro: "Neutro", vice_culo: "Vice-culo", culo: "Culo" };
const RANK_WORDS = { sota: "Sota", caballo: "Caballo", rey: "Rey", as: "As", joker: "joker" };

const LUDOR = {
  title: "Ludor",
  blurb: "Ludor: a climbing game with the Spanish deck. Play a card or a set that beats the table, "
    + "match it for a PLIM (the next player loses the turn); the first out of cards is the Presidente.",
  seats: 4, level: "greedy",

  render(ctx) {
    const s = ctx.state;
    const trick = s.trick || { moves: [], passed: [], blocked: [] };
    const parts = [];
    const status = (seat) => [
      s.finished.includes(seat) ? `out (${s.finished.indexOf(seat) + 1})` : null,
      trick.passed.includes(seat) ? "passed" : null,
      trick.blocked.includes(seat) ? "blocked (PLIM)" : null,
      ctx.view.to_act.includes(seat) && s.phase === "play" ? "to play" : null,
      s.votes && s.votes[seat] !== null && s.votes[seat] !== undefined ? (s.votes[seat] ? "votes to end" : "votes to go on") : null,
    ].filter(Boolean).join(", ");
    parts.push(panel(`Round ${s.round}`, "ludor-seats",
      h("ul", { class: "seats" }, s.players.map((_, seat) => h("li", { class: `seat${ctx.view.to_act.includes(seat) ? " current" : ""}` },
        h("strong", {}, ctx.name(seat)),
        s.titles[seat] ? h("span", { class: "title" }, TITLES[s.titles[seat]] || s.titles[seat]) : null,
        backs(s.hand_counts[seat], `${ctx.name(seat)} holds ${seatsWord(s.hand_counts[seat])}`),
        h("span", { class: "points" }, `${s.points[seat]} pts`),
        h("span", { class: "state" }, status(seat)))))));

    const moves = ctx.ui.trickVersion > ctx.view.version ? ctx.ui.trick : trick.moves;
    parts.push(panel("The trick", "trick",
      moves.length ? h("ol", { class: "row plays" }, moves.map((m) => h("li", { class: `play${m.plim ? " plim" : ""}` },
        h("div", { class: "row" }, m.cards && m.cards.length ? m.cards.map((c) => card(c, "spanish", { cls: "small" })) : h("span", { class: "pass" }, "pass")),
        h("span", { class: "who" }, `${ctx.name(m.seat)}${m.plim ? " · PLIM!" : ""}${m.declared_plim ? " · declares PLIM" : ""}`))))
        : h("p", { class: "caption" }, s.phase === "play" ? "The table is empty: the leader plays anything." : ""),
      trick.barred !== null && trick.barred !== undefined ? h("p", { class: "caption" }, "The Autoplim's PLIM bars you: you may only pass this trick.") : null));

    if (ctx.you !== null && s.hand && ctx.view.status === "active") parts.push(LUDOR.hand(ctx));
    if (s.rounds && s.rounds.length) {
      parts.push(panel("Rounds", "rounds", h("ol", {}, s.rounds.map((r) => h("li", {},
        `Round ${r.round}: ` + r.order.map((seat) => `${ctx.name(seat)} ${TITLES[r.titles[seat]] || r.titles[seat]}`).join(", "))))));
    }
    return parts;
  },

  hand(ctx) {
    const s = ctx.state;
    const sel = ctx.sel.cards || (ctx.sel.cards = []);
    const key = (cards) => [...cards].sort().join(",");
    const chosen = key(sel);
    const plays = ctx.actions.filter((a) => a.type === "play");
    const gives = ctx.actions.filter((a) => a.type === "give_back");
    const usable = new Set([...plays, ...gives].flatMap((a) => a.cards));
    const autoplim = ctx.actions.filter((a) => a.type === "play_autoplim");
    if (autoplim.length) usable.add("Autoplim");
    const matching = sel.length ? plays.filter((a) => key(a.cards) === chosen) : [];
    const toggle = (code) => {
      const i = sel.indexOf(code);
      if (i >= 0) sel.splice(i, 1);
      else sel.push(code);
      ctx.rerender();
    };
    const buttons = [];
    if (matching.length === 1) buttons.push(move(ctx, `Play ${sel.length === 1 ? "it" : `these ${sel.length}`}`, matching[0], { id: "ludor-play" }));
    else if (matching.length > 1) { // a joker alone: name its rank
      buttons.push(h("span", { class: "caption" }, "The joker counts as:"));
      for (const a of matching) buttons.push(move(ctx, a.rank ? (RANK_WORDS[a.rank] || a.rank) : "a joker", a, { cls: "rank" }));
    } else if (s.phase === "play" && !(sel.length === 1 && sel[0] === "Autoplim")) {
      buttons.push(move(ctx, "Play", null, { id: "ludor-play" }));
    }
    if (sel.length === 1 && sel[0] === "Autoplim" || (autoplim.length && !s.hand.includes("Autoplim"))) {
      for (const a of autoplim) buttons.push(move(ctx, a.declare_plim ? "Autoplim, declaring PLIM!" : "Play the Autoplim", a, { id: a.declare_plim ? "ludor-autoplim-plim" : "ludor-autoplim" }));
    }
    if (gives.length) buttons.push(move(ctx, `Give back ${seatsWord(sel.length)}`, gives.find((a) => key(a.cards) === chosen) || null, { id: "ludor-give" }));
    buttons.push(move(ctx, "Pass", listed(ctx, (a) => a.type === "pass"), { hideIfNone: s.phase !== "play", id: "ludor-pass" }));
    const votes = ctx.actions.filter((a) => a.type === "vote");
    for (const a of votes) buttons.push(move(ctx, a.end ? "End the game" : "Play another round", a, { id: a.end ? "ludor-vote-end" : "ludor-vote-on" }));
    const caption = gives.length ? "Choose the cards to give back, then “Give back”."
      : votes.length ? "The round is over: play another?"
        : ctx.myTurn() ? "Click cards of one rank (the highlighted ones can be played), then Play; or Pass."
          : "Your hand.";
    return panel("Your hand", "hand",
      h("p", { class: "caption" }, caption),
      h("div", { class: "row hand-cards" }, s.hand.map((code) => card(code, "spanish", {
        onclick: () => toggle(code), pressed: sel.includes(code), cls: usable.has(code) ? "playable" : "",
      }))),
      h("div", { class: "moves" }, buttons));
  },

  onEvent(e, ctx) {
    const ui = ctx.ui;
    const d = e.data || {};
    if (e.type === "TrickStarted" || e.type === "RoundStarted") ui.trick = [];
    else if (e.type === "CardsPlayed") (ui.trick = ui.trick || []).push({ seat: d.seat, cards: d.cards, plim: d.plim });
    else if (e.type === "AutoplimPlayed") (ui.trick = ui.trick || []).push({ seat: d.seat, cards: ["Autoplim"], declared_plim: d.declared });
    else if (e.type === "TurnPassed") (ui.trick = ui.trick || []).push({ seat: d.seat, cards: null });
    else return;
    ui.trickVersion = e.version;
    ctx.rerender();
  },

  describe(e, ctx) {
    const d = e.data || {};
    const w = who(ctx, d.seat);
    const cards = (list) => list.map((c) => Cards.name(c, "spanish")).join(", ");
    switch (e.type) {
      case "GameCreated": return `A new table of ${d.seats.length}.`;
      case "RoundStarted": return `Round ${d.round}: ${ctx.name(d.dealer)} ${d.dealer === ctx.you ? "deal" : "deals"} the cards.`;
      case "CardsDealt": return d.cards ? `Your hand: ${d.cards.length} cards.` : "";
      case "CardsPlayed": {
        const n = d.cards.length;
        const combo = d.combo || {};
        const plural = { sota: "Sotas", caballo: "Caballos", rey: "Reyes", as: "Ases", joker: "jokers" }[combo.rank] || `${combo.rank}s`;
        const count = ["", "one", "two", "three", "four", "five", "six"][n] || String(n);
        const what = n === 1 ? cards(d.cards)
          : combo.kind === "set" && combo.rank ? `${count} ${plural} (${cards(d.cards)})` : `${count} cards (${cards(d.cards)})`;
        return `${w} ${verb(ctx, d.seat, "play", "plays")} ${what}${d.plim ? ": PLIM!" : "."}`;
      }
      case "PlayerBlocked": return `${d.by === ctx.you ? "Your" : `${ctx.name(d.by)}'s`} PLIM: ${d.seat === ctx.you ? "you lose" : `${w} loses`} the turn.`;
      case "TurnPassed": return `${w} ${verb(ctx, d.seat, "pass", "passes")}.`;
      case "TrickWon": return `${w} ${verb(ctx, d.seat, "win", "wins")} the trick${d.closed_by === "passes" ? " (everyone passed)" : ""}.`;
      case "TrickStarted": return "";
      case "AutoplimPlayed": return `${w} ${verb(ctx, d.seat, "play", "plays")} the Autoplim${d.out_of_turn ? " out of turn" : ""}${d.declared ? ", declaring PLIM" : ""}.`;
      case "PlayerBarred": return "The Autoplim's PLIM bars you from this trick.";
      case "PlayerFinished": return `${w} ${verb(ctx, d.seat, "are", "is")} out of cards${d.title ? `: ${TITLES[d.title] || d.title}` : ""}.`;
      case "RoundEnded": return `Round ${d.round || ""} is over.`;
      case "VotingStarted": return "Everyone votes: another round, or the end?";
      case "VoteCast": return `${w} ${verb(ctx, d.seat, "vote", "votes")} to ${d.end ? "end the game" : "play on"}.`;
      case "VoteDecided": return d.end ? "The table votes to end the game." : "The table plays another round.";
      case "GameEnded": return "The game is over.";
      default: return null;
    }
  },

  resultColumns(ctx) {
    const s = ctx.state;
    return [
      { title: "Title", value: (seat) => TITLES[s.titles[seat]] || "—" },
      { title: "Points", value: (seat) => String(s.points[seat]) },
    ];
  },
};

const GAMES = { ludix: LUDIX, ludic: LUDIC, speculation: SPECULATION, ludor: LUDOR, pig: PIG };
