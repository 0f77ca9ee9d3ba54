// Ludor in the TypeScript client of the generated types (tests/clients/ts/play.ts, which plays
// a whole game of every registered game with its adapter from the game's test folder): the table a
// human creates, what it plays, what the events and the result say. Compiled beside play.ts and
// the types openapi-typescript generates from openapi/ludor.json (tests/clients/ts/gen/ludor.ts)
// by tests/clients/test_generators.py: no `any`, no cast, `tsc --strict`.
// The human plays cards when it can, else passes.

import createClient from "openapi-fetch";
import type { components, paths } from "../clients/ts/gen/ludor.js";
import { fail, pick, register } from "../clients/ts/play.js";

type S = components["schemas"];

register<S["LudorAction"], S["LudorGame"], S["LudorEvent"], S["LudorCreateGame"]>("ludor", (url) => ({
  client: createClient<paths>({ baseUrl: url }),
  create: { seats: ["human", "bot:greedy", "bot:greedy"], options: { round_limit: 1, deck: "forty" } },
  choose(_game, actions) {
    const plays = actions.filter((a) => a.type !== "pass");
    return pick(plays.length > 0 ? plays : actions);
  },
  told: (e) => (e.type === "CardsPlayed" ? `seat ${e.data.seat} played ${e.data.cards.join(" ")} (${e.data.combo.kind})`
    : e.type === "RoundEnded" ? `round ${e.data.round}: ${e.data.titles.join(", ")}` : ""),
  ending(game, events) {
    const r = game.result ?? fail("no result");
    return `points ${r.summary.points.join("/")}, titles ${(r.summary.titles ?? fail("no titles")).join(", ")}, ${events} events`;
  },
}));
