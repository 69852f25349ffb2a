#!/usr/bin/env python3
"""An askonce exec plug-in: one JSON request on stdin, one JSON outcome on stdout.

Run it as the exec interpreter's command:

    ASKONCE_EXEC_COMMAND='["python3", "examples/exec-plugin/plugin.py"]'

It plans a goal step by step, one task per sentence (or per "then"), each
depending on the one before. When the goal offers alternatives ("markdown
or html") it asks one SELECT_ONE question, unless the request carries an
answer or a directive: then it never asks, and records any choice it had
to make itself as an assumption. The schema is in docs/interpreters.md.

Only the Python standard library is used.
"""

import json
import re
import sys

MARKER = "\n\nClarification Answer: "
ALTERNATIVES = re.compile(r"\b([\w.+#-]+)\s+or\s+([\w.+#-]+)\b", re.IGNORECASE)
STEP_SPLIT = re.compile(r"(?<=[.!?])\s+|\s*;\s*|,?\s+then\s+", re.IGNORECASE)


def split_prompt(prompt):
    """The goal and the clarification answer (None if not answered yet)."""
    if MARKER in prompt:
        goal, answer = prompt.rsplit(MARKER, 1)
        return goal, answer.strip()
    return prompt, None


def steps(goal):
    parts = [re.sub(r"^(?:and\s+)?then\s+", "", p.strip(" .!?"), flags=re.IGNORECASE)
             for p in STEP_SPLIT.split(goal.strip())]
    return [p for p in parts if p] or [goal.strip()]


def title_of(goal):
    line = " ".join(goal.split())
    return line if len(line) <= 60 else line[:59].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…"


def plan(goal, choice, answer, assumptions):
    tasks = []
    for i, step in enumerate(steps(goal), start=1):
        tasks.append({
            "id": f"t{i}",
            "title": step[:60],
            "instruction": step + (f" (use {choice})" if choice else ""),
            "dependsOn": [f"t{i - 1}"] if i > 1 else [],
        })
    return {
        "title": title_of(goal),
        "plan": {
            "title": title_of(goal),
            "spec": {"goal": goal, "choice": choice, "answer": answer},
            "tasks": tasks,
            "assumptions": assumptions,
        },
    }


def interpret(req):
    goal, answer = split_prompt(req.get("prompt") or req.get("goal") or "")
    directive = req.get("directive") or ""
    alt = ALTERNATIVES.search(goal)
    if not alt:
        return plan(goal, None, answer, [])
    options = [alt.group(1), alt.group(2)]
    if answer is not None:
        # The answer is authoritative, and nothing is asked after it.
        for o in options:
            if answer.lower() == o.lower():
                return plan(goal, o, answer, [])
        return plan(goal, options[0], answer,
                    [f"The answer {answer!r} names neither {options[0]} nor {options[1]}; chose {options[0]}."])
    if directive:
        return plan(goal, options[0], None,
                    [f"Chose {options[0]} over {options[1]}, the first one the goal names."])
    return {
        "title": title_of(goal),
        "question": {
            "type": "SELECT_ONE",
            "text": f"Which one: {options[0]} or {options[1]}?",
            "options": options,
            "reason": "action_ambiguous",
            # No default: which option the goal names first says nothing
            # about what the person wants, and askonce drops a default no
            # one chose (docs/protocol.md rule 17), so that a question
            # nobody answers expires its job instead of answering for them.
        },
    }


def main():
    req = json.load(sys.stdin)
    if req.get("version") != 1:
        print(f"plugin: unsupported request version {req.get('version')!r}", file=sys.stderr)
        return 2
    out = interpret(req)
    # Usage is optional; this plug-in counts words, as it uses no model.
    text = json.dumps(out)
    out["usage"] = {
        "promptTokens": len(req.get("prompt", "").split()),
        "completionTokens": len(text.split()),
        "costUsd": 0,
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
