/* Ludor's table in the playground (the front door's page at `/`; docs/playground.md): how its
 * view is drawn, how a move is built by clicking (a button enabled only for an action listed by
 * GET .../actions) and how an event reads in the log; its result screen adds the titles and points.
 * It registers itself with `Playground.register` and draws with the shared pieces of
 * shared/ludoteca/playground/games.js (`card`, `move`, `panel`, `listed`...).
 *
 * `make generate` copies this file into the playground's `tables.js` (a block of its own there:
 * its top-level names are its own), which the page loads: edit it here, then `make generate`.
 */

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
        s.titles ? h("span", { class: "title" }, TITLES[s.titles[seat]] || s.titles[seat]) : null,
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
      { title: "Title", value: (seat) => (s.titles && TITLES[s.titles[seat]]) || "—" },
      { title: "Points", value: (seat) => String(s.points[seat]) },
    ];
  },
};

Playground.register("ludor", LUDOR);
