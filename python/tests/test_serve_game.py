"""`sheshbesh serve`: games against the engine on the board, under every
rule option of `play`, through the API and in a real browser; the record
a game leaves reads back with `verify` and `annotate`."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Dict, Tuple

from selenium.webdriver.common.by import By

from browser import browser, shoot  # noqa: F401 (a fixture)
from test_serve import no_console_errors, server, wait  # noqa: F401 (a fixture)

SEED = "5e" * 32


def call(server, path: str, method: str = "POST", **params: Any) -> Tuple[int, Dict[str, Any]]:
    query = urllib.parse.urlencode(params)
    request = urllib.request.Request(f"{server.url}{path}?{query}", method=method,
                                     data=b"" if method == "POST" else None)
    try:
        with urllib.request.urlopen(request, timeout=300) as r:
            assert r.headers["Content-Type"] == "application/json"
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def new_game(server, **options: Any) -> Dict[str, Any]:
    status, state = call(server, "api/game", **options)
    assert status == 200, state
    return state


def act(server, state, **order: Any) -> Dict[str, Any]:
    status, answer = call(server, "api/game/act", id=state["id"], **order)
    assert status == 200, (order, answer)
    return answer


def play_out(server, state, double_first=False, resign_at=None) -> Tuple[Dict[str, Any], int]:
    """Plays the person's side to the end: the first legal play, every
    double taken, every resignation accepted; `double_first` doubles at
    the first chance of each game. Returns the last state and the orders
    given."""
    orders, doubled = 0, False
    while True:
        a = state["awaiting"]
        what = a["what"]
        orders += 1
        assert orders < 3000, state["log"][-5:]
        if what == "roll":
            if double_first and a["may_double"] and not doubled:
                doubled = True
                state = act(server, state, do="double")
            else:
                state = act(server, state, do="roll")
        elif what == "move":
            assert a["plays"], state
            state = act(server, state, do="play", move=a["plays"][0]["move"])
        elif what == "take":
            state = act(server, state, do="take")
        elif what == "resignation":
            state = act(server, state, do="accept")
        elif what == "next game":
            doubled = False
            state = act(server, state, do="next")
        else:
            assert what == "nothing", state
            return state, orders


def test_a_match_is_played_out_and_its_record_reads_back(cli, server, tmp_path):
    state = new_game(server, match=3, seed=SEED, level="intermediate")
    assert state["seats"] == ["engine", "human"] and state["viewer"] == 1
    assert state["seed"] is None and len(state["commitment"]) == 64
    assert state["log"][1].startswith("Game 1.")
    # The board is an XGID the other calls read, seen from the viewer.
    shown = server.json("api/position", position=state["board"])
    assert shown["match"]["length"] == 3
    state, orders = play_out(server, state, double_first=True)
    assert state["ended"] and state["seed"] == SEED
    assert state["log"][-1].endswith("wins the match.")
    assert max(state["score"]) >= 3
    winner = state["awaiting"]["winner"]
    assert state["score"][winner] >= 3 and state["log"][-1].startswith(state["names"][winner])
    # The last board is drawn, though no position text holds it.
    assert state["board"] is None
    status, kind, svg = server.get("api/game/board.svg", id=state["id"])
    assert status == 200 and kind == "image/svg+xml" and svg.startswith("<svg")
    assert "You double (cube to 2)." in state["log"]
    # No order is taken once the session is over.
    status, answer = call(server, "api/game/act", id=state["id"], do="roll")
    assert status == 409 and answer["error"] == "not now: the session is over"
    # The record is what `play` saves: `verify` checks every roll, and
    # `annotate` reads every game.
    status, kind, text = server.get("api/game/record", id=state["id"])
    assert status == 200 and kind.startswith("text/plain")
    record = tmp_path / "game.mat"
    record.write_text(text)
    code, out, err = cli.run("verify", SEED, state["commitment"], str(record))
    assert code == 0, out + err
    games = sum(1 for line in state["log"] if line.startswith("Game "))
    annotated = cli.json("annotate", str(record), "--ply", "0")
    assert annotated["games"] == games and annotated["length"] == 3
    assert [p["name"] for p in annotated["players"]] == state["names"]
    assert [p["points"] for p in annotated["players"]] == state["score"]


def test_every_rule_option_of_play_is_taken(server):
    state = new_game(server, match=0, games=2, jacoby=1, beavers=1, **{
        "auto-doubles": 2, "bg-counts-two": 1, "israeli": 1, "swap-sides": 1,
    }, names="Ann,Ben", players="human,human", seed=SEED, home="left")
    rules = state["rules"]
    assert rules == {"match": 0, "games": 2, "jacoby": True, "beavers": True, "auto_doubles": 2,
                     "bg_counts_two": True, "israeli": True, "crawford": False}
    assert state["names"] == ["Ann", "Ben"] and state["seats"] == ["human", "human"]
    # Two people at one board: the board is drawn for whoever acts, and
    # the home board turns round every other game.
    assert state["viewer"] == state["awaiting"]["player"]
    assert state["home"] == "left"
    first = state["home"]
    state, _ = play_out(server, state)
    assert state["log"][-1] == "Session over: 2 games played."
    assert state["home"] != first
    no_crawford = new_game(server, match=5, **{"no-crawford": 1})
    assert no_crawford["rules"]["crawford"] is False
    assert new_game(server, match=5)["rules"]["crawford"] is True


def test_bad_options_and_orders_are_named(server):
    for options, words in [
        ({"match": "x"}, "invalid value 'x' for '--match <LENGTH>'"),
        ({"level": "god"}, "invalid value 'god' for '--level <LEVEL>'"),
        ({"players": "engine,engine"}, "bad players: a game on the board needs a human seat"),
        ({"names": "a,b,c"}, "bad --names \"a,b,c\": give at most two"),
        ({"seed": "xyz"}, "seed"),
        ({"save": "/tmp/x.mat"}, "unknown parameter \"save\""),
        ({"jacoby": "yes"}, "bad jacoby \"yes\""),
    ]:
        status, answer = call(server, "api/game", **options)
        assert status == 400 and words in answer["error"], (options, answer)
    state = new_game(server, match=1, seed=SEED)
    assert state["awaiting"]["what"] == "roll"
    for order, code, words in [
        ({"do": "fly"}, 400, "bad do \"fly\""),
        ({"do": "take"}, 409, "not now: no double to take"),
        ({"do": "play", "move": "8/5 6/5"}, 409, "not now: no roll to play"),
        ({"do": "roll", "move": "8/5"}, 400, "bad move: \"do=roll\" takes none"),
        ({"do": "next"}, 409, "not now: a game is in progress"),
    ]:
        status, answer = call(server, "api/game/act", id=state["id"], **order)
        assert (status, words in answer["error"]) == (code, True), (order, answer)
    # A refused order leaves the game as it was.
    assert server.json("api/game/state", id=state["id"]) == state
    state = act(server, state, do="roll")
    dice = state["awaiting"]["dice"]
    status, answer = call(server, "api/game/act", id=state["id"], do="play", move="24/1")
    assert status == 400 and "24/1" in answer["error"], answer
    status, answer = call(server, "api/game/state", method="GET", id=999999)
    assert status == 404 and answer["error"] == "no game 999999"
    assert state["awaiting"]["dice"] == dice


def test_a_resignation_is_answered_by_the_engine(server):
    state = new_game(server, match=3, seed=SEED)
    state = act(server, state, do="resign", kind="gammon")
    assert "You offer to resign a gammon." in state["log"]
    # At the opening a gammon is far more than the engine expects to win.
    assert "Sheshbesh accepts." in state["log"], state["log"]
    assert state["score"] == [2, 0]
    assert state["awaiting"]["what"] == "next game"


def board_html(driver) -> str:
    return driver.execute_script("return document.querySelector('#board svg').outerHTML")


def test_a_game_is_played_on_the_board_by_clicking(server, browser):
    browser.get(server.url)
    browser.find_element(By.CSS_SELECTOR, "#new-game summary").click()
    length = browser.find_element(By.ID, "g-match")
    length.clear()
    length.send_keys("1")
    browser.find_element(By.ID, "g-level").send_keys("intermediate")
    browser.find_element(By.ID, "g-seed").send_keys(SEED)
    browser.find_element(By.ID, "start-game").click()
    status = wait(browser).until(lambda d: d.find_element(By.ID, "game-status").text and
                                 d.find_element(By.ID, "game-status"))
    assert "Sheshbesh 0, You 0 (1-point match); game 1" == \
        browser.find_element(By.ID, "game-title").text

    def state():
        return browser.execute_script("return game")

    def spot(point):
        return browser.find_element(By.CSS_SELECTOR, f'#board rect.spot[data-point="{point}"]')

    def visible(id_):
        return browser.find_element(By.ID, id_).is_displayed()

    moves, hinted, mirrored = 0, False, False
    for _ in range(400):
        s = state()
        what = s["awaiting"]["what"]
        before = json.dumps(s)
        if what == "nothing":
            break
        if what == "roll":
            assert visible("g-roll")
            browser.find_element(By.ID, "g-roll").click()
        elif what == "move":
            if not hinted:
                browser.find_element(By.ID, "g-hint").click()
                wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "tr.play"))
                hinted = True
                shoot(browser, "serve-game-hint")
            if not mirrored:
                right = board_html(browser)
                browser.find_element(By.ID, "home-left").click()
                wait(browser).until(lambda d: board_html(d) != right)
                mirrored = True
            play = s["awaiting"]["plays"][0]
            frm = play["steps"][0][0] if play["steps"] else 25
            if moves == 0 and frm <= 23:
                # A checker cannot move backwards: the page names it.
                spot(frm).click()
                wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board .spot.picked"))
                spot(frm + 1).click()
                error = wait(browser).until(lambda d: d.find_element(By.ID, "error").is_displayed()
                                            and d.find_element(By.ID, "error"))
                assert error.text.startswith(f"no legal play of {s['awaiting']['dice']} moves a checker from {frm} to {frm + 1}")
                wait(browser).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#board .spot.picked"))
            # A checker's way a step at a time: click where it is, then
            # where it goes.
            for frm, to in play["steps"]:
                spot(frm).click()
                wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board .spot.picked"))
                spot(to).click()
                wait(browser).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#board .spot.picked"))
            if play["steps"]:
                box = browser.find_element(By.ID, "g-move")
                wait(browser).until(lambda d: box.get_attribute("value") == play["move"])
                if moves == 2:
                    shoot(browser, "serve-game-move")
            browser.find_element(By.ID, "g-play").click()
            moves += 1
        elif what == "take":
            browser.find_element(By.ID, "g-take").click()
        elif what == "resignation":
            browser.find_element(By.ID, "g-accept").click()
        else:
            raise AssertionError(f"a 1-point match awaits {what}")
        wait(browser).until(lambda d: json.dumps(state()) != before)
        assert not browser.find_element(By.ID, "error").is_displayed(), \
            browser.find_element(By.ID, "error").text
    s = state()
    assert s["ended"] and moves > 0 and hinted and mirrored
    assert "The session is over. Dice seed " + SEED in status.text
    log = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#g-log li")]
    assert log[0].endswith("wins the match.") and log[-1].startswith("Dice commitment")
    assert browser.find_element(By.ID, "g-record").get_attribute("href").endswith(
        f"/api/game/record?id={s['id']}")
    shoot(browser, "serve-game-over")
    no_console_errors(browser)
