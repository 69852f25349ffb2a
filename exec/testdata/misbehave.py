#!/usr/bin/env python3
"""A plug-in that misbehaves on purpose, for the exec interpreter's tests.

    misbehave.py echo           a plan whose spec is the request it read, with usage
    misbehave.py garbage        text that is not JSON
    misbehave.py fail           10 KiB of stderr noise, then "fatal: boom", exit 3
    misbehave.py hang PIDFILE   start a child in the same process group, write
                                its pid to PIDFILE, then sleep
    misbehave.py flood          write to stdout forever
"""

import json
import os
import subprocess
import sys
import time

mode = sys.argv[1]
if mode == "echo":
    req = json.load(sys.stdin)
    json.dump({
        "title": "Echo",
        "plan": {"title": "Echo", "spec": req,
                 "tasks": [{"id": "t1", "title": "Echo", "instruction": "echo", "dependsOn": []}]},
        "usage": {"promptTokens": 11, "completionTokens": 7, "costUsd": 0.25},
    }, sys.stdout)
elif mode == "garbage":
    sys.stdin.read()
    print("this is not JSON")
elif mode == "fail":
    sys.stderr.write("noise " * 2000 + "\n")
    sys.stderr.write("fatal: boom\n")
    sys.exit(3)
elif mode == "hang":
    child = subprocess.Popen(["sleep", "60"])
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(child.pid))
    os.rename(tmp, sys.argv[2])
    time.sleep(60)
elif mode == "flood":
    chunk = "x" * 65536
    while True:
        sys.stdout.write(chunk)
else:
    sys.exit("unknown mode " + mode)
