/* Ludix's table in the playground (the front door's page at `/`; docs/playground.md): how its
 * view is drawn, how a move is built by clicking (a button enabled only for an action listed by
 * GET .../actions) and how an event reads in the log. It registers itself with
 * `Playground.register` and draws with the shared pieces of shared/ludoteca/playground/games.js
 * (`card`, `move`, `panel`, `listed`...).
 *
 * `make generate` copies this file into the playground's `tables.js` (a block of its own there:
 * its top-level names are its own), which the page loads: edit it here, then `make generate`.
 */

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

Playground.register("ludix", LUDIX);
