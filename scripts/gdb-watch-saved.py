# Who overwrites a callee-saved register's slot: a gdb Python script (gdb -x) for a fault where a
# function returns with a callee-saved register changed (the Python module's crash after
# `import numpy`, bench/NOTES.md v18). At the entry of $WATCH_FUNCTION (a symbol gdb can break
# on) it reads the prologue, finds where the function pushes $WATCH_REGISTER (default r12),
# puts a hardware watchpoint on that stack slot and a breakpoint on the return address; every
# write to the slot prints the value, the writing instruction and a backtrace, and the return
# prints the register as the caller gets it back. A write that no watchpoint sees came from
# outside the CPU (a DMA or a GPU store through HMM).
# WATCH_UNSET: variables (comma-separated) taken out of the program's environment.
#   WATCH_FUNCTION='pfmc::engine::price' gdb -batch -x scripts/gdb-watch-saved.py --args python3 x.py
import os
import re

import gdb

FUNCTION = os.environ.get("WATCH_FUNCTION", "pfmc::engine::price")
REGISTER = os.environ.get("WATCH_REGISTER", "r12")
state = {"armed": False, "entries": 0}


def log(text):
    gdb.write("[watch] " + text + "\n")
    gdb.flush()


def slot_of_register(frame_pc):
    """The offset below the entry's stack pointer where the prologue pushes REGISTER."""
    text = gdb.execute(f"x/24i {frame_pc}", to_string=True)
    pushes = 0
    for line in text.splitlines():
        m = re.search(r":\s+(\w+)\s+(.*)$", line)
        if not m:
            continue
        op, args = m.group(1), m.group(2)
        if op.startswith("endbr"):
            continue
        if op == "push":
            pushes += 1
            if args.strip() == "%" + REGISTER:
                return pushes * 8, text
        elif op == "mov" and args.strip() == "%rsp,%rbp":
            continue
        elif pushes > 0 and op not in ("lea", "mov", "sub"):
            break
    return None, text


def stop_reason():
    """('breakpoint', numbers) | ('signal', name) | ('exited', None) for the last stop."""
    return state.get("last")


def on_stop(event):
    if isinstance(event, gdb.SignalEvent):
        state["last"] = ("signal", event.stop_signal)
    elif isinstance(event, gdb.BreakpointEvent):
        state["last"] = ("breakpoint", [b.number for b in event.breakpoints])
    else:
        state["last"] = ("other", None)


def alive():
    inferior = gdb.selected_inferior()
    return inferior is not None and inferior.pid != 0


def reg(name):
    return int(gdb.parse_and_eval(f"${name}")) & 0xFFFFFFFFFFFFFFFF


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set can-use-hw-watchpoints 1")
gdb.execute("handle SIGPIPE nostop noprint pass")
# gdb's own Python may need a PYTHONHOME (a carried gdb); the program runs without it.
for name in filter(None, os.environ.get("WATCH_UNSET", "").split(",")):
    gdb.execute(f"unset environment {name}")
gdb.events.stop.connect(on_stop)
# The module is loaded by Python's import: stop there, then break at the function's first byte.
gdb.execute("catch load _pfmc")
gdb.execute("run")
entry_bp = None
watch = None
returned_bp = None
caller_value = 0
while alive():
    kind, what = stop_reason() or ("other", None)
    if kind == "signal" and what not in ("SIGSEGV", "SIGBUS", "SIGABRT", "SIGILL"):
        gdb.execute("continue")
        continue
    if kind == "signal":
        log(f"fault {what}: " + gdb.execute("info registers rip rsp rbp rbx r12 r13 r14 r15",
                                          to_string=True).replace("\n", " ; "))
        log(gdb.execute("x/4i $pc", to_string=True))
        log(gdb.execute("bt 12", to_string=True))
        break
    if entry_bp is None:
        listing = gdb.execute(f"info functions ^{FUNCTION}(", to_string=True)
        addresses = [(a, n) for a, n in re.findall(r"^(0x[0-9a-f]+)\s+(.*)$", listing, re.M)
                     if not n.endswith("@plt")]
        if not addresses:
            log("the library is loaded, the function not found yet:\n" + listing[-400:])
            gdb.execute("continue")
            continue
        log(f"{len(addresses)} match(es): " + "; ".join(f"{a} {n[:120]}" for a, n in addresses))
        gdb.execute("delete")  # the load catchpoint
        entry_bp = gdb.Breakpoint(f"*{addresses[0][0]}", internal=True)
        gdb.execute("continue")
        continue
    numbers = what if kind == "breakpoint" else []
    if entry_bp.number in numbers and watch is None:
        state["entries"] += 1
        rsp, caller_value = reg("rsp"), reg(REGISTER)
        ret = int(gdb.parse_and_eval("*(unsigned long *) $rsp"))
        offset, prologue = slot_of_register(gdb.newest_frame().pc())
        log(f"entry {state['entries']}: rsp {rsp:#x}, return {ret:#x}, {REGISTER} {caller_value:#x}")
        if offset is None:
            log(f"the prologue does not push {REGISTER}:\n{prologue}")
        else:
            slot = rsp - offset
            log(f"{REGISTER} is pushed at rsp - {offset} = {slot:#x}")
            watch = gdb.Breakpoint(f"*(long *) {slot:#x}", type=gdb.BP_WATCHPOINT,
                                   wp_class=gdb.WP_WRITE, internal=True)
            state["slot"], state["hits"] = slot, 0
        returned_bp = gdb.Breakpoint(f"*{ret:#x}", internal=True)
        gdb.execute("continue")
        continue
    if returned_bp is not None and returned_bp.number in numbers:
        value = reg(REGISTER)
        log(f"returned: {REGISTER} = {value:#x} (caller had {caller_value:#x}) "
            f"{'SAME' if value == caller_value else 'CHANGED'}")
        if watch is not None:
            watch.delete()
            watch = None
        returned_bp.delete()
        returned_bp = None
        gdb.execute("continue")
        continue
    if watch is not None and (watch.number in numbers or kind == "other"):
        state["hits"] += 1
        value = int(gdb.parse_and_eval(f"*(unsigned long *) {state['slot']:#x}"))
        if state["hits"] <= 3 or value < 0x10000:
            frame = gdb.newest_frame()
            log(f"write {state['hits']} to the slot: {value:#x} at {frame.pc():#x} {frame.name()}")
            log(gdb.execute("x/3i $pc - 10", to_string=True))
            log(gdb.execute("bt 12", to_string=True))
        gdb.execute("continue")
        continue
    log(f"stop not understood: {kind} {what}")
    gdb.execute("continue")
log("done: " + gdb.execute("info program", to_string=True).strip().replace("\n", " "))
