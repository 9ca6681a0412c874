"""What the cube benches share: reading gnubg 1.07's `eval` cube analysis
and pricing an action in its equities."""
import re

LABELS = (("No double", "nd"), ("No redouble", "nd"),
          ("Double, take", "dt"), ("Redouble, take", "dt"),
          ("Double, pass", "dp"), ("Redouble, pass", "dp"))


def cube_analysis(block):
    """No double, double/take and double/pass equities and the proper
    action of one `eval` output, as far as it printed them."""
    r = {}
    for label, key in LABELS:
        m = re.search(rf"^\d\. {label}\s+([+-][\d.]+)", block, re.M)
        if m:
            r[key] = float(m.group(1))
    m = re.search(r"^Proper cube action: (.*?)(?: \([-0-9.]+%\))?$", block, re.M)
    if m:
        r["action"] = m.group(1).strip()
    return r


def doubles(action):
    return action.startswith(("Double", "Redouble"))


def takes(action):
    return action.endswith("take") or action.endswith("beaver")


def agrees(ref_action, action):
    """Whether `action` is the referee's verdict. gnubg says "Optional
    double, take" where doubling now and later are worth the same (it
    charges neither): then doubling and not doubling both agree, with the
    same take."""
    if action == ref_action:
        return True
    if ref_action.startswith("Optional "):
        rest = ref_action[len("Optional "):]
        return action in (rest[0].upper() + rest[1:], "No " + rest)
    return False


def cost(ref, action):
    """What `action` loses in the referee's equities (of the doubler; EMG
    in match play): the double/no-double part when that differs, plus the
    take/pass part when that does; None without all three equities."""
    if not all(k in ref for k in ("nd", "dt", "dp")):
        return None
    nd, dt, dp = ref["nd"], ref["dt"], ref["dp"]
    c = 0.0
    if doubles(action) != doubles(ref["action"]):
        c += abs(nd - min(dt, dp))
    if takes(action) != takes(ref["action"]):
        c += abs(dt - dp)
    return round(c, 4)
