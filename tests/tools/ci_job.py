#!/usr/bin/env python3
"""Runs CI definitions here as the CI would, for the t09xx tests.

ci_job.py github-action DIR OUTPUTS [NAME=VALUE...]
    The composite action DIR/action.yml with the inputs NAME=VALUE, in the
    current folder, as GitHub's runner does: inputs from `with` or their
    defaults, `${{ ... }}` looked up in the inputs, github (action_path,
    token from $GITHUB_TOKEN, workspace), runner (temp, from $RUNNER_TEMP)
    and the earlier steps' outputs, each step's env on top of the
    environment, a new $GITHUB_OUTPUT file per step, steps stopped at the
    first that fails. The action's outputs are written to OUTPUTS as
    name=value lines; the exit status is the failed step's, else 0. An
    expression that is no plain lookup, an unknown name, an input the
    action does not declare, `uses` or `if` in a step are errors (exit
    3): this runner checks what the action uses, and the action uses no
    more than it checks.

ci_job.py gitlab-job TEMPLATE JOB
    The job JOB of a GitLab CI file: its variables under the environment's
    (a project's CI/CD variables override the file's), its before_script
    and script lines run in one sh as a shell executor runs them,
    stopping at the first command that fails. Exit status: the script's.
"""

import os
import re
import subprocess
import sys
import tempfile

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Bad(Exception):
    pass


def lookup(path, ctx):
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*", path):
        raise Bad(f"not a plain lookup: ${{{{ {path} }}}}")
    value = ctx
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            raise Bad(f"unknown name in ${{{{ {path} }}}}")
        value = value[part]
    return value


def render(text, ctx):
    if text is None:
        return ""
    if isinstance(text, bool):
        return "true" if text else "false"
    return EXPR.sub(lambda m: str(lookup(m.group(1), ctx)), str(text))


def read_outputs(path):
    out, lines = {}, open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9_-]+)<<(.+)", line)
        if m:
            end = lines.index(m.group(2), i)
            out[m.group(1)] = "\n".join(lines[i:end])
            i = end + 1
        elif "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
        else:
            raise Bad(f"GITHUB_OUTPUT: cannot read '{line}'")
    return out


def github_action(folder, outputs_file, pairs):
    folder = os.path.abspath(folder)
    with open(os.path.join(folder, "action.yml"), encoding="utf-8") as f:
        action = yaml.safe_load(f)
    if action["runs"]["using"] != "composite":
        raise Bad("not a composite action")
    given = dict(p.split("=", 1) for p in pairs)
    declared = action.get("inputs") or {}
    for name in given:
        if name not in declared:
            raise Bad(f"unexpected input '{name}'")
    ctx = {"github": {"action_path": folder, "token": os.environ.get("GITHUB_TOKEN", ""),
                      "workspace": os.getcwd()},
           "runner": {"temp": os.environ.get("RUNNER_TEMP", tempfile.gettempdir())},
           "steps": {}, "inputs": {}}
    for name, spec in declared.items():
        if name in given:
            ctx["inputs"][name] = given[name]
        elif (spec or {}).get("required"):
            raise Bad(f"input '{name}' is required")
        else:
            ctx["inputs"][name] = render((spec or {}).get("default", ""), ctx)
    status = 0
    for n, step in enumerate(action["runs"]["steps"]):
        for key in step:
            if key not in ("id", "name", "shell", "env", "run", "working-directory"):
                raise Bad(f"step {n}: '{key}' is not something this runner does")
        shell = {"sh": ["sh", "-e"], "bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail"]}.get(step.get("shell"))
        if shell is None:
            raise Bad(f"step {n}: shell '{step.get('shell')}'")
        env = dict(os.environ)
        env.update({k: render(v, ctx) for k, v in (step.get("env") or {}).items()})
        fd, out = tempfile.mkstemp(prefix="gh-output.")
        os.close(fd)
        env["GITHUB_OUTPUT"] = out
        env["GITHUB_ACTION_PATH"] = folder
        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as script:
            script.write(render(step["run"], ctx))
        try:
            code = subprocess.call(shell + [script.name], env=env,
                                   cwd=step.get("working-directory") or None)
            if "id" in step:
                ctx["steps"][step["id"]] = {"outputs": read_outputs(out)}
        finally:
            os.unlink(script.name)
            os.unlink(out)
        if code:
            status = code
            break
    with open(outputs_file, "w", encoding="utf-8") as f:
        for name, spec in (action.get("outputs") or {}).items():
            try:
                f.write(f"{name}={render(spec['value'], ctx)}\n")
            except Bad:
                if status == 0:  # a step that did not run has no outputs
                    raise
    return status


def gitlab_job(template, job):
    with open(template, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    spec = doc[job]
    env = {}
    for k, v in (spec.get("variables") or {}).items():
        env[k] = str(v["value"] if isinstance(v, dict) else v)
    env.update(os.environ)
    lines = list(spec.get("before_script") or []) + list(spec["script"])
    script = "set -e\n" + "\n".join(lines) + "\n"
    return subprocess.call(["sh", "-c", script], env=env)


def main(argv):
    try:
        if len(argv) >= 4 and argv[1] == "github-action":
            return github_action(argv[2], argv[3], argv[4:])
        if len(argv) == 4 and argv[1] == "gitlab-job":
            return gitlab_job(argv[2], argv[3])
    except Bad as e:
        print(f"ci_job.py: {e}", file=sys.stderr)
        return 3
    print(__doc__, file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv))
