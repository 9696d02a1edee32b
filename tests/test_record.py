"""The game record carries everything the final score needs (#23 defect 7): the tiles laid out
and taken per round, in the pick order, only from what is there; Repete chips earned and
spent; no tile dealt by the model into a session; card IV only where it is in play."""

import pytest

from scanner.errors import InputError
from scanner.rules.simulate import play_random_game
from scanner.session import Session
from scanner.store import MemoryStore
from webui import create_app

PLAYERS = ["grey", "brown", "blue"]
RED3 = {"color": "red", "value": 3}
RED4 = {"color": "red", "value": 4}


def scored_round(s):
    s.place({"player": "grey", "building": "castrum", "dice": [2] * 8})
    s.place({"player": "brown", "building": "forum", "dice": [1]})
    s.place({"player": "blue", "building": "forum", "dice": [1]})
    s.next_round()


def test_the_round_event_keeps_the_tiles_laid_out_not_the_leftovers():
    game = play_random_game(4, seed=5)
    rounds = [e for e in game.events if e["event"] == "round"]
    assert rounds and all(len(e["provinces"]) == 4 and len(e["patricians"]) == 6 for e in rounds)
    taken = [e["tile"] for e in game.events if e["event"] == "pick" and e["kind"] == "province"]
    laid = [t for e in rounds for t in e["provinces"]]
    assert taken and all(t in laid for t in taken)


def test_a_session_deals_no_tiles_of_its_own():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    scored_round(s)
    held = s.game.holdings
    assert all(not h.senate and not h.provinces and not h.patricians for h in held.values())
    assert held["brown"].repete == 7  # chips are the rules' to count


def test_picks_take_only_tiles_laid_out_and_in_order():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    with pytest.raises(InputError) as err:
        s.lay_out([RED3, RED4, RED3], [])
    assert err.value.code == "value.tile" and err.value.path == "$.provinces[2]"
    with pytest.raises(InputError) as err:
        s.lay_out([RED3, RED4, {"color": "red", "value": 1}, {"color": "red", "value": 2}], [])
    assert err.value.code == "value.range"
    s.lay_out([RED3, RED4, {"color": "green", "value": 1}], [])
    scored_round(s)
    assert s.summary()["next_pick"]["choices"] == [RED3, RED4, {"color": "green", "value": 1}]
    with pytest.raises(InputError) as err:
        s.pick("grey", "province", {"color": "blue", "value": 4})
    assert err.value.code == "value.tile"
    s.pick("grey", "province", RED4)
    rec = s.record()
    assert rec["rounds"][0]["laid_out"]["provinces"][1] == RED4
    assert rec["rounds"][0]["picks"] == [
        {"round": 1, "player": "grey", "kind": "province", "tile": RED4}
    ]
    assert rec["inventory"] == s.inventory()
    # A tile taken is never laid out again.
    with pytest.raises(InputError):
        s.lay_out([RED4], [])


def test_repete_chips_spent_are_taken_off_the_final_inventory():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    with pytest.raises(InputError) as err:
        s.spend_repete("brown")
    assert err.value.code == "session.no-chip"
    scored_round(s)
    s.spend_repete("brown")
    s.spend_repete("brown")
    assert s.inventory()["players"][1]["repete"] == 5
    again = Session(s.store)  # the record replays to the same inventory
    assert again.inventory() == s.inventory() and again.record()["chips_spent"]["brown"] == 2
    s.undo()
    assert s.inventory()["players"][1]["repete"] == 6


@pytest.mark.parametrize(
    "players, has_iv",
    [(["grey", "blue", "green"], False), (["grey", "blue", "green", "brown"], True)],
)
def test_card_iv_is_offered_only_where_it_is_in_play(players, has_iv):
    s = Session(MemoryStore(), players=players, seed=3)
    assert ("IV" in s.tiles.choices(1, "senate")) is has_iv
    assert "XIII" in s.tiles.choices(1, "senate")


def test_the_record_and_the_new_entries_through_the_api(tmp_path):
    client = create_app({"DATA_DIR": str(tmp_path), "GAME_PIN": "2468"}).test_client()
    pin = {"X-Alea-Pin": "2468"}
    assert client.post("/api/game/new", json={"players": PLAYERS}, headers=pin).status_code == 200
    res = client.post(
        "/api/game/lay-out", json={"provinces": [RED3], "patricians": []}, headers=pin
    )
    assert res.status_code == 200 and res.get_json()["game"]["laid_out"]["provinces"] == [RED3]
    res = client.post("/api/game/repete", json={"player": "grey"}, headers=pin)
    assert res.status_code == 400 and res.get_json()["error"]["code"] == "session.no-chip"
    assert client.post("/api/game/repete", json={"player": "grey"}).status_code == 403
    rec = client.get("/api/game/record").get_json()
    assert rec["rounds"] == [] and rec["inventory"]["player_count"] == 3
