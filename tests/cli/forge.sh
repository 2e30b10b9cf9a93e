# Fake GitHub and GitLab APIs of the test's own (tests/tools/fake_forge.py)
# for the tests of the CI integrations (docs/ci.md, "Pull-request
# comments"). Sourced after lib.sh:
#   forge_start NAME [OPTION...]   starts one in $T/NAME on a free loopback
#                                  port with fake_forge.py's options; sets
#                                  FORGE_PORT; all are stopped at exit
#   forge_check NAME WHAT          runs the Python on standard input with R,
#                                  the requests NAME received so far (dicts:
#                                  method, path, query, token, body, status,
#                                  id), and E, the environment ($T in it);
#                                  a failed assert fails the check WHAT
# The tests run the CI definitions with tests/tools/ci_job.py, which reads
# YAML with PyYAML: without it they skip (exit 77), with a note.
python3 -c 'import yaml' 2>/dev/null || {
	echo "PyYAML (python3-yaml) not installed: skipped"
	exit 77
}
TOOLS=$PD_ROOT/tests/tools
forge_pids=
# the loopback is never reached through a proxy
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1

forge_stop() {
	for p in $forge_pids; do
		kill "$p" 2>/dev/null
	done
}
trap 'forge_stop; rm -rf "$T"' EXIT

forge_start() {
	fs_dir=$T/$1
	shift
	mkdir -p "$fs_dir"
	python3 "$TOOLS/fake_forge.py" "$fs_dir" "$@" &
	forge_pids="$forge_pids $!"
	fs_i=0
	while [ ! -s "$fs_dir/port" ] && [ $fs_i -lt 100 ]; do
		sleep 0.1
		fs_i=$((fs_i + 1))
	done
	[ -s "$fs_dir/port" ] || { not_ok "fake forge $fs_dir did not start"; finish; exit 1; }
	FORGE_PORT=$(cat "$fs_dir/port")
}

forge_check() {
	if T=$T python3 -c '
import json, os, sys
path = sys.argv[1]
R = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
E = os.environ
exec(sys.stdin.read())
' "$T/$1/requests" 2>"$T/forge_check.err"; then ok; else
		not_ok "$2: $(tail -c 800 "$T/forge_check.err")"
	fi
}
