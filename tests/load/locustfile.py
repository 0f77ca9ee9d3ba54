"""Load scenario: players creating Ludix games and playing them through the front door (Caddy, `make run` on :8000).

    locust -f tests/load/locustfile.py --host http://127.0.0.1:8000

Every simulated player comes from one address: run the stack with ``LUDOTECA_RATE_LIMIT=0``
(``LUDOTECA_RATE_LIMIT=0 make run``), or the per-address limits on creating games answer 429.
"""

from __future__ import annotations

from typing import Any

from locust import HttpUser, between, task


class LudixPlayer(HttpUser):
    wait_time = between(0.05, 0.2)

    def on_start(self) -> None:
        self.new_game()

    def new_game(self) -> None:
        r = self.client.post("/ludix/games", json={"seats": ["human", "human"]}, name="create")
        data: Any = r.json()
        self.gid = data["game"]["id"]
        t1 = self.client.post(f"/ludix/games/{self.gid}/players", json={}, name="join").json()["token"]
        self.tokens = [data["token"], t1]
        self.client.post(f"/ludix/games/{self.gid}/actions", json={"type": "alea_jacta_est"},
                         headers=self.auth(0), name="play")

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    @task
    def play(self) -> None:
        view = self.client.get(f"/ludix/games/{self.gid}", name="view").json()
        if view["status"] == "finished":
            self.new_game()
            return
        seat = view["to_act"][0]
        action = {"type": "hold"} if view["state"]["throw"] else {"type": "roll"}
        self.client.post(f"/ludix/games/{self.gid}/actions", json=action, headers=self.auth(seat), name="play")
