/* Speculation's table in the playground (the front door's page at `/`; docs/playground.md): how its
 * view is drawn, how a move is built by clicking (a button enabled only for an action listed by
 * GET .../actions) and how an event reads in the log; its result screen adds the guesses of each player.
 * It registers itself with `Playground.register` and draws with the shared pieces of
 * shared/ludoteca/playground/games.js (`card`, `move`, `panel`, `listed`...).
 *
 * `make generate` copies this file into the playground's `tables.js` (a block of its own there:
 * its top-level names are its own), which the page loads: edit it here, then `make generate`.
 */

const VALUE_CODE = (v) => `${v === 1 ? "A" : v}H`; // the hearts a guesser names values with

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

Playground.register("speculation", SPECULATION);
