/* Ludic's table in the playground (the front door's page at `/`; docs/playground.md): how its
 * view is drawn, how a move is built by clicking (a button enabled only for an action listed by
 * GET .../actions) and how an event reads in the log; its result screen adds the rounds played.
 * It registers itself with `Playground.register` and draws with the shared pieces of
 * shared/ludoteca/playground/games.js (`card`, `move`, `panel`, `listed`...).
 *
 * `make generate` copies this file into the playground's `tables.js` (a block of its own there:
 * its top-level names are its own), which the page loads: edit it here, then `make generate`.
 */

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

Playground.register("ludic", LUDIC);
