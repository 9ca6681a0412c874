"""`sheshbesh serve`: its JSON API against the command line, and its page
in a real browser (paste and hint, a play's board, the cube, a rollout
with its progress and stop, bad input).

The server runs as a user runs it, on a free loopback port; the API must
answer exactly what the commands print with `--json`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from browser import browser, drawn, shoot  # noqa: F401 (a fixture)
from conftest import MATCHES

# The opening 31 for money and at 5-away 6-away in a 7-point match, and
# a position before its roll.
OPENING_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
MATCH_POSITION = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:2:1:0:7:10"
BEFORE_ROLL = "4HPwATDgc/ABMA:cAmgAAAAAAAE"


class Server:
    def __init__(self, url: str, pid: int) -> None:
        self.url = url
        self.pid = pid

    def get(self, path: str, **params: Any) -> Tuple[int, str, str]:
        """Status, content type and body of GET `path`?`params`."""
        query = urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(f"{self.url}{path}?{query}", timeout=120) as r:
                return r.status, r.headers["Content-Type"], r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], e.read().decode()

    def json(self, path: str, **params: Any) -> Any:
        status, kind, body = self.get(path, **params)
        assert status == 200, body
        assert kind == "application/json"
        return json.loads(body)

    def error(self, path: str, **params: Any) -> Tuple[int, str]:
        status, kind, body = self.get(path, **params)
        assert kind == "application/json", body
        return status, json.loads(body)["error"]

    def post(self, path: str, data: bytes, **params: Any) -> Tuple[int, str, str]:
        query = urllib.parse.urlencode(params)
        request = urllib.request.Request(f"{self.url}{path}?{query}", data=data, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=300) as r:
                return r.status, r.headers["Content-Type"], r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], e.read().decode()

    def events(self, **params: Any) -> List[Tuple[str, Any]]:
        """The server-sent events of a whole rollout."""
        return parse_events(*self.get("api/rollout", **params))


def parse_events(status: int, kind: str, body: str) -> List[Tuple[str, Any]]:
    assert status == 200 and kind == "text/event-stream", body
    out = []
    for block in body.split("\n\n"):
        fields = dict(line.split(":", 1) for line in block.splitlines() if ":" in line)
        if "data" in fields:
            out.append((fields.get("event", "message").strip(), json.loads(fields["data"])))
    return out


@pytest.fixture(scope="module")
def server(cli) -> Iterator[Server]:
    p = subprocess.Popen([str(cli.binary), "serve", "--listen", "127.0.0.1:0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("listening on http://127.0.0.1:"), line + p.stderr.read()
    yield Server(line.split()[-1], p.pid)
    p.terminate()
    p.wait(timeout=30)


# --- the API against the command line ---------------------------------


@pytest.mark.parametrize("position,dice,ply", [
    (OPENING_31, None, 0), (MATCH_POSITION, None, 1), ("start", "64", 2),
])
def test_hint_answers_what_hint_json_prints(cli, server, position, dice, ply):
    params: Dict[str, Any] = {"position": position, "ply": ply}
    words = [position] + ([dice] if dice else [])
    if dice:
        params["dice"] = dice
    assert server.json("api/hint", **params) == cli.json("hint", *words, "--ply", str(ply))
    cubeless = server.json("api/hint", cubeless=1, **params)
    assert cubeless == cli.json("hint", *words, "--ply", str(ply), "--cubeless")


def test_cube_eval_position_and_moves_answer_as_their_commands(cli, server):
    assert server.json("api/cube", position=BEFORE_ROLL, ply=1) == cli.json(
        "cube", BEFORE_ROLL, "--ply", "1")
    assert server.json("api/eval", position=BEFORE_ROLL) == cli.json("eval", BEFORE_ROLL)
    shown = server.json("api/position", position=MATCH_POSITION)
    assert shown == cli.json("show", MATCH_POSITION)
    assert shown["match"] == {"length": 7, "score": {"on_roll": 2, "opponent": 1},
                              "crawford": False}
    assert shown["cube"] == {"value": 1, "owner": "centre"} and shown["dice"] == "31"
    assert server.json("api/moves", position="start", dice="66") == cli.json("moves", "start", "66")
    # A hint without dice is the cube's, as on the command line.
    assert server.json("api/hint", position=BEFORE_ROLL) == cli.json("hint", BEFORE_ROLL)


def test_a_fibs_board_is_read_as_the_position_it_shows(server):
    # The opening of a 5-point match with 31 to play, as gnubg writes it.
    text = ("board:You:Opp:5:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
            "1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0")
    answer = server.json("api/position", position=text)
    assert answer["position_id"] == "4HPwATDgc/ABMA"
    assert answer["xgid"].split(":")[4] == "31"
    hint = server.json("api/hint", position=text)
    assert hint["dice"] == "31" and hint["moves"][0]["move"] == "8/5 6/5"
    status, why = server.error("api/position", position="board:You:Opp:5:0")
    assert status == 400 and "FIBS board" in why


def test_bad_input_is_a_400_with_the_commands_own_line(cli, server):
    assert server.error("api/hint", position="nonsense", dice="31") == (
        400, cli.error("hint", "nonsense", "31"))
    assert server.error("api/hint", position="start", dice="71") == (
        400, cli.error("hint", "start", "71"))
    assert server.error("api/hint", position="start", dice="31", ply="9") == (
        400, 'bad ply "9": give 0 to 4')
    assert server.error("api/hint", position="start", dice="31", plies="2") == (
        400, 'unknown parameter "plies": this call takes position, dice, ply, cubeless')
    assert server.error("api/hint", dice="31") == (400, 'missing parameter "position"')
    assert server.error("api/board.svg", position="start", dice="31", play="8/2") [0] == 400
    assert server.error("api/rollout", position="start", trials="0") == (
        400, 'bad trials "0": give 1 to 1000000')


START = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]


def counts(board) -> str:
    return ",".join(map(str, board))


def test_a_position_set_up_from_counts_is_shown_as_show_shows_it(cli, server):
    assert server.json("api/setup", on_roll=counts(START), opponent=counts(START)) == cli.json(
        "show", "start")
    # One of the mover's back checkers on the bar.
    mine = START[:]
    mine[24], mine[0] = 1, 1
    shown = server.json("api/setup", on_roll=counts(mine), opponent=counts(START))
    assert shown["board"]["on_roll"] == mine
    assert server.json("api/position", position=shown["position_id"]) == shown
    sixteen = START[:-1] + [1]
    assert server.error("api/setup", on_roll=counts(START), opponent=counts(sixteen)) == (
        400, f'bad opponent "{counts(sixteen)}": the counts add up to 16 checkers, not 15')
    theirs = START[:]
    theirs[24], theirs[1] = 0, 2  # their 1 point is the mover's 24 point
    status, why = server.error("api/setup", on_roll=counts(START), opponent=counts(theirs))
    assert status == 400 and why == "bad position: both sides have checkers on point 24"
    assert server.error("api/setup", on_roll="1,2", opponent=counts(START))[0] == 400


def test_no_file_of_the_machine_is_served(server):
    for path in ("etc/passwd", "../Cargo.toml", "%2e%2e/%2e%2e/etc/passwd", "api/", "page.html"):
        status, _ = server.error(path)
        assert status == 404, path
    status, kind, body = server.get("")
    assert status == 200 and kind.startswith("text/html") and "Sheshbesh board" in body


def test_a_rollout_streams_its_progress_and_ends_with_rollouts_json(cli, server):
    events = server.events(position="start", trials=1296, truncate=2, seed=5)
    kinds = [k for k, _ in events]
    assert kinds[-1] == "result" and set(kinds[:-1]) == {"progress"} and len(kinds) >= 2
    trials = [d["trials"] for k, d in events if k == "progress"]
    assert trials == sorted(trials) and trials[-1] == 1296
    assert all(d["of"] == 1296 for k, d in events if k == "progress")
    expected = cli.json("rollout", "start", "--trials", "1296", "--truncate", "2", "--seed", "5")
    assert events[-1][1] == expected
    # A roll's plays, as `rollout POSITION DICE`.
    plays = server.events(position="start", dice="31", trials=72, truncate=1, moves=2)
    assert plays[-1][1] == cli.json("rollout", "start", "31", "--trials", "72", "--truncate",
                                    "1", "--moves", "2")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def assert_idles(server) -> None:
    """The server uses no CPU to speak of, two seconds on."""
    time.sleep(2.0)
    before = cpu_seconds(server.pid)
    time.sleep(2.0)
    assert cpu_seconds(server.pid) - before < 0.5


def test_the_server_answers_while_a_rollout_runs_and_stops_it_when_left(server):
    stream = urllib.request.urlopen(
        f"{server.url}api/rollout?position=start&trials=1000000", timeout=120)
    assert stream.readline() == b"event: progress\n"
    start = time.monotonic()
    assert server.json("api/position", position="start")["position_id"] == "4HPwATDgc/ABMA"
    hint = server.json("api/hint", position="start", dice="31")
    assert hint["moves"][0]["move"] == "8/5 6/5"
    assert time.monotonic() - start < 30
    # The reader leaves: the rollout stops after its batch.
    stream.close()
    assert_idles(server)


def test_ctrl_c_stops_the_server_at_once_even_mid_rollout(cli):
    p = subprocess.Popen([str(cli.binary), "serve", "--listen", "127.0.0.1:0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = p.stdout.readline().split()[-1]
    stream = urllib.request.urlopen(f"{url}api/rollout?position=start&trials=1000000", timeout=60)
    assert stream.readline() == b"event: progress\n"
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=10) == 0
    assert p.stderr.read() == ""
    stream.close()


def test_a_busy_port_is_one_line(cli):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        why = cli.error("serve", "--listen", f"127.0.0.1:{port}")
    assert why.startswith(f'bad --listen "127.0.0.1:{port}": cannot listen there: '), why


MATCH = MATCHES / "05_galaxy_5pt_match2430002.mat"


def test_a_match_review_streams_its_progress_and_ends_with_annotates_json(cli, server):
    events = parse_events(*server.post("api/annotate", MATCH.read_bytes(), name=MATCH.name, ply=0))
    kinds = [k for k, _ in events]
    assert kinds[-1] == "result" and set(kinds[:-1]) == {"progress"} and len(kinds) >= 2
    rolls = [d["rolls"] for k, d in events if k == "progress"]
    assert rolls == sorted(rolls) and rolls[-1] == events[0][1]["of"]
    expected = cli.json("annotate", str(MATCH), "--ply", "0")
    expected["file"] = MATCH.name
    assert events[-1][1] == expected


def test_a_review_stops_when_its_reader_leaves(server):
    request = urllib.request.Request(
        f"{server.url}api/annotate?name={MATCH.name}&ply=3", data=MATCH.read_bytes(), method="POST")
    stream = urllib.request.urlopen(request, timeout=120)
    assert stream.readline() == b"event: progress\n"
    stream.close()
    assert_idles(server)


def test_a_bad_or_oversized_upload_is_refused_with_one_line(server):
    status, kind, body = server.post("api/annotate", b"this is no match\n", name="x.mat")
    assert status == 400 and kind == "application/json"
    assert json.loads(body)["error"].startswith('bad match file "x.mat": ')
    status, kind, body = server.post("api/annotate", b"x" * (40 << 20), name="big.mat")
    assert status == 413 and kind == "application/json"
    assert json.loads(body)["error"] == 'bad match file "big.mat": larger than 8 MiB'
    status, _, body = server.post("api/annotate", MATCH.read_bytes())
    assert status == 400 and json.loads(body)["error"] == 'missing parameter "name"'


# --- the page in a browser ---------------------------------------------


def wait(driver, seconds=60):
    return WebDriverWait(driver, seconds)


def no_console_errors(driver) -> None:
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors


def test_paste_a_position_see_its_plays_and_the_board_after_one(cli, server, browser):
    browser.get(server.url)
    box = browser.find_element(By.ID, "position")
    box.clear()
    box.send_keys(OPENING_31)
    browser.find_element(By.ID, "ply").send_keys("0")
    browser.find_element(By.ID, "analyse").click()
    rows = wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "tr.play"))
    expected = cli.json("hint", OPENING_31, "--ply", "0")["moves"]
    assert [r.get_attribute("data-move") for r in rows] == [m["move"] for m in expected]
    board = browser.find_element(By.CSS_SELECTOR, "#board svg.board")
    assert drawn(board)
    assert len(board.find_elements(By.CSS_SELECTOR, "circle")) >= 30
    ids = browser.find_element(By.ID, "ids").text
    assert "4HPwATDgc/ABMA" in ids and "money game; cube 1, centred" in ids
    assert "position=XGID" in browser.current_url
    shoot(browser, "serve-hint")
    before = board.get_attribute("outerHTML")
    rows[1].click()
    wait(browser).until(lambda d: d.find_element(By.ID, "showing").is_displayed())
    assert browser.find_element(By.ID, "showing-text").text == f"After {expected[1]['move']}."
    after = browser.find_element(By.CSS_SELECTOR, "#board svg.board").get_attribute("outerHTML")
    assert after != before
    shoot(browser, "serve-after-play")
    browser.find_element(By.ID, "back").click()
    wait(browser).until(lambda d: not d.find_element(By.ID, "showing").is_displayed())
    # Swapping sides draws the board from the other player.
    def shown(d) -> str:
        return d.execute_script("return document.querySelector('#board svg.board').outerHTML")

    board = shown(browser)
    browser.find_element(By.ID, "flip").click()
    wait(browser).until(lambda d: shown(d) != board)
    flipped = browser.execute_script(
        "const t = document.createElement('div'); t.innerHTML = arguments[0];"
        " return t.querySelector('svg').outerHTML",
        server.get("api/board.svg", position=OPENING_31, flip=1)[2])
    assert shown(browser) == flipped
    browser.find_element(By.ID, "flip").click()
    no_console_errors(browser)


def test_the_url_opens_a_position_and_the_cube_decision_is_shown(cli, server, browser):
    browser.get(f"{server.url}?position={urllib.parse.quote(BEFORE_ROLL)}&ply=0")
    verdict = wait(browser).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#result .verdict"))[0]
    shown = cli.json("show", BEFORE_ROLL)["match"]
    score = f"{shown['score']['on_roll']} (on roll) - {shown['score']['opponent']} in a {shown['length']}-point match"
    assert score in browser.find_element(By.ID, "ids").text
    assert verdict.text == f"Proper cube action: {cli.json('cube', BEFORE_ROLL)['action']}"
    browser.find_element(By.ID, "cube-btn").click()
    wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#result .cube"))
    shoot(browser, "serve-cube")
    no_console_errors(browser)


def test_bad_input_is_one_line_on_the_page(cli, server, browser):
    browser.get(server.url)
    box = browser.find_element(By.ID, "position")
    box.clear()
    box.send_keys("4HPw")
    browser.find_element(By.ID, "analyse").click()
    error = wait(browser).until(ready.visibility_of_element_located((By.ID, "error")))
    assert error.text == cli.error("show", "4HPw")
    # The browser logs the refused request itself, and nothing else.
    severe = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert len(severe) == 1 and "status of 400" in severe[0], severe


def test_a_rollout_fills_in_as_it_runs_and_stops_on_request(server, browser):
    browser.get(f"{server.url}?position=start&ply=0")
    wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#result .verdict"))
    trials = browser.find_element(By.ID, "trials")
    trials.clear()
    trials.send_keys("200000")
    browser.find_element(By.ID, "rollout-btn").click()
    progress = browser.find_element(By.ID, "rollout-progress")
    wait(browser).until(lambda d: int(progress.get_attribute("value")) > 0)
    first = int(progress.get_attribute("value"))
    wait(browser).until(lambda d: int(progress.get_attribute("value")) > first)
    table = browser.find_element(By.CSS_SELECTOR, "#rollout-table table")
    assert "the position" in table.text
    shoot(browser, "serve-rollout-running")
    browser.find_element(By.ID, "stop-btn").click()
    status = browser.find_element(By.ID, "rollout-status")
    wait(browser).until(lambda d: status.text.startswith("stopped at"))
    stopped = int(progress.get_attribute("value"))
    assert 0 < stopped < 200000
    assert browser.find_element(By.ID, "rollout-btn").is_enabled()
    # A short one runs to the end.
    trials.clear()
    trials.send_keys("144")
    browser.find_element(By.ID, "rollout-btn").click()
    wait(browser).until(lambda d: status.text == "done: 144 trials")
    shoot(browser, "serve-rollout-done")
    no_console_errors(browser)


def test_a_dropped_match_is_reviewed_and_stepped_through_by_keyboard(cli, server, browser):
    browser.get(server.url)
    browser.find_element(By.ID, "ply").send_keys("0")
    browser.find_element(By.ID, "match-file").send_keys(str(MATCH))
    body = wait(browser, 120).until(ready.visibility_of_element_located((By.ID, "review-body")))
    expected = cli.json("annotate", str(MATCH), "--ply", "0")
    decisions = expected["decisions"]
    marked = [d for d in decisions if d["mark"] != "none"]
    status = browser.find_element(By.ID, "review-status").text
    assert status == f"{len(decisions)} decisions, {len(marked)} mistakes marked (0-ply)"
    assert "lasse vs fcamilovski, 5-point match" in browser.find_element(By.ID, "review-title").text
    dots = body.find_elements(By.CSS_SELECTOR, "#review-graph circle")
    assert len(dots) == len(decisions)
    assert len(body.find_elements(By.CSS_SELECTOR, "#mistakes li")) == len(marked)
    # The first mistake is shown, with its board and arrows.
    decision = browser.find_element(By.ID, "decision")

    def says(d):
        return lambda _: decision.text.startswith(f"Game {d['game']}, move {d['move']}: {d['player']}")

    wait(browser).until(says(marked[0]))
    wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg.board"))
    shoot(browser, "serve-review")
    actions = browser.find_element(By.TAG_NAME, "body")
    actions.send_keys("n")
    wait(browser).until(says(marked[1]))
    first = decisions.index(marked[1])
    actions.send_keys(Keys.ARROW_RIGHT)
    wait(browser).until(says(decisions[first + 1]))
    actions.send_keys("k")
    wait(browser).until(says(marked[1]))
    # A graph dot jumps to its decision.
    dots[5].click()
    wait(browser).until(says(decisions[5]))
    # A take decision is drawn from the taker's side.
    take = next(i for i, d in enumerate(decisions) if d["played"] in ("Take", "Pass"))
    dots[take].click()
    wait(browser).until(says(decisions[take]))
    shoot(browser, "serve-review-take")
    no_console_errors(browser)


def test_a_position_is_set_up_by_clicking_the_board(cli, server, browser):
    browser.get(f"{server.url}?position=start&ply=0")
    wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#result .verdict"))
    browser.find_element(By.ID, "edit").click()

    def spot(point):
        return browser.find_element(By.CSS_SELECTOR, f'#board rect.spot[data-point="{point}"]')

    def position_id():
        return browser.find_element(By.ID, "position").get_attribute("value")

    # Take one of the mover's 6-point checkers off, put it on its 5 point,
    # then give the other side one on the bar (shift-click the bar).
    ActionChains(browser).context_click(spot(6)).perform()
    wait(browser).until(lambda d: position_id() != "start")
    after_off = position_id()
    spot(5).click()
    wait(browser).until(lambda d: position_id() != after_off)
    expected = cli.json("show", "start")["board"]
    expected["on_roll"][6], expected["on_roll"][5] = 4, 1
    moved = cli.json("show", position_id())["board"]
    assert moved["on_roll"] == expected["on_roll"]
    before_bar = position_id()
    # The other side has all 15 on the board: a checker must come off first.
    ActionChains(browser).key_down(Keys.SHIFT).click(spot(25)).key_up(Keys.SHIFT).perform()
    error = wait(browser).until(ready.visibility_of_element_located((By.ID, "error")))
    assert error.text.startswith("all 15 of that side's checkers are on the board")
    # Their 13 point is the board's 12: right-click takes one of theirs off.
    ActionChains(browser).context_click(spot(12)).perform()
    wait(browser).until(lambda d: position_id() != before_bar)
    off = position_id()
    ActionChains(browser).key_down(Keys.SHIFT).click(spot(25)).key_up(Keys.SHIFT).perform()
    wait(browser).until(lambda d: position_id() != off)
    board = cli.json("show", position_id())["board"]
    assert board["opponent"][0] == 1 and board["opponent"][13] == 4
    shoot(browser, "serve-setup")
    # The set-up position is analysed as any other.
    browser.find_element(By.ID, "dice").send_keys("31")
    browser.find_element(By.ID, "analyse").click()
    rows = wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "tr.play"))
    best = cli.json("hint", position_id(), "31")["moves"][0]["move"]
    assert rows[0].get_attribute("data-move") == best
    browser.find_element(By.ID, "edit").click()
    no_console_errors(browser)
