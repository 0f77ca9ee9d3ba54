/* Pig's table in the playground (the front door's page at `/`; docs/playground.md): how its
 * view is drawn, how a move is built by clicking (a button enabled only for an action listed by
 * GET .../actions) and how an event reads in the log. It registers itself with
 * `Playground.register` and draws with the shared pieces of shared/ludoteca/playground/games.js
 * (`card`, `move`, `panel`, `listed`...).
 *
 * `make generate` copies this file into the playground's `tables.js` (a block of its own there:
 * its top-level names are its own), which the page loads: edit it here, then `make generate`.
 */

// A table is an object registered under the game's name (below). `render(ctx)` draws `ctx.state` (the
// game's view, as its view schema documents it) and the move buttons; `move(...)` enables a button
// only when the action it would post is listed in `ctx.actions` (GET .../actions), so a table never
// judges legality itself. `describe(e, ctx)` turns each event into a line of the log (null: a
// generic line from its type; "": hidden). A game with no table is still playable: the page
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

Playground.register("pig", PIG);
