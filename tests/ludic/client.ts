// Ludic in the TypeScript client of the generated types (tests/clients/ts/play.ts, which plays
// a whole game of every registered game with its adapter from the game's test folder): the table a
// human creates, what it plays, what the events and the result say. Compiled beside play.ts and
// the types openapi-typescript generates from openapi/ludic.json (tests/clients/ts/gen/ludic.ts)
// by tests/clients/test_generators.py: no `any`, no cast, `tsc --strict`.
// The human passes when it may (a Seeker leaves the guessing to the bots), else plays a set; as the
// Vexer it writes a rule from the typed view.

import createClient from "openapi-fetch";
import type { components, paths } from "../clients/ts/gen/ludic.js";
import { fail, pick, register } from "../clients/ts/play.js";

type S = components["schemas"];
const RANK: Record<string, string> = { J: "jack", Q: "queen", K: "king" };

register<S["LudicAction"], S["LudicGame"], S["LudicEvent"], S["LudicCreateGame"]>("ludic", (url) => ({
  client: createClient<paths>({ baseUrl: url }),
  create: { seats: ["human", "bot:expert", "bot:expert"], options: { round_limit: 1 } },
  choose(game, actions, templates) {
    const passes = actions.filter((a) => a.type === "pass"); // a Seeker leaves the guessing to the bots
    if (passes.length > 0) return passes[0];
    const plays = actions.filter((a) => a.type !== "guess");
    if (plays.length > 0) return pick(plays);
    if (templates.some((t) => t.type === "write_rule")) {
      // the Vexer: a rule the 'obey' initial set obeys and the 'break' one breaks (its top card, exactly)
      const top = game.state.columns.obey[0]?.top ?? fail("no initial set");
      const colour = /[DH]$/.test(top) ? "red" : "black";
      const value = top.slice(0, -1);
      return { type: "write_rule", rule: `the top card is a ${colour} ${RANK[value] ?? value}` };
    }
    return undefined;
  },
  told: (e) => (e.type === "SetPlayed" ? `seat ${e.data.seat} played ${e.data.top}/${e.data.bottom} to ${e.data.chosen}`
    : e.type === "RoundEnded" ? `round ${e.data.round}: ${e.data.rule ?? "?"}` : ""),
  ending(game, events) {
    const r = game.result ?? fail("no result");
    return `${r.summary.won_by}, ${r.summary.rounds} rounds, ${events} events`;
  },
}));
