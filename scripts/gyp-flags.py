#!/usr/bin/env python3
"""Prints, as shell assignments, what gyp/binding.gyp says the kdfpool target
is built from on one platform: SOURCES, CFLAGS, DEFINES, INCLUDES, LDFLAGS.
SOURCES are relative to the package root (the gyp file's are relative to
its own folder), INCLUDES absolute.

gyp/binding.gyp stays the one list of sources and flags; scripts/prebuild.sh
reads it through this file instead of keeping a second copy. Only what
binding.gyp uses is understood: the target's lists, `conditions` with
gyp's variables (OS, target_arch, node_shared_openssl) and binding.gyp's
own `variables` at their defaults (`name%`: kdfpool_testing is 0, so a
prebuild is a release build) and their `<(name)` uses, and `<!(cmd)`
expansions, which gyp runs with a shell exactly as here.

  python3 scripts/gyp-flags.py OS TARGET_ARCH   (OS: linux, win, mac)
"""
import ast
import os
import re
import shlex
import subprocess
import sys

LISTS = ("sources", "cflags_c", "cflags", "defines", "include_dirs", "ldflags", "libraries")


def expand(value, cwd):
    # gyp replaces '<!(command)' in any string with the command's output.
    def run(m):
        return subprocess.run(m.group(1), shell=True, cwd=cwd, capture_output=True,
                              text=True, check=True).stdout.strip()
    if isinstance(value, str):
        return re.sub(r"<!\((.*?)\)(?='|$)", run, value)
    if isinstance(value, list):
        return [expand(v, cwd) for v in value]
    if isinstance(value, dict):
        return {k: expand(v, cwd) for k, v in value.items()}
    return value


def substitute(value, env):
    # gyp replaces '<(name)' with the variable's value.
    return re.sub(r"<\((\w+)\)", lambda m: str(env[m.group(1)]), value)


def merge(into, part, env):
    for key in LISTS:
        into.setdefault(key, []).extend(substitute(v, env) for v in part.get(key, []))
    for cond in part.get("conditions", []):
        expr, then = cond[0], cond[1]
        chosen = then if eval(expr, {"__builtins__": {}}, env) else (cond[2] if len(cond) > 2 else {})
        merge(into, chosen, env)


def main():
    os_name, arch = sys.argv[1], sys.argv[2]
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    gyp_dir = os.path.join(root, "gyp")
    with open(os.path.join(gyp_dir, "binding.gyp"), encoding="utf8") as f:
        gyp = expand(ast.literal_eval(f.read()), gyp_dir)
    target = next(t for t in gyp["targets"] if t["target_name"] == "kdfpool")
    env = {"OS": os_name, "target_arch": arch, "node_shared_openssl": "false"}
    for name, value in gyp.get("variables", {}).items():
        env[name.rstrip("%")] = value
    flags = {}
    merge(flags, target, env)
    out = {
        "SOURCES": [os.path.relpath(os.path.join(gyp_dir, s), root) for s in flags["sources"]],
        "CFLAGS": flags["cflags"] + flags["cflags_c"],
        "DEFINES": ["-D" + d for d in flags["defines"]],
        "INCLUDES": ["-I" + os.path.normpath(os.path.join(gyp_dir, d)) for d in flags["include_dirs"]],
        "LDFLAGS": flags["ldflags"] + flags["libraries"],
    }
    for name, values in out.items():
        print("%s=(%s)" % (name, " ".join(shlex.quote(v) for v in values)))


if __name__ == "__main__":
    main()
